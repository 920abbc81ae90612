"""Small SVG charts drawn from validated numbers, styled by the site's CSS.

Colours come from CSS classes (``calc-part-<n>``), so a chart follows the
light and dark themes; each chart has a title and a text description.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from html import escape

from .numbers import format_decimal

WIDTH = 600
BAR_HEIGHT = 36
LEGEND_ROW = 24


def stacked_bar(title: str, parts: Sequence[tuple[str, Decimal]], unit: str, width: int = WIDTH) -> str:
    """One horizontal bar split into labelled parts, with a legend below it; ``width`` in the chart's units (a
    narrow chart, beside the results, keeps its text readable)."""
    total = sum((value for _, value in parts), Decimal(0))
    description = "; ".join(f"{label}: {format_decimal(value)} {unit}" for label, value in parts)
    height = BAR_HEIGHT + 16 + LEGEND_ROW * len(parts)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {width} {height}"'
        f' role="img" aria-labelledby="calc-chart-title calc-chart-desc">',
        f'<title id="calc-chart-title">{escape(title)}</title>',
        f'<desc id="calc-chart-desc">{escape(description)}; totale {format_decimal(total)} {unit}</desc>',
    ]
    x = Decimal(0)
    for index, (label, value) in enumerate(parts):
        share = value / total * width if total > 0 else Decimal(0)
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


def svg_number(value: Decimal) -> str:
    """A coordinate with two decimals."""
    return f"{value.quantize(Decimal('0.01')):f}"



def bars(title: str, rows: Sequence[tuple[str, Decimal]], unit: str, highlight: int = -1) -> str:
    """One horizontal bar per row, its label and value beside it; the ``highlight`` row in the first colour."""
    top = max((value for _, value in rows), default=Decimal(0))
    label_width, row = 150, 30
    height = row * len(rows) + 8
    description = "; ".join(f"{label}: {format_decimal(value)} {unit}" for label, value in rows)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {WIDTH} {height}"'
        f' role="img" aria-labelledby="calc-chart-title calc-chart-desc">',
        f'<title id="calc-chart-title">{escape(title)}</title>',
        f'<desc id="calc-chart-desc">{escape(description)}</desc>',
    ]
    room = Decimal(WIDTH - label_width - 120)
    for index, (label, value) in enumerate(rows):
        y = index * row + 4
        width = value / top * room if top > 0 else Decimal(0)
        part = 0 if index == highlight else 1
        out.append(f'<text x="0" y="{y + 19}">{escape(label)}</text>')
        out.append(f'<rect class="calc-part-{part}" x="{label_width}" y="{y}" width="{_n(width)}" height="{row - 8}"/>')
        out.append(f'<text x="{_n(label_width + width + 6)}" y="{y + 19}">{escape(format_decimal(value))} {escape(unit)}'
                   "</text>")
    return "".join([*out, "</svg>"])


def phase_bars(title: str, components: Sequence[str], rows: Sequence[tuple[str, Sequence[Decimal]]], unit: str,
               limit: Decimal | None = None, limit_label: str = "") -> str:
    """One stacked bar per row (a phase) under its label and total, parts in the order of ``components``, on one
    scale; a dashed line marks ``limit`` (the card's memory), so that a bar that crosses it is seen to. Narrow
    (it sits beside the results), with a legend of one entry per line."""
    width, row, bar = 250, 50, 22
    top = max([sum(parts, Decimal(0)) for _, parts in rows] + [limit or Decimal(0)])
    room = Decimal(width - 4)
    legend_top = row * len(rows) + 10
    height = legend_top + LEGEND_ROW * len(components) + 4
    description = "; ".join(f"{label}: {format_decimal(sum(parts, Decimal(0)))} {unit}" for label, parts in rows)
    if limit is not None:
        description += f"; {limit_label}: {format_decimal(limit)} {unit}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {width} {height}"'
        f' role="img" aria-labelledby="calc-chart-title calc-chart-desc">',
        f'<title id="calc-chart-title">{escape(title)}</title>',
        f'<desc id="calc-chart-desc">{escape(description)}</desc>',
    ]
    for index, (label, parts) in enumerate(rows):
        y, x = index * row, Decimal(0)
        total = sum(parts, Decimal(0))
        out.append(f'<text x="0" y="{y + 17}">{escape(label)}: {escape(format_decimal(total))} {escape(unit)}</text>')
        for part, value in enumerate(parts):
            share = value / top * room if top > 0 else Decimal(0)
            if share > 0:
                out.append(f'<rect class="calc-part-{part}" x="{_n(x)}" y="{y + 22}" width="{_n(share)}"'
                           f' height="{bar}"><title>{escape(components[part])}: {escape(format_decimal(value))}'
                           f" {escape(unit)}</title></rect>")
            x += share
    if limit is not None and top > 0:
        x = limit / top * room
        out.append(f'<line class="calc-limit" x1="{_n(x)}" y1="18" x2="{_n(x)}" y2="{row * len(rows)}"'
                   ' stroke="currentColor" stroke-width="2" stroke-dasharray="5 4">'
                   f"<title>{escape(limit_label)}: {escape(format_decimal(limit))} {escape(unit)}</title></line>")
    out.append('<g class="calc-legend">')  # a cropped copy (kept in view on narrow screens) shows the bars only
    for index, label in enumerate(components):
        y = legend_top + LEGEND_ROW * index
        out.append(f'<rect class="calc-part-{index}" x="0" y="{y}" width="14" height="14"/>'
                   f'<text x="22" y="{y + 12}">{escape(label)}</text>')
    if limit is not None:
        y = legend_top + LEGEND_ROW * len(components)
        out.append(f'<line x1="0" y1="{y + 7}" x2="14" y2="{y + 7}" stroke="currentColor" stroke-width="2"'
                   f' stroke-dasharray="5 4"/><text x="22" y="{y + 12}">{escape(limit_label)}</text>')
        out[0] = out[0].replace(f'0 0 {width} {height}"', f'0 0 {width} {height + LEGEND_ROW}"')
    out.append("</g>")
    return "".join([*out, "</svg>"])


_n = svg_number
