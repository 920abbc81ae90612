"""The declarative model: a calculator is fields, results and a pure function."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum

from .numbers import ParseError, ParseProblem, format_decimal, format_integer, parse_number, scale_memory


class Kind(Enum):
    """What a field holds, which decides how its text is read."""

    INTEGER = "integer"
    DECIMAL = "decimal"
    CHOICE = "choice"
    FLAG = "flag"


@dataclass(frozen=True)
class Option:
    """One entry of a choice field; a unit's option carries its ``scale`` (its size in a common unit), and a field
    measured in that unit converts its value when the reader changes the unit (``evaluate.conversions``)."""

    value: str
    label: str
    scale: Decimal | None = None


@dataclass(frozen=True)
class Field:
    """One input: its id, Italian label, unit, default, bounds and help text.

    ``minimum`` is inclusive unless ``exclusive_minimum`` is set. ``optional``
    fields may be left empty; the compute function then gets ``None``.
    ``modes`` lists the calculator modes that use the field (empty: all);
    ``unit_from`` names a choice field whose selected label is this field's unit.
    """

    id: str
    label: str
    default: str
    help: str
    kind: Kind = Kind.INTEGER
    unit: str = ""
    group: str = ""
    minimum: Decimal = Decimal(1)
    maximum: Decimal = Decimal(1_000_000)
    exclusive_minimum: bool = False
    optional: bool = False
    options: tuple[Option, ...] = ()
    example: str = ""
    modes: tuple[str, ...] = ()
    unit_from: str = ""

    def in_mode(self, mode: str) -> bool:
        return not self.modes or mode in self.modes

    @property
    def numeric(self) -> bool:
        return self.kind in (Kind.INTEGER, Kind.DECIMAL)


Value = Decimal | str | bool | None


class Problem(Enum):
    """What is wrong with a field's value: data for the page and the tests, not only a message."""

    EMPTY = "empty"
    TOO_LONG = "too_long"
    NOT_A_NUMBER = "not_a_number"
    BAD_GROUPING = "bad_grouping"
    TOO_MANY_DECIMALS = "too_many_decimals"
    NOT_PLAIN_DIGITS = "not_plain_digits"
    NOT_AN_INTEGER = "not_an_integer"
    TOO_SMALL = "too_small"
    TOO_LARGE = "too_large"
    NOT_AN_OPTION = "not_an_option"
    INCONSISTENT = "inconsistent"  # fine alone, impossible with the other fields


class FieldError(ValueError):
    """A value the field does not accept: its kind, and the Italian message to show beside it."""

    def __init__(self, problem: Problem, message: str) -> None:
        super().__init__(message)
        self.problem = problem
        self.message = message


# What a checked box sends, and every text that reads as "yes" (in the address, say). The renderer
# writes this list on each checkbox, so that the page script applies the same rule.
FLAG_ON = "on"
FLAG_TRUE_TEXTS = ("1", "true", "on", "si", "sì", "yes")


def flag_value(text: str) -> bool:
    """Whether a checkbox's text means checked."""
    return text.strip().lower() in FLAG_TRUE_TEXTS


def _show(value: Decimal) -> str:
    return format_decimal(value)


def read_field(spec: Field, text: str) -> Value:
    """Turn what the user typed into a value, or raise FieldError in Italian."""
    if spec.kind is Kind.FLAG:
        return flag_value(text)
    if spec.kind is Kind.CHOICE:
        for option in spec.options:
            if text == option.value:
                return option.value
        raise FieldError(Problem.NOT_AN_OPTION, f"{spec.label}: scegli una delle opzioni dell'elenco.")
    example = spec.example or spec.default
    try:
        number = parse_number(text)
    except ParseError as error:
        if error.problem is ParseProblem.EMPTY:
            if spec.optional:
                return None
            raise FieldError(Problem.EMPTY, "Inserisci un valore.") from None
        problem = Problem(error.problem.value)
        raise FieldError(problem, _PARSE_MESSAGES[problem].format(label=spec.label, example=example)) from None
    if spec.kind is Kind.INTEGER and number != number.to_integral_value():
        raise FieldError(Problem.NOT_AN_INTEGER, f"{spec.label}: deve essere un numero intero, per esempio {example}.")
    if spec.exclusive_minimum and number <= spec.minimum:
        raise FieldError(Problem.TOO_SMALL, f"{spec.label}: deve essere maggiore di {_show(spec.minimum)}.")
    if not spec.exclusive_minimum and number < spec.minimum:
        raise FieldError(Problem.TOO_SMALL, f"{spec.label}: deve essere almeno {_show(spec.minimum)}.")
    if number > spec.maximum:
        raise FieldError(Problem.TOO_LARGE, f"{spec.label}: deve essere al massimo {_show(spec.maximum)}.")
    return number


_PARSE_MESSAGES = {
    Problem.TOO_LONG: "{label}: il valore è troppo lungo.",
    Problem.NOT_A_NUMBER: "{label}: scrivi un numero, per esempio {example}.",
    Problem.BAD_GROUPING: (
        "{label}: numero non valido; per le migliaia usa gruppi di tre cifre"
        " (1.000) e per i decimali la virgola (0,5)."
    ),
    Problem.TOO_MANY_DECIMALS: "{label}: usa al massimo 6 cifre decimali.",
    Problem.NOT_PLAIN_DIGITS: ("{label}: usa le cifre da 0 a 9 (apici, pedici, cifre cerchiate o di altri alfabeti non"
                               " sono letti), per esempio {example}."),
}


def number(values: Mapping[str, Value], key: str) -> Decimal:
    """A numeric field's validated value; ``ComputeError`` if it is not one (a declaration bug)."""
    value = values.get(key)
    if not isinstance(value, Decimal):
        raise ComputeError(f"{key} is not a number")
    return value


def optional_number(values: Mapping[str, Value], key: str) -> Decimal | None:
    """An optional (or other-mode) numeric field's value, None when it has none."""
    value = values.get(key)
    return value if isinstance(value, Decimal) else None


def integer(values: Mapping[str, Value], key: str) -> int:
    """An integer field's validated value."""
    return int(number(values, key))


class ComputeError(Exception):
    """A compute function got what its declaration rules out: answered as a failure, never raised."""


BLANK = "—"  # a result that has no value


class Tone(Enum):
    """How a verdict reads at a glance: its colour and icon, beside the words that say it."""

    GOOD = "good"
    WARN = "warn"
    BAD = "bad"


class Format(Enum):
    """How a result is shown."""

    COUNT = "count"
    NUMBER = "number"
    PERCENT = "percent"
    TEXT = "text"  # a sentence, shown as it is
    CODE = "code"  # a configuration snippet, shown preformatted with a copy button


@dataclass(frozen=True)
class Result:
    """One output: id, Italian label, unit and how its value reads."""

    id: str
    label: str
    unit: str = ""
    format: Format = Format.NUMBER
    help: str = ""
    primary: bool = True  # shown large; secondary results are a smaller breakdown
    modes: tuple[str, ...] = ()
    unit_from: str = ""

    def in_mode(self, mode: str) -> bool:
        return not self.modes or mode in self.modes

    def show(self, value: Decimal | str | None, unit: str = "") -> str:
        """The value as the page shows it, with its unit."""
        if value is None:
            return "" if self.format in (Format.TEXT, Format.CODE) else BLANK
        if isinstance(value, str):
            return value
        unit = unit or self.unit
        if self.format is Format.NUMBER:  # one policy for memory: 1 880 MB read 1,88 GB, 0,0168 GB read 16,8 MB
            value, unit = scale_memory(value, unit)
        if self.format is Format.COUNT:
            text = format_integer(int(value))
        elif self.format is Format.PERCENT:
            text = format_decimal(value) + " %"
        else:
            text = format_decimal(value)
        return f"{text} {unit}" if unit else text


Values = Mapping[str, Value]
Outputs = Mapping[str, Decimal | str | None]


@dataclass(frozen=True)
class Preset:
    """A named set of field values that fills the form in one click; presets of one ``group`` share a row,
    shown in the ``modes`` of its first preset (empty: all)."""

    id: str
    label: str
    values: Mapping[str, str]
    group: str = "Compila con un modello:"
    modes: tuple[str, ...] = ()
    note: str = ""  # a second, smaller line of the button (a GPU's memory in both units)
    section: str = ""  # a long row is shown in sections (a model's family), with a filter box
    preferred: bool = False  # pressed when other buttons of its row hold the same texts (the default GPU, not its twin)


@dataclass(frozen=True)
class Pasted:
    """What a pasted document fills: field texts (the calculator keeps those it has), notes for the reader, or an
    error message when nothing could be read."""

    fields: Mapping[str, str]
    notes: tuple[str, ...] = ()
    error: str = ""


@dataclass(frozen=True)
class Feed:
    """A link from this calculator's results to a sibling that takes them as inputs.

    ``values`` maps each field of the sibling to a result or field of this calculator; ``fixed``
    gives fields a constant text (a unit, a mode). The link is written for each answer, and hidden when a value
    is missing, but for the fields in ``optional``, which are then left to the sibling.
    """

    id: str
    target: str
    label: str
    values: Mapping[str, str]
    fixed: Mapping[str, str] = field(default_factory=dict)
    optional: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    """A table an article shows, computed from the data it restates (``[[tabella <calculator> <name>]]``):
    header cells, rows of cells, and which columns hold numbers (aligned right)."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...] = ()


@dataclass(frozen=True)
class Calculator:
    """A calculator: declared fields and results plus a pure compute function.

    ``compute`` gets every field's value already validated and returns one
    Decimal (or None, for a result that does not apply) per result id.
    ``examples`` are named partial inputs used by the article's prose; ``tables`` build the article's tables
    from the data they restate, ``figures`` its charts (``[[grafico <calculator> <name>]]``).
    ``check`` optionally validates fields against each other, returning a
    message per field id. ``chart`` optionally draws an SVG of the outputs.
    A module of the ``calculator`` package that defines ``CALCULATOR`` is on
    the site: the registry finds it.
    """

    id: str
    title: str
    summary: str
    fields: tuple[Field, ...]
    results: tuple[Result, ...]
    compute: Callable[[Values], Outputs]
    examples: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    presets: tuple[Preset, ...] = ()
    check: Callable[[Values], Mapping[str, str]] | None = None
    chart: Callable[[Values, Outputs], str] | None = None
    mode_field: str = ""  # a choice field whose value selects which fields and results apply
    order: int = 100  # place among the site's calculators (home cards, "Da provare dopo"); then by id
    feeds: tuple[Feed, ...] = ()  # links that open a sibling with this calculator's results filled in
    tables: Mapping[str, Callable[[], Table]] = field(default_factory=dict)  # the article's generated tables
    figures: Mapping[str, Callable[[], str]] = field(default_factory=dict)  # the article's generated charts (SVG)
    chart_after: str = ""  # a result id: the chart sits in the results column after it, in view while editing
    glance: tuple[str, ...] = ()  # the headline results and the verdict: a bar kept in view, the only ones announced
    tones: Callable[[Outputs], Mapping[str, str]] | None = None  # result id → a Tone's value (the verdict's colour)
    fold: tuple[str, ...] = ()  # groups shown collapsed while a preset's values fill them (the model's shape)
    layout: tuple[tuple[str, tuple[str, ...]], ...] = ()  # groups shown first, their listed fields leading
    paste: Callable[[str], Pasted] | None = None  # reads a pasted document (a model's config.json) into fields
    # Fields these values have no use for (a LoRA target the model lacks): hidden, as another mode's fields are,
    # but chosen for each answer by Python from every value, not by one choice field.
    absent: Callable[[Values], Collection[str]] | None = None
    # The defaults are one preset's values (the page opens with it pressed and its groups folded), unless this says
    # why they are not (an article's example that no preset is): a test holds every calculator to one or the other.
    unlike_presets: str = ""

    def mode(self, values: Mapping[str, object]) -> str:
        """The current mode ('' for calculators without modes)."""
        if not self.mode_field:
            return ""
        value = values.get(self.mode_field)
        options = [o.value for o in self.field(self.mode_field).options]
        return value if isinstance(value, str) and value in options else options[0]

    @property
    def defaults(self) -> dict[str, str]:
        return {f.id: f.default for f in self.fields}

    def field(self, field_id: str) -> Field:
        for spec in self.fields:
            if spec.id == field_id:
                return spec
        raise KeyError(field_id)

    def result(self, result_id: str) -> Result:
        for spec in self.results:
            if spec.id == result_id:
                return spec
        raise KeyError(result_id)

    def groups(self) -> list[tuple[str, list[Field]]]:
        """Fields grouped by use: the ``layout`` first (its listed fields leading their group), then the rest in
        declaration order, the folded groups last."""
        grouped: dict[str, list[Field]] = {}
        placed = {key for _, keys in self.layout for key in keys}
        for group, keys in self.layout:
            grouped.setdefault(group, []).extend(self.field(key) for key in keys)
        for spec in self.fields:
            if spec.id not in placed:
                grouped.setdefault(self.group_of(spec), []).append(spec)
        return sorted(grouped.items(), key=lambda item: item[0] in self.fold)

    def group_of(self, spec: Field) -> str:
        """The group a field is shown in (its own, unless the layout moves it)."""
        return next((group for group, keys in self.layout if spec.id in keys), spec.group)
