"""Small SVG charts drawn from validated numbers, styled by the site's CSS.

Colours come from CSS classes (``calc-part-<n>``), so a chart follows the
light and dark themes; each chart has a title and a text description.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from html import escape

from .numbers import format_decimal, format_integer

WIDTH = 600
BAR_HEIGHT = 36
LEGEND_ROW = 24


def stacked_bar(title: str, parts: Sequence[tuple[str, Decimal]], unit: str) -> str:
    """One horizontal bar split into labelled parts, with a legend below it."""
    total = sum((value for _, value in parts), Decimal(0))
    description = "; ".join(f"{label}: {format_decimal(value)} {unit}" for label, value in parts)
    height = BAR_HEIGHT + 16 + LEGEND_ROW * len(parts)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {WIDTH} {height}"'
        f' role="img" aria-labelledby="calc-chart-title calc-chart-desc">',
        f'<title id="calc-chart-title">{escape(title)}</title>',
        f'<desc id="calc-chart-desc">{escape(description)}; totale {format_decimal(total)} {unit}</desc>',
    ]
    x = Decimal(0)
    for index, (label, value) in enumerate(parts):
        share = value / total * WIDTH if total > 0 else Decimal(0)
        if share > 0:
            out.append(
                f'<rect class="calc-part-{index}" x="{_n(x)}" y="0" width="{_n(share)}" height="{BAR_HEIGHT}">'
                f"<title>{escape(label)}: {escape(format_decimal(value))} {escape(unit)}</title></rect>"
            )
        x += share
    for index, (label, value) in enumerate(parts):
        y = BAR_HEIGHT + 16 + LEGEND_ROW * index
        percent = format_decimal(value / total * 100) if total > 0 else "0"
        out.append(
            f'<rect class="calc-part-{index}" x="0" y="{y}" width="14" height="14"/>'
            f'<text x="22" y="{y + 12}">{escape(label)}: {escape(format_decimal(value))} {escape(unit)}'
            f" ({percent} %)</text>"
        )
    out.append("</svg>")
    return "".join(out)


def _n(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01')):f}"


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
