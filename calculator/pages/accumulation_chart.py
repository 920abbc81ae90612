"""The accumulation page's chart: effective batch and activation memory per GPU against accumulation steps."""

from __future__ import annotations

from decimal import Decimal
from html import escape

from ..form.numbers import format_decimal, format_integer
from ..form.svg import WIDTH, legend
from ..form.svg import svg_number as _n


def accumulation_chart(micro: int, steps: int, gpus: int, memory: Decimal, unit: str) -> str:
    """Effective batch (rising, left axis in samples) and activation memory per GPU (flat, right axis in ``unit``)
    against accumulation steps, with the configuration's steps marked on the horizontal axis."""
    last = max(8, min(64, steps * 2))
    xs = list(range(1, last + 1))
    batches = [micro * k * gpus for k in xs]
    left, right, top, bottom, width, height = 64, 72, 12, 44, WIDTH, 260
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(k: int) -> Decimal:
        return Decimal(left) + Decimal(plot_w) * (k - 1) / (last - 1)

    def y(share: Decimal) -> Decimal:
        return Decimal(top) + Decimal(plot_h) * (1 - share)

    top_batch = Decimal(batches[-1])
    batch_points = " ".join(f"{_n(x(k))},{_n(y(Decimal(b) / top_batch))}" for k, b in zip(xs, batches, strict=True))
    memory_y = _n(y(Decimal("0.5")))  # the right axis runs from 0 to twice the memory: the line sits halfway
    memory_points = " ".join(f"{_n(x(k))},{memory_y}" for k in xs)
    description = (
        f"Con micro-batch {format_integer(micro)} e {format_integer(gpus)} GPU, da 1 a {last} passi di accumulo"
        f" il batch effettivo sale da {format_integer(batches[0])} a {format_integer(batches[-1])}, mentre la memoria"
        f" delle attivazioni per GPU resta {format_decimal(memory)} {unit}."
    )
    base = top + plot_h
    ticks = []
    for share in (Decimal(0), Decimal("0.5"), Decimal(1)):  # left: samples; right: memory
        at = _n(y(share))
        ticks.append(f'<line class="calc-axis" x1="{left - 5}" y1="{at}" x2="{left}" y2="{at}"/>'
                     f'<text class="calc-tick calc-series-0-text" x="{left - 8}" y="{at}" dy="5" text-anchor="end">'
                     f"{format_integer(int(top_batch * share))}</text>"
                     f'<line class="calc-axis" x1="{left + plot_w}" y1="{at}" x2="{left + plot_w + 5}" y2="{at}"/>'
                     f'<text class="calc-tick calc-series-1-text" x="{left + plot_w + 8}" y="{at}" dy="5">'
                     f"{escape(format_decimal(memory * 2 * share))}</text>")
    for k in sorted({1, last, *([steps] if steps <= last else [])}):
        ticks.append(f'<line class="calc-axis" x1="{_n(x(k))}" y1="{base}" x2="{_n(x(k))}" y2="{base + 5}"/>'
                     f'<text class="calc-tick" x="{_n(x(k))}" y="{base + 20}" text-anchor="middle">{k}</text>')
    return "".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {width} {height}"'
        ' role="img" aria-labelledby="calc-chart-title calc-chart-desc">',
        '<title id="calc-chart-title">Batch effettivo e memoria delle attivazioni al variare dei passi</title>',
        f'<desc id="calc-chart-desc">{escape(description)}</desc>',
        f'<line class="calc-axis" x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}"/>',
        f'<line class="calc-axis" x1="{left}" y1="{top}" x2="{left}" y2="{base}"/>',
        f'<line class="calc-axis" x1="{left + plot_w}" y1="{top}" x2="{left + plot_w}" y2="{base}"/>',
        f'<polyline class="calc-line calc-series-0" data-series="batch" points="{batch_points}"/>',
        f'<polyline class="calc-line calc-series-1" data-series="memory" points="{memory_points}"/>',
        *ticks,
        f'<text class="calc-tick" x="{left + plot_w // 2}" y="{height - 4}" text-anchor="middle">Passi di accumulo</text>',
        "</svg>",
    ]) + legend([
        ("calc-series-0", f"Batch effettivo, in campioni (asse a sinistra): {format_integer(batches[0])} con 1 passo,"
                          f" {format_integer(batches[-1])} con {last}"),
        ("calc-series-1", f"Memoria delle attivazioni per GPU, in {unit} (asse a destra): {format_decimal(memory)} {unit}"
                          " con qualsiasi numero di passi"),
    ])
