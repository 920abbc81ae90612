"""Parsing and formatting of Italian numbers."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculator.form.evaluate import evaluate
from calculator.form.model import Calculator, Field, FieldError, Kind, Problem, Result, read_field
from calculator.form.numbers import (
    ParseError,
    ParseProblem,
    ambiguous_reading,
    format_decimal,
    format_exact_field,
    format_grouped,
    format_integer,
    parse_number,
)
from calculator.form.render import render

PARSED = [
    ("0,5", "0.5"),
    ("0.5", "0.5"),
    ("  4  ", "4"),
    ("\u00a012\u00a0", "12"),
    ("1.000", "1000"),  # a single dot before three digits: thousands, as Italians write
    ("0.125", "0.125"),  # ...but not after a zero integer part
    ("12.5", "12.5"),
    ("1.2345", "1.2345"),
    ("1,000", "1"),  # a single comma is always the decimal comma
    ("1.000.000", "1000000"),
    ("1,000,000", "1000000"),
    ("1 000 000", "1000000"),
    ("1.000,5", "1000.5"),
    ("1,000.5", "1000.5"),
    ("+7", "7"),
    ("-1", "-1"),
    ("\u22123", "-3"),
    ("\uff11\uff12", "12"),  # full-width digits
    ("007", "7"),
]

REJECTED = [
    ("", ParseProblem.EMPTY),
    ("   ", ParseProblem.EMPTY),
    ("abc", ParseProblem.NOT_A_NUMBER),
    ("1e3", ParseProblem.NOT_A_NUMBER),
    ("NaN", ParseProblem.NOT_A_NUMBER),
    ("Infinity", ParseProblem.NOT_A_NUMBER),
    ("0x10", ParseProblem.NOT_A_NUMBER),
    (",5", ParseProblem.NOT_A_NUMBER),
    ("5,", ParseProblem.NOT_A_NUMBER),
    ("1..0", ParseProblem.NOT_A_NUMBER),
    ("--1", ParseProblem.NOT_A_NUMBER),
    ("<img src=x onerror=alert(1)>", ParseProblem.NOT_A_NUMBER),
    ("1,5,5", ParseProblem.BAD_GROUPING),
    ("1.00.0", ParseProblem.BAD_GROUPING),
    ("1.000,000.5", ParseProblem.BAD_GROUPING),
    ("1 000.000", ParseProblem.BAD_GROUPING),
    ("1.000.5", ParseProblem.BAD_GROUPING),
    ("9" * 41, ParseProblem.TOO_LONG),
    ("0,1234567", ParseProblem.TOO_MANY_DECIMALS),
]

# Digits that Unicode's compatibility normalisation (NFKC) would fold into 0–9, so that "10⁶" samples became 106:
# refused, each kind by name. Full-width digits (East Asian keyboards) stay accepted (in PARSED).
FOREIGN_DIGITS = [
    ("10⁶", "superscript"),
    ("10²", "superscript"),
    ("H₂", "subscript"),
    ("1₀", "subscript"),
    ("①", "circled"),
    ("⑩", "circled ten, which NFKC turns into 10"),
    ("⓪", "circled"),
    ("½", "vulgar fraction"),
    ("Ⅻ", "Roman numeral"),
    ("➊", "dingbat negative circled"),
    ("𝟏𝟐", "mathematical bold"),
    ("𝟙", "mathematical double-struck"),
    ("𝟶", "mathematical monospace"),
    ("٣", "Arabic-Indic"),
    ("۴", "Extended Arabic-Indic"),
    ("५", "Devanagari"),
    ("৭", "Bengali"),
    ("๓", "Thai"),
    ("᠕", "Mongolian"),
    ("4⁰", "superscript zero after a plain digit"),
    ("1.000,⁵", "superscript in the decimals"),
]


@pytest.mark.parametrize(("text", "kind"), FOREIGN_DIGITS, ids=[kind for _, kind in FOREIGN_DIGITS])
def test_refuses_digits_that_are_not_plain(text: str, kind: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_number(text)
    assert caught.value.problem is ParseProblem.NOT_PLAIN_DIGITS, kind


def test_a_field_says_which_digits_it_reads() -> None:
    spec = Field(id="n", label="Campioni del dataset", default="1000", help="")
    with pytest.raises(FieldError) as caught:
        read_field(spec, "10⁶")
    assert caught.value.problem is Problem.NOT_PLAIN_DIGITS
    assert str(caught.value) == ("Campioni del dataset: usa le cifre da 0 a 9 (apici, pedici, cifre cerchiate o di altri"
                                 " alfabeti non sono letti), per esempio 1000.")


@pytest.mark.parametrize(("text", "expected"), PARSED)
def test_parses(text: str, expected: str) -> None:
    assert parse_number(text) == Decimal(expected)


@pytest.mark.parametrize(("text", "problem"), REJECTED)
def test_rejects(text: str, problem: ParseProblem) -> None:
    with pytest.raises(ParseError) as caught:
        parse_number(text)
    assert caught.value.problem is problem


FORMATTED = [
    ("0", "0"),
    ("2", "2"),
    ("2.0", "2"),
    ("0.75", "0,75"),
    ("0.5", "0,5"),
    ("1000.5", "1.000,5"),
    ("1048576", "1.048.576"),
    ("1.3332", "1,33"),
    ("2.005", "2"),  # half-even
    ("0.000123", "0,000123"),
    ("0.0001234", "0,000123"),
    ("0.9996", "1"),
    ("-1234.5", "-1.234,5"),
    ("1E+21", "1.000.000.000.000.000.000.000"),
]


@pytest.mark.parametrize(("value", "expected"), FORMATTED)
def test_formats(value: str, expected: str) -> None:
    assert format_decimal(Decimal(value)) == expected


def test_refuses_to_format_non_finite() -> None:
    for bad in ("NaN", "Infinity"):
        with pytest.raises(ValueError):
            format_decimal(Decimal(bad))


@given(st.integers(min_value=-(10**27), max_value=10**27))
def test_integers_round_trip(n: int) -> None:
    text = format_integer(n)
    assert "," not in text
    assert parse_number(text) == n


@given(st.decimals(min_value=Decimal("-1e12"), max_value=Decimal("1e12"), places=2, allow_nan=False))
def test_formatted_decimals_parse_back(value: Decimal) -> None:
    assert parse_number(format_decimal(value)) == value


@given(st.text(max_size=60))
def test_parse_never_fails_unexpectedly(text: str) -> None:
    try:
        value = parse_number(text)
    except ParseError:
        return
    assert value.is_finite()


# Ambiguous texts: read one way, never silently (issue 25).
heads, tails = st.integers(1, 999), st.integers(0, 999)


@given(heads, tails, st.sampled_from(["", "-", "+"]))
def test_a_dot_before_three_digits_in_a_decimal_field_is_echoed(head: int, tail: int, sign: str) -> None:
    text = f"{sign}{head}.{tail:03}"
    reading = ambiguous_reading(text, integer=False)
    assert reading is not None
    assert reading.taken == parse_number(text)  # the echo states the value the field computes with
    assert reading.other == Decimal(f"{sign.strip('+')}{head}.{tail:03}") and reading.taken == reading.other * 1000
    assert ambiguous_reading(text, integer=True) is None  # an integer field reads it as thousands only


@given(heads, tails)
def test_a_comma_before_three_digits_in_an_integer_field_is_echoed(head: int, tail: int) -> None:
    text = f"{head},{tail:03}"
    reading = ambiguous_reading(text, integer=True)
    assert reading is not None and reading.taken == parse_number(text)
    assert reading.other == head * 1000 + tail
    assert ambiguous_reading(text, integer=False) is None  # a decimal comma in a decimal field: Italian, plain


@pytest.mark.parametrize(("text", "integer"), [
    ("0.125", False), ("1.2345", False), ("12.5", False), ("1.000.000", False), ("1.000,5", False), ("1 235", False),
    ("1,5", True), ("1,000,000", True), ("1.000", True), ("4", True), ("", False), ("abc", True), ("1235", False),
])
def test_unambiguous_texts_have_no_echo(text: str, integer: bool) -> None:
    assert ambiguous_reading(text, integer) is None


@given(st.text(max_size=12), st.booleans())
def test_an_echo_always_states_the_parsed_value(text: str, integer: bool) -> None:
    reading = ambiguous_reading(text, integer)
    if reading is not None:
        assert reading.taken == parse_number(text) and reading.taken != reading.other


@given(st.decimals(min_value=Decimal(-10**12), max_value=Decimal(10**12), places=6))
def test_the_grouped_echo_parses_back_and_has_no_dot(value: Decimal) -> None:
    text = format_grouped(value)
    assert "." not in text and parse_number(text) == value


def test_the_grouped_echo() -> None:
    assert format_grouped(Decimal(1235)) == "1\u202f235"
    assert format_grouped(Decimal("1.235")) == "1,235"
    assert format_grouped(Decimal("-1234567.5")) == "-1\u202f234\u202f567,5"


def _echoing() -> Calculator:
    return Calculator(
        id="eco", title="Eco", summary="Eco.", compute=lambda values: {"r": Decimal(1)},
        fields=(Field(id="p", label="Parametri", default="7", kind=Kind.DECIMAL, unit="miliardi", help="P."),
                Field(id="n", label="Campioni", default="4", unit="campioni", help="N.")),
        results=(Result("r", "R"),),
    )


def test_the_answer_carries_the_echo_and_the_form_shows_it() -> None:
    calc = _echoing()
    answer = evaluate(calc, {"p": "1.235", "n": "1,000"})
    assert answer.status == "ok"
    assert answer.as_dict()["notes"] == {
        "p": "Letto come 1\u202f235 miliardi. Intendevi 1,235 miliardi? Allora scrivi la virgola: 1,235.",
        "n": "Letto come 1. Intendevi 1\u202f000 campioni? Allora scrivi 1000, senza separatori.",
    }
    # An invalid reading keeps its echo beside the error.
    invalid = evaluate(calc, {"p": "7", "n": "2,500"})
    assert invalid.status == "invalid" and "n" in invalid.errors
    assert invalid.notes == {"n": "Letto come 2,5 campioni. Intendevi 2\u202f500 campioni? Allora scrivi 2500, senza"
                                  " separatori."}
    assert evaluate(calc, {"p": "1,235", "n": "1000"}).notes == {}
    html = render(calc, {"p": "1.235", "n": "4"})
    assert ('<p class="calc__echo" id="eco--p--nota" data-note-for="p">Letto come 1\u202f235 miliardi.' in html)
    assert '<p class="calc__echo" id="eco--n--nota" data-note-for="n" hidden></p>' in html
    assert 'aria-describedby="eco--p--aiuto eco--p--errore eco--p--nota"' in html


def _units() -> Calculator:
    from calculator.form.model import Option

    return Calculator(
        id="unita", title="Unità", summary="Unità.", compute=lambda values: {"r": Decimal(str(values["m"]))},
        fields=(Field(id="m", label="Memoria", default="0,5", kind=Kind.DECIMAL, unit_from="u", help="M.",
                      minimum=Decimal(0), exclusive_minimum=True),
                Field(id="u", label="Unità", default="GB", kind=Kind.CHOICE, help="U.",
                      options=(Option("MB", "MB", Decimal("0.001")), Option("GB", "GB", Decimal(1)),
                               Option("GiB", "GiB", Decimal("1.073741824")), Option("x", "x")))),
        results=(Result("r", "R", unit_from="u"),),
    )


@pytest.mark.parametrize(("before", "after", "typed", "rewritten"), [
    ("GB", "MB", "0,5", "500"), ("MB", "GB", "500", "0,5"), ("GB", "GiB", "20", "18,6265"),
    ("GiB", "GB", "18,626451", "20"), ("MB", "GiB", "1.000", "0,931323"),
])
def test_a_changed_unit_converts_the_value(before: str, after: str, typed: str, rewritten: str) -> None:
    answer = evaluate(_units(), {"m": typed, "u": after}, {"m": typed, "u": before})
    assert answer.rewrites == {"m": rewritten} and answer.as_dict()["rewrites"] == {"m": rewritten}
    assert answer.outputs["r"] == parse_number(rewritten)  # computed with the converted value, in the new unit


@pytest.mark.parametrize(("texts", "before"), [
    ({"m": "500", "u": "MB"}, {"m": "0,5", "u": "GB"}),  # the value changed with the unit: typed in the new one
    ({"m": "0,5", "u": "MB"}, None),  # no previous request (a load, a reset, a link)
    ({"m": "abc", "u": "MB"}, {"m": "abc", "u": "GB"}),  # not a number: left as typed
    ({"m": "0,5", "u": "x"}, {"m": "0,5", "u": "GB"}),  # a unit without a scale
    ({"m": "0,5", "u": "GB"}, {"m": "0,5", "u": "GB"}),  # nothing changed
])
def test_no_conversion_where_none_is_meant(texts: dict[str, str], before: dict[str, str] | None) -> None:
    assert evaluate(_units(), texts, before).rewrites == {}


@given(st.decimals(min_value=Decimal("0.001"), max_value=Decimal(10**6), places=3),
       st.sampled_from(["MB", "GB", "GiB"]), st.sampled_from(["MB", "GB", "GiB"]))
def test_a_conversion_keeps_the_amount(value: Decimal, before: str, after: str) -> None:
    """Six significant digits: the amount in bytes is kept to a few parts in a million."""
    text = format_exact_field(value)
    answer = evaluate(_units(), {"m": text, "u": after}, {"m": text, "u": before})
    scale = {"MB": Decimal("0.001"), "GB": Decimal(1), "GiB": Decimal("1.073741824")}
    if before == after:
        assert answer.rewrites == {}
        return
    new = parse_number(answer.rewrites["m"])
    assert abs(new * scale[after] - value * scale[before]) <= value * scale[before] * Decimal("1e-5") + Decimal("1e-6")
