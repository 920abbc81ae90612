"""The accumulation page's chart: effective batch and activation memory per GPU against accumulation steps."""

from __future__ import annotations

from decimal import Decimal
from html import escape

from ..form.numbers import format_decimal, format_integer
from ..form.svg import WIDTH
from ..form.svg import svg_number as _n


def accumulation_chart(micro: int, steps: int, gpus: int, memory: Decimal, unit: str) -> str:
    """Effective batch (rising) and activation memory per GPU (flat) against accumulation steps."""
    last = max(8, min(64, steps * 2))
    xs = list(range(1, last + 1))
    batches = [micro * k * gpus for k in xs]
    left, right, top, bottom, width, height = 56, 64, 16, 44, WIDTH, 260
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(k: int) -> Decimal:
        return Decimal(left) + Decimal(plot_w) * (k - 1) / (last - 1)

    def y(share: Decimal) -> Decimal:
        return Decimal(top) + Decimal(plot_h) * (1 - share)

    top_batch = Decimal(batches[-1])
    batch_points = " ".join(f"{_n(x(k))},{_n(y(Decimal(b) / top_batch))}" for k, b in zip(xs, batches, strict=True))
    memory_y = _n(y(Decimal("0.5")))
    memory_points = " ".join(f"{_n(x(k))},{memory_y}" for k in xs)
    batch_label = f"Batch effettivo (max {format_integer(batches[-1])})"
    memory_label = f"Memoria attivazioni per GPU: {format_decimal(memory)} {unit}"
    description = (
        f"Con micro-batch {format_integer(micro)} e {format_integer(gpus)} GPU, da 1 a {last} passi di accumulo"
        f" il batch effettivo sale da {format_integer(batches[0])} a {format_integer(batches[-1])}, mentre la memoria"
        f" delle attivazioni per GPU resta {format_decimal(memory)} {unit}."
    )
    current = ""
    if steps <= last:
        current_y = y(Decimal(batches[steps - 1]) / top_batch)
        current = f'<circle class="calc-series-0" cx="{_n(x(steps))}" cy="{_n(current_y)}" r="5"/>'
    return "".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {width} {height}"'
        ' role="img" aria-labelledby="calc-chart-title calc-chart-desc">',
        '<title id="calc-chart-title">Batch effettivo e memoria delle attivazioni al variare dei passi</title>',
        f'<desc id="calc-chart-desc">{escape(description)}</desc>',
        f'<line class="calc-axis" x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}"/>',
        f'<line class="calc-axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}"/>',
        f'<polyline class="calc-line calc-series-0" data-series="batch" points="{batch_points}"/>',
        f'<polyline class="calc-line calc-series-1" data-series="memory" points="{memory_points}"/>',
        current,
        f'<text x="{left}" y="{height - 24}">1</text>',
        f'<text x="{left + plot_w}" y="{height - 24}" text-anchor="end">{last}</text>',
        f'<text x="{left + plot_w // 2}" y="{height - 6}" text-anchor="middle">Passi di accumulo</text>',
        f'<text class="calc-series-0-text" x="{left + 8}" y="{top + 14}">{escape(batch_label)}</text>',
        f'<text class="calc-series-1-text" x="{left + 8}" y="{_n(y(Decimal("0.5")) - 8)}">{escape(memory_label)}</text>',
        "</svg>",
    ])
