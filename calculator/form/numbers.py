"""Italian number parsing and formatting.

Parsing accepts what people type on an Italian site and the English decimal
point too:

* ``","`` is the decimal comma: ``"0,5"`` is one half, ``"1,000"`` is one.
* ``"."`` alone is a decimal point (``"0.5"``), except where it can only be a
  thousands separator: more than one dot (``"1.000.000"``), or a single dot
  with exactly three digits after a non-zero integer part (``"1.000"`` is
  mille, as an Italian reader writes it).
* With both, the last one is the decimal separator and the other separates
  thousands: ``"1.000,5"`` and ``"1,000.5"`` are both 1000.5.
* Spaces between groups of three digits separate thousands (``"1 000 000"``).
* Thousands groups must have three digits; exponents, ``NaN``, ``Infinity``
  and hexadecimal are not numbers here. Full-width digits (an Asian keyboard's)
  are normalised; other digits that normalisation would fold into 0–9
  (superscripts, subscripts, circled, mathematical) are refused: "10⁶" is not 106.

Two texts are read one way but often meant the other, and are never read silently (``ambiguous_reading``, which
the form shows next to the field): a single dot before three digits in a decimal field (``"1.235"`` is 1235, an
English reader meant 1,235) and a comma before three digits in an integer field (``"1,000"`` is 1, an English
reader meant 1000).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from enum import Enum

MAX_INPUT_LENGTH = 40
MAX_DECIMALS = 6

_BODY = re.compile(r"[0-9]+(?:[., ][0-9]+)*")


class ParseProblem(Enum):
    """Why a text is not a number; the field turns it into a message."""

    EMPTY = "empty"
    TOO_LONG = "too_long"
    NOT_A_NUMBER = "not_a_number"
    BAD_GROUPING = "bad_grouping"
    TOO_MANY_DECIMALS = "too_many_decimals"
    NOT_PLAIN_DIGITS = "not_plain_digits"


# The digits a reader types: ASCII, and the full-width ones of East Asian input methods.
PLAIN_DIGITS = frozenset("0123456789") | frozenset(chr(0xFF10 + n) for n in range(10))


def foreign_digits(text: str) -> list[str]:
    """The characters of ``text`` that have a numeric value but are not plain digits (superscripts, circled, ⑩, ½,
    other scripts…)."""
    return [c for c in text if unicodedata.numeric(c, None) is not None and c not in PLAIN_DIGITS]


class ParseError(ValueError):
    """A text that is not a number in any form we accept."""

    def __init__(self, problem: ParseProblem) -> None:
        super().__init__(problem.value)
        self.problem = problem


def parse_number(text: str) -> Decimal:
    """Parse an Italian (or English-decimal) number into an exact Decimal."""
    if foreign_digits(text):
        raise ParseError(ParseProblem.NOT_PLAIN_DIGITS)
    cleaned = unicodedata.normalize("NFKC", text).replace("\u2212", "-").strip()
    if not cleaned:
        raise ParseError(ParseProblem.EMPTY)
    if len(cleaned) > MAX_INPUT_LENGTH:
        raise ParseError(ParseProblem.TOO_LONG)
    sign = ""
    if cleaned[0] in "+-":
        sign, cleaned = cleaned[0].replace("+", ""), cleaned[1:].lstrip()
    if not _BODY.fullmatch(cleaned):
        raise ParseError(ParseProblem.NOT_A_NUMBER)
    integer, fraction = _split(cleaned)
    if len(fraction) > MAX_DECIMALS:
        raise ParseError(ParseProblem.TOO_MANY_DECIMALS)
    return Decimal(f"{sign}{integer}.{fraction}" if fraction else f"{sign}{integer}")


def _split(body: str) -> tuple[str, str]:
    """Split a body of digits and separators into integer and fraction digits."""
    commas, dots = body.count(","), body.count(".")
    decimal_sep = ""
    if commas and dots:
        decimal_sep = "," if body.rfind(",") > body.rfind(".") else "."
    elif commas == 1:
        decimal_sep = ","
    elif dots == 1 and not _looks_like_thousands(body):
        decimal_sep = "."
    if decimal_sep:
        if body.count(decimal_sep) != 1:
            raise ParseError(ParseProblem.BAD_GROUPING)
        integer_part, fraction = body.split(decimal_sep)
        if not fraction.isdigit():
            raise ParseError(ParseProblem.BAD_GROUPING)
    else:
        integer_part, fraction = body, ""
    groups = re.split(r"[., ]", integer_part)
    if len(groups) > 1:
        if len(set(re.findall(r"[., ]", integer_part))) != 1:
            raise ParseError(ParseProblem.BAD_GROUPING)
        if not 1 <= len(groups[0]) <= 3 or any(len(g) != 3 for g in groups[1:]):
            raise ParseError(ParseProblem.BAD_GROUPING)
    return "".join(groups), fraction


def _looks_like_thousands(body: str) -> bool:
    head, _, tail = body.partition(".")
    return len(tail) == 3 and tail.isdigit() and head.replace(" ", "").lstrip("0") != ""


@dataclass(frozen=True)
class Reading:
    """An ambiguous text: the value it is read as and the value the other convention gives."""

    taken: Decimal
    other: Decimal


_DOT_THOUSANDS = re.compile(r"([+-]?)([0-9]{1,3})\.([0-9]{3})")
_COMMA_DECIMAL = re.compile(r"([+-]?)([0-9]{1,3}),([0-9]{3})")


def ambiguous_reading(text: str, integer: bool) -> Reading | None:
    """How ``text`` is read and how else it could be meant, for the two texts the conventions disagree on: a dot
    before three digits in a decimal field (thousands here, a decimal point in English), a comma before three digits
    in an integer field (a decimal comma here, thousands in English). None for any other text."""
    cleaned = unicodedata.normalize("NFKC", text).replace("\u2212", "-").strip()
    match = (_COMMA_DECIMAL if integer else _DOT_THOUSANDS).fullmatch(cleaned)
    if match is None or (not integer and int(match[2]) == 0):
        return None
    sign, head, tail = match.groups()
    thousands, point = Decimal(f"{sign}{head}{tail}"), Decimal(f"{sign}{head}.{tail}")
    return Reading(point, thousands) if integer else Reading(thousands, point)


def format_grouped(value: Decimal) -> str:
    """Exactly ``value``, for an echo nobody can misread: thousands separated by a narrow space, a decimal comma
    (``1235`` → ``"1 235"``, ``Decimal("1.235")`` → ``"1,235"``)."""
    sign = "-" if value < 0 else ""
    integer, _, fraction = f"{abs(value):f}".partition(".")
    grouped = f"{int(integer):,}".replace(",", "\u202f")
    fraction = fraction.rstrip("0")
    return f"{sign}{grouped},{fraction}" if fraction else f"{sign}{grouped}"


# Decimal memory units, each 1000 times the one before: a result in one of them is shown in the one that reads best
# (no TB: a total over many GPUs still reads in GB, as the GPUs' memory does).
MEMORY_UNITS = ("MB", "GB")


def scale_memory(value: Decimal, unit: str) -> tuple[Decimal, str]:
    """One unit policy for decimal memory: 1 000 MB and more in GB, under 1 GB in MB; zero, other units
    (GiB, which nvidia-smi users read, counts…) as they are. ``1880.1 MB`` → ``1.8801 GB``."""
    if unit not in MEMORY_UNITS or value == 0:
        return value, unit
    step = MEMORY_UNITS.index(unit)
    while abs(value) >= 1000 and step < len(MEMORY_UNITS) - 1:
        value, step = value / 1000, step + 1
    while abs(value) < 1 and step > 0:
        value, step = value * 1000, step - 1
    return value, MEMORY_UNITS[step]


def format_integer(value: int) -> str:
    """``1048576`` → ``"1.048.576"``."""
    sign = "-" if value < 0 else ""
    return sign + f"{abs(value):,}".replace(",", ".")


def format_decimal(value: Decimal) -> str:
    """Round for reading and format the Italian way.

    Whole numbers stay exact. Values of at least 1 keep two decimals at most;
    smaller ones keep three significant digits, so a small value never shows
    as zero. Trailing zeros are dropped: ``"2"``, ``"0,75"``, ``"1.000,5"``.
    """
    if not value.is_finite():
        raise ValueError("only finite values are formatted")
    with localcontext() as ctx:
        ctx.prec = 80
        if value == value.to_integral_value():
            return format_integer(int(value))
        if abs(value) >= 1:
            rounded = value.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
        else:
            exponent = value.adjusted() - 2
            rounded = value.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_EVEN)
        if rounded == rounded.to_integral_value():
            return format_integer(int(rounded))
        integer, _, fraction = f"{abs(rounded):f}".partition(".")
        sign = "-" if rounded < 0 else ""
        return f"{sign}{format_integer(int(integer))},{fraction.rstrip('0')}"


def format_exact_field(value: Decimal) -> str:
    """A value as a field's text, as exact as fields accept (``MAX_DECIMALS`` decimals, Italian comma)."""
    with localcontext() as ctx:
        ctx.prec = 80
        text = f"{value.quantize(Decimal(1).scaleb(-MAX_DECIMALS)):f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text).replace(".", ",")


def format_field(value: Decimal) -> str:
    """A value as a field's text, for a link that fills another calculator: the Italian comma, no
    thousands separators, at most ``MAX_DECIMALS`` decimals (what the field accepts), never "0" for a
    positive value."""
    with localcontext() as ctx:
        ctx.prec = 80
        step = Decimal(1).scaleb(-MAX_DECIMALS)
        rounded = value.quantize(Decimal("0.01") if abs(value) >= 1 else step, rounding=ROUND_HALF_EVEN)
        if value > 0 and rounded == 0:
            rounded = step
        if abs(value) < 1 and rounded != 0:  # three significant digits, as results show
            rounded = rounded.quantize(Decimal(1).scaleb(max(rounded.adjusted() - 2, -MAX_DECIMALS)))
        text = f"{rounded:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace(".", ",")
