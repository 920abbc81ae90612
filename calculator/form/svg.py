"""Small SVG charts drawn from validated numbers, styled by the site's CSS.

Colours come from CSS classes (``calc-part-<n>``), so a chart follows the
light and dark themes; each chart has a title and a text description.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import ROUND_CEILING, Decimal
from html import escape

from .numbers import format_decimal

WIDTH = 600
BAR_HEIGHT = 36
LEGEND_ROW = 24


def stacked_bar(title: str, parts: Sequence[tuple[str, Decimal]], unit: str, width: int = WIDTH,
                capacity: Decimal | None = None, reserve: Decimal = Decimal(0),
                capacity_label: str = "Memoria della GPU") -> str:
    """One horizontal bar split into labelled parts on an axis in ``unit``, with an HTML legend after it (text that
    stays readable on a phone); ``width`` in the chart's units. With a ``capacity`` (the card's memory) the axis
    reaches it, a dashed line marks it, the ``reserve`` below it is shaded and what goes past it is drawn as overflow."""
    total = sum((value for _, value in parts), Decimal(0))
    top = max(total, capacity or Decimal(0))
    description = "; ".join(f"{label}: {format_decimal(value)} {unit}" for label, value in parts)
    description += f"; totale {format_decimal(total)} {unit}"
    if capacity is not None:
        description += f"; {capacity_label}: {format_decimal(capacity)} {unit}"
    bar_top, height = 8, BAR_HEIGHT + 8 + AXIS_HEIGHT
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {width} {height}"'
        f' role="img" aria-labelledby="calc-chart-title calc-chart-desc">',
        f'<title id="calc-chart-title">{escape(title)}</title>',
        f'<desc id="calc-chart-desc">{escape(description)}</desc>',
    ]
    room = Decimal(width - 2)

    def x(value: Decimal) -> Decimal:
        return value / top * room + 1 if top > 0 else Decimal(1)

    start = Decimal(0)
    for index, (label, value) in enumerate(parts):
        share = x(start + value) - x(start)
        if share > 0:
            out.append(
                f'<rect class="calc-part-{index}" x="{_n(x(start))}" y="{bar_top}" width="{_n(share)}"'
                f' height="{BAR_HEIGHT}"><title>{escape(label)}: {escape(format_decimal(value))} {escape(unit)}</title>'
                "</rect>"
            )
        start += value
    entries = [(f"calc-part-{index}", f"{label}: {format_decimal(value)} {unit}" + (
        f" ({format_decimal(value / total * 100)} %)" if total > 0 else "")) for index, (label, value) in enumerate(parts)]
    if capacity is not None and top > 0:
        if reserve > 0:
            low = max(capacity - reserve, Decimal(0))
            out.append(f'<rect class="calc-reserve" x="{_n(x(low))}" y="0" width="{_n(x(capacity) - x(low))}"'
                       f' height="{bar_top - 2}"/>')
            entries.append(("calc-reserve", f"Riserva del framework: {format_decimal(reserve)} {unit}"))
        if total > capacity:
            out.append(f'<rect class="calc-overflow" x="{_n(x(capacity))}" y="{bar_top}"'
                       f' width="{_n(x(total) - x(capacity))}" height="{BAR_HEIGHT}"/>')
            entries.append(("calc-overflow", f"Oltre la memoria della GPU: {format_decimal(total - capacity)} {unit}"))
        out.append(f'<line class="calc-limit" x1="{_n(x(capacity))}" y1="0" x2="{_n(x(capacity))}"'
                   f' y2="{bar_top + BAR_HEIGHT + 4}" stroke="currentColor" stroke-width="2" stroke-dasharray="5 4"/>')
        entries.append(("calc-limit", f"{capacity_label}: {format_decimal(capacity)} {unit}"))
    out.append(_axis(x, top, unit, bar_top + BAR_HEIGHT, width))
    out.append("</svg>")
    return "".join(out) + legend(entries)


AXIS_HEIGHT = 30


def _axis(x: Callable[[Decimal], Decimal], top: Decimal, unit: str, y: int, width: int) -> str:
    """A horizontal axis under a bar: 0, the middle and the top, in ``unit``."""
    ticks = [Decimal(0), top / 2, top] if top > 0 else [Decimal(0)]
    out = [f'<line class="calc-axis" x1="1" y1="{y + 2}" x2="{width - 1}" y2="{y + 2}"/>']
    for index, value in enumerate(ticks):
        anchor = ("start", "middle", "end")[index]
        out.append(f'<line class="calc-axis" x1="{_n(x(value))}" y1="{y + 2}" x2="{_n(x(value))}" y2="{y + 7}"/>'
                   f'<text class="calc-tick" x="{_n(x(value))}" y="{y + 22}" text-anchor="{anchor}">'
                   f"{escape(format_decimal(value))}"
                   f"{' ' + escape(unit) if index == len(ticks) - 1 else ''}</text>")
    return "".join(out)


def legend(entries: Sequence[tuple[str, str]]) -> str:
    """A chart's legend as HTML text after it (readable on a phone, where the chart's own text would shrink), one
    swatch per entry, coloured by its class; hidden from screen readers, which read the chart's description."""
    items = "".join(f'<li><span class="calc-swatch {escape(css)}"></span>{escape(text)}</li>' for css, text in entries)
    return f'<ul class="calc-legend" aria-hidden="true">{items}</ul>'


def svg_part(chart: str) -> str:
    """The SVG of a chart, without the HTML legend after it."""
    return chart[: chart.index("</svg>") + len("</svg>")] if "</svg>" in chart else chart


def svg_number(value: Decimal) -> str:
    """A coordinate with two decimals."""
    return f"{value.quantize(Decimal('0.01')):f}"



def nice_ticks(top: Decimal, count: int = 4) -> list[Decimal]:
    """Round values from 0 to at most ``top`` for an axis: steps of 1, 2 or 5 times a power of ten, about ``count``
    of them (11,3 days: 0, 5, 10)."""
    if top <= 0:
        return [Decimal(0)]
    raw = top / count
    power = Decimal(10) ** raw.adjusted()
    step = next(power * m for m in (1, 2, 5, 10) if power * m >= raw)
    return [step * i for i in range(int(top / step) + 1)]


def value_axis(x: Callable[[Decimal], Decimal], top: Decimal, unit: str, y: int, start: int, end: int) -> str:
    """A horizontal numeric axis from ``start`` to ``end`` at height ``y``: round ticks (``nice_ticks``), each
    labelled, the last with the ``unit``."""
    ticks = nice_ticks(top)
    out = [f'<g class="calc-value-axis"><line class="calc-axis" x1="{start}" y1="{y}" x2="{end}" y2="{y}"/>']
    for index, value in enumerate(ticks):
        at = x(value)
        last = index == len(ticks) - 1
        anchor = "start" if at - start < 12 else "end" if end - at < 60 else "middle"
        out.append(f'<line class="calc-axis" x1="{_n(at)}" y1="{y}" x2="{_n(at)}" y2="{y + 5}"/>'
                   f'<text class="calc-tick" x="{_n(at)}" y="{y + 20}" text-anchor="{anchor}">'
                   f"{escape(format_decimal(value))}{' ' + escape(unit) if last and unit else ''}</text>")
    out.append("</g>")
    return "".join(out)


def bars(title: str, rows: Sequence[tuple[str, Decimal]], unit: str, highlight: int = -1,
         entries: Sequence[tuple[str, str]] = ()) -> str:
    """One horizontal bar per row, its label and value beside it, over a numeric axis in ``unit``; the
    ``highlight`` row in the first colour; ``entries`` (css class, text) are its legend, as HTML text after it."""
    top = max((value for _, value in rows), default=Decimal(0))
    label_width, row, value_room = 130, 34, 170
    axis_y = row * len(rows) + 6
    height = axis_y + AXIS_HEIGHT
    description = "; ".join(f"{label}: {format_decimal(value)} {unit}" for label, value in rows)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {WIDTH} {height}"'
        f' role="img" aria-labelledby="calc-chart-title calc-chart-desc">',
        f'<title id="calc-chart-title">{escape(title)}</title>',
        f'<desc id="calc-chart-desc">{escape(description)}</desc>',
    ]
    room = Decimal(WIDTH - label_width - value_room)

    def x(value: Decimal) -> Decimal:
        return label_width + (value / top * room if top > 0 else Decimal(0))

    for index, (label, value) in enumerate(rows):
        y = index * row + 4
        width = x(value) - label_width
        part = 0 if index == highlight else 1
        out.append(f'<text class="calc-label" x="{label_width - 8}" y="{y + 20}" text-anchor="end">{escape(label)}</text>')
        out.append(f'<rect class="calc-part-{part}" x="{label_width}" y="{y}" width="{_n(width)}" height="{row - 10}"/>')
        out.append(f'<text class="calc-label" x="{_n(x(value) + 6)}" y="{y + 20}">{escape(format_decimal(value))}'
                   f" {escape(unit)}</text>")
    out.append(f'<line class="calc-axis" x1="{label_width}" y1="0" x2="{label_width}" y2="{axis_y}"/>')
    out.append(value_axis(x, top, unit, axis_y, label_width, int(label_width + room)))
    return "".join([*out, "</svg>"]) + (legend(entries) if entries else "")


def phase_bars(title: str, components: Sequence[str], rows: Sequence[tuple[str, Sequence[Decimal]]], unit: str,
               limit: Decimal | None = None, limit_label: str = "") -> str:
    """One stacked bar per row (a phase) under its label and total, parts in the order of ``components``, on one
    scale, over a numeric axis in ``unit``; a dashed line marks ``limit`` (the card's memory), so that a bar that
    crosses it is seen to. Narrow (it sits beside the results), with an HTML legend after it."""
    width, row, bar = 250, 50, 22
    top = max([sum(parts, Decimal(0)) for _, parts in rows] + [limit or Decimal(0)])
    room = Decimal(width - 4)
    axis_y = row * len(rows) + 2
    height = axis_y + AXIS_HEIGHT
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
    out.append(value_axis(lambda value: value / top * room if top > 0 else Decimal(0), top, unit, axis_y, 0,
                          int(room)))
    entries = [(f"calc-part-{index}", label) for index, label in enumerate(components)]
    if limit is not None:
        entries.append(("calc-limit", f"{limit_label}: {format_decimal(limit)} {unit}"))
    return "".join([*out, "</svg>"]) + legend(entries)


_n = svg_number


def layout_bars(ident: str, title: str, components: Sequence[str],
                rows: Sequence[tuple[str, Sequence[Decimal], Decimal]], unit: str, axis_label: str,
                peak_label: str) -> str:
    """An article's figure: one stacked bar per row (a setup) under its name and total, its parts in the order of
    ``components``, all on one scale with an axis in ``unit``; a dashed tick on each bar marks the row's own peak
    (its third element) when it lies beyond the bar. Narrow, so that its text keeps its size on a phone; ``ident``
    names its title and description (an article may hold a form's chart too), and its HTML legend follows it."""
    width, row, bar, top_pad = 360, 48, 20, 4
    highest = max([max(sum(parts, Decimal(0)), peak) for _, parts, peak in rows] + [Decimal(0)])
    step = nice_step(highest)
    ticks = max(int((highest / step).to_integral_value(rounding=ROUND_CEILING)), 1)
    top = step * ticks
    room = Decimal(width - 12)
    axis_y = top_pad + row * len(rows) + 4
    height = axis_y + 44

    def x(value: Decimal) -> Decimal:
        return value / top * room + 1 if top > 0 else Decimal(1)

    sentences = []
    for label, parts, peak in rows:
        shares = ", ".join(f"{name.lower()} {format_decimal(value)} {unit}" for name, value in zip(components, parts,
                                                                                                  strict=True))
        sentences.append(f"{label}: {shares}; totale {format_decimal(sum(parts, Decimal(0)))} {unit};"
                         f" {peak_label.lower()} {format_decimal(peak)} {unit}")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calc-chart" viewBox="0 0 {width} {height}"'
        f' role="img" aria-labelledby="{ident}-title {ident}-desc">',
        f'<title id="{ident}-title">{escape(title)}</title>',
        f'<desc id="{ident}-desc">{escape(". ".join(sentences))}.</desc>',
    ]
    for tick in range(ticks + 1):
        value = step * tick
        out.append(f'<line class="calc-grid" x1="{_n(x(value))}" y1="{top_pad}" x2="{_n(x(value))}" y2="{axis_y}"/>')
    for index, (label, parts, peak) in enumerate(rows):
        y = top_pad + index * row
        total = sum(parts, Decimal(0))
        out.append(f'<text x="1" y="{y + 15}">{escape(label)}: {escape(format_decimal(total))} {escape(unit)}</text>')
        start = Decimal(0)
        for part, value in enumerate(parts):
            share = x(start + value) - x(start)
            if share > 0:
                out.append(f'<rect class="calc-part-{part}" x="{_n(x(start))}" y="{y + 21}" width="{_n(share)}"'
                           f' height="{bar}"><title>{escape(components[part])}: {escape(format_decimal(value))}'
                           f" {escape(unit)}</title></rect>")
            start += value
        if peak > total:
            out.append(f'<line class="calc-limit" x1="{_n(x(peak))}" y1="{y + 17}" x2="{_n(x(peak))}"'
                       f' y2="{y + 21 + bar + 4}" stroke="currentColor" stroke-width="2" stroke-dasharray="4 3">'
                       f"<title>{escape(peak_label)}: {escape(format_decimal(peak))} {escape(unit)}</title></line>")
    out.append(f'<line class="calc-axis" x1="1" y1="{axis_y}" x2="{width - 11}" y2="{axis_y}"/>')
    for tick in range(ticks + 1):
        value = step * tick
        anchor = "start" if tick == 0 else "end" if tick == ticks else "middle"
        out.append(f'<line class="calc-axis" x1="{_n(x(value))}" y1="{axis_y}" x2="{_n(x(value))}"'
                   f' y2="{axis_y + 5}"/><text class="calc-tick" x="{_n(x(value))}" y="{axis_y + 19}"'
                   f' text-anchor="{anchor}">{escape(format_decimal(value))}</text>')
    out.append(f'<text class="calc-tick" x="{_n(Decimal(width) / 2)}" y="{axis_y + 38}" text-anchor="middle">'
               f"{escape(axis_label)}</text>")
    entries = [(f"calc-part-{index}", label) for index, label in enumerate(components)]
    entries.append(("calc-limit", peak_label))
    return "".join([*out, "</svg>"]) + legend(entries)


def nice_step(top: Decimal) -> Decimal:
    """The step of an axis from 0 to ``top`` in at most six ticks: 1, 2 or 5 times a power of ten."""
    if top <= 0:
        return Decimal(1)
    power = Decimal(10) ** (top / 6).adjusted()
    return next(power * m for m in (Decimal(1), Decimal(2), Decimal(5), Decimal(10)) if top / (power * m) <= 6)
