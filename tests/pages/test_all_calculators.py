"""Every calculator, whatever arrives: no exception, only results or Italian messages."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculator import CALCULATORS, respond
from calculator.form.model import Format
from calculator.form.numbers import format_decimal, format_integer
from calculator.form.render import pressed, render

from ..conftest import ROOT

# A number as results show it: "1.048.576", "0,75 GB", "12,5 %", "—". The separators are the formatter's own,
# read from it, so that this checks the shape (groups of three, one decimal separator, a unit) and a change of
# separator fails only the formatting tests.
GROUP = format_integer(1000)[1:-3]
DECIMAL = format_decimal(Decimal("0.5"))[1:-1]
NUMBER_TEXT = re.compile(
    rf"^(—|-?\d{{1,3}}(?P<groups>(?:{re.escape(GROUP)}\d{{3}})*)(?:{re.escape(DECIMAL)}\d+)?(?: %| [A-Za-z€][A-Za-z/-]*)?)$"
)
values = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", "-1", "0", "abc", "NaN", "Infinity", "1e309", "0x10", "１２", "1.000.000,5",
                     "<img src=x onerror=alert(1)>", "on", "adamw_mixed", "3", "99999999999"]),
    st.integers(), st.floats(), st.none(), st.booleans(),
)


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
@settings(max_examples=150)
@given(data=st.data())
def test_arbitrary_inputs(calculator_id: str, data: st.DataObject) -> None:
    calc = CALCULATORS[calculator_id]
    keys = st.sampled_from([f.id for f in calc.fields] + ["extra", "__proto__"])
    # Half the time over the defaults, so that many answers compute (and show large, grouped numbers).
    base = calc.defaults if data.draw(st.booleans()) else {}
    texts = {**base, **data.draw(st.dictionaries(keys, values))}
    answer = respond({"calculator": calculator_id, "values": texts})
    assert answer["status"] in {"ok", "incomplete", "invalid"}
    results = answer["results"]
    assert isinstance(results, dict) and set(results) == {r.id for r in calc.results}
    for spec in calc.results:
        if spec.format not in (Format.TEXT, Format.CODE):
            assert NUMBER_TEXT.match(results[spec.id]), results[spec.id]
        assert "NaN" not in results[spec.id] and "Infinity" not in results[spec.id]
    errors = answer["errors"]
    assert isinstance(errors, dict)
    assert set(errors) <= {f.id for f in calc.fields}
    assert all(isinstance(m, str) and m.endswith(".") for m in errors.values())
    if answer["status"] != "ok":
        assert errors or answer["message"]


@pytest.mark.parametrize("text", [format_integer(1_048_576), format_decimal(Decimal("1234.5")) + " GB",
                                  format_decimal(Decimal("-20000.25")) + " %", format_integer(10**21)])
def test_number_text_reads_grouped_numbers(text: str) -> None:
    """The pattern's grouping branch, which the property test's inputs seldom reach: numbers of at least 1000."""
    match = NUMBER_TEXT.match(text)
    assert match and match.group("groups"), text


def test_number_text_wants_the_groups() -> None:
    assert not NUMBER_TEXT.match(str(1_048_576))  # not grouped
    assert not NUMBER_TEXT.match(format_integer(1_048_576)[:-1])  # a short last group
    # A real answer: the LoRA page's default count is in the millions.
    shown = respond({"calculator": "parametri-lora", "values": CALCULATORS["parametri-lora"].defaults})
    match = NUMBER_TEXT.match(shown["results"]["trainable_parameters"])  # type: ignore[index]
    assert match and match.group("groups")


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_declarations_are_complete(calculator_id: str) -> None:
    calc = CALCULATORS[calculator_id]
    assert calc.title and calc.summary.endswith(".")
    ids = [f.id for f in calc.fields] + [r.id for r in calc.results]
    assert len(ids) == len(set(ids))
    for spec in calc.fields:
        assert spec.label
        if spec.numeric:
            assert spec.minimum < spec.maximum and spec.help
    assert "predefinito" in calc.examples
    for name, example in calc.examples.items():
        answer = respond({"calculator": calculator_id, "values": {**calc.defaults, **example}})
        assert answer["status"] == "ok", (name, answer["errors"])


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_hostile_defaults_are_escaped(calculator_id: str) -> None:
    calc = CALCULATORS[calculator_id]
    hostile = {f.id: '"><script>alert(1)</script>' for f in calc.fields}
    html = render(calc, hostile)
    assert "<script>" not in html
    assert "&lt;script&gt;" in html or "&quot;&gt;" in html


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_every_chart_part_has_a_colour_in_both_themes(calculator_id: str) -> None:
    """A part without a CSS colour paints black, invisible in the dark theme (the activation bar had three)."""
    css = (ROOT / "docs" / "assets" / "stylesheets" / "calculators.css").read_text()
    calc = CALCULATORS[calculator_id]
    for example in calc.examples.values():
        chart = str(respond({"calculator": calculator_id, "values": {**calc.defaults, **example}}).get("chart", ""))
        for part in set(re.findall(r'class="(calc-part-\d+)"', chart)):
            assert f"\n.{part} {{ fill:" in css and f'[data-md-color-scheme="slate"] .{part} {{ fill:' in css, part


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_choice_labels_are_short_enough_to_read_in_full(calculator_id: str) -> None:
    """A closed select shows only its chosen label: at 390 px about forty-five characters fit, so the details go in
    the field's help text (issue 25: options of 55–97 characters were cut off on the VRAM, activation and LoRA
    pages)."""
    long = [(spec.id, option.label) for spec in CALCULATORS[calculator_id].fields for option in spec.options
            if len(option.label) > 45]
    assert not long


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_the_defaults_are_a_presets_values_or_say_why_not(calculator_id: str) -> None:
    """Issue 25: a page opens with the model its defaults are pressed (and its shape folded), or declares that its
    defaults are no preset's on purpose; a model's button that differs from the defaults by a rounding (6,74 for
    6,738416) would leave the page open, no button pressed, for no reason."""
    calc = CALCULATORS[calculator_id]
    folded = {spec.id for group, fields in calc.groups() if group in calc.fold for spec in fields}
    filling = [preset for preset in calc.presets if folded & set(preset.values)]
    if not filling:
        return
    held = [preset.label for preset in filling if pressed(calc, preset, calc.defaults)]
    assert bool(held) != bool(calc.unlike_presets), (
        f"{calculator_id}: the defaults fill {held or 'no preset'}"
        + (f", yet the page says: {calc.unlike_presets}" if calc.unlike_presets else "; make them one preset's values"
           " or say why not (Calculator.unlike_presets)"))
    page = render(calc)
    if held:  # the group opens folded, its title naming the model
        assert re.search(rf'<details class="calc__fold" data-fold [^>]*data-filled-by="{re.escape(held[0])}"', page)


TICK = re.compile(r'<text class="calc-tick"[^>]*>([^<]*)</text>')


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_every_chart_has_a_numeric_axis_with_its_unit_and_an_html_legend(calculator_id: str) -> None:
    """Issue 25: no chart without an axis (the time page's bars, the VRAM page's phases had none): in every mode,
    at least two numeric ticks, a unit on the axis, and the legend as HTML text after the drawing."""
    calc = CALCULATORS[calculator_id]
    if calc.chart is None:
        return
    mode_field = calc.field(calc.mode_field) if calc.mode_field else None
    for mode in [o.value for o in mode_field.options] if mode_field else [""]:
        texts = {**calc.defaults, **({calc.mode_field: mode} if mode else {})}
        answer = respond({"calculator": calculator_id, "values": texts})
        if answer["status"] != "ok":  # a mode whose defaults need another field (DeepSpeed's ZeRO stage)
            continue
        chart = answer["chart"]
        assert isinstance(chart, str) and chart, (calculator_id, mode)
        ticks = TICK.findall(chart)
        numeric = [t for t in ticks if re.match(r"^-?\d[\d.]*(,\d+)?( |$)", t)]
        assert len(numeric) >= 2, (calculator_id, mode, ticks)
        drawing, after = chart.split("</svg>", 1)
        assert 'class="calc-axis"' in drawing, (calculator_id, mode)
        assert any(re.search(r"\d [A-Za-zà]", t) or not re.match(r"^[\d.,-]+$", t) for t in ticks), (
            f"{calculator_id} ({mode}): no tick says the axis' unit: {ticks}")
        assert after.startswith('<ul class="calc-legend"'), (calculator_id, mode)


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_the_default_gpu_is_the_button_pressed_not_its_twin_of_the_same_memory(calculator_id: str) -> None:
    """A100 80GB and H100 80GB fill the same memory: at the defaults (an H100) the H100 is pressed."""
    from calculator.llm.gpus import GPU_DEFAULT

    page = render(CALCULATORS[calculator_id])
    for row in re.findall(r'<div class="calc__presets"[^>]*>.*?</div>', page, re.S):
        if "GPU" not in row.split("</span>", 1)[0] or "fp8" in row.split("</span>", 1)[0]:
            continue
        on = [label.strip() for label in re.findall(r'aria-pressed="true"[^>]*>([^<]+)', row)]
        assert on == [GPU_DEFAULT.label], (calculator_id, on)


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_the_form_carries_its_notes_on_kept_values(calculator_id: str) -> None:
    """The notes on the values kept on this device come with the form (an empty live region after the address note,
    each note in an attribute): the page script writes one in, and holds no sentence of its own."""
    from html import unescape

    from calculator.form.render import STORAGE_NOTES, USE_THEIRS

    html = render(CALCULATORS[calculator_id])
    (note,) = re.findall(r'<p class="calc__note" data-storage-note=""([^>]*)role="status"></p>', html)
    attributes = {name: unescape(value) for name, value in re.findall(r' data-([a-z-]+)="([^"]*)"', note)}
    assert attributes == {**STORAGE_NOTES, "use-theirs": USE_THEIRS}
    assert html.index("data-address-note") < html.index("data-storage-note")
