"""Run a calculator on what the user typed: validation, compute, formatting."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation, localcontext
from functools import lru_cache
from urllib.parse import quote_plus

from .model import Calculator, ComputeError, Feed, FieldError, Kind, Problem, Value, read_field
from .numbers import ParseError, ambiguous_reading, format_exact_field, format_field, format_grouped, parse_number

MESSAGE_EMPTY = "Inserisci un valore per visualizzare i risultati."
MESSAGE_INVALID = "Correggi i valori segnalati per aggiornare i risultati."
MESSAGE_FAILED = "Impossibile calcolare con questi valori: prova con numeri più piccoli."


@dataclass(frozen=True)
class Evaluation:
    """Everything the page shows for one set of inputs, as text.

    ``problems`` gives each field error's kind (a ``Problem`` value), ``mode``
    the mode that applies, ``units`` the unit each field with a chosen unit shows,
    ``notes`` how a field's ambiguous text was read (shown next to the field, error or not), ``rewrites``
    the new text of each field converted because the reader changed its unit (the page puts it in the field).
    """

    status: str  # "ok" | "incomplete" | "invalid"
    message: str
    errors: dict[str, str] = field(default_factory=dict)
    results: dict[str, str] = field(default_factory=dict)
    values: dict[str, Value] = field(default_factory=dict)
    outputs: dict[str, Decimal | str | None] = field(default_factory=dict)
    chart: str = ""
    problems: dict[str, str] = field(default_factory=dict)
    mode: str = ""
    units: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)  # feed id → query string for the sibling
    notes: dict[str, str] = field(default_factory=dict)  # field id → how its ambiguous text was read
    rewrites: dict[str, str] = field(default_factory=dict)  # field id → its value converted to a new unit
    absent: list[str] = field(default_factory=list)  # fields hidden for these values (``Calculator.absent``)

    def as_dict(self) -> dict[str, object]:
        """The JSON-ready view: strings only."""
        return {
            "status": self.status,
            "message": self.message,
            "errors": self.errors,
            "problems": self.problems,
            "results": self.results,
            "chart": self.chart,
            "mode": self.mode,
            "units": self.units,
            "links": self.links,
            "notes": self.notes,
            "rewrites": self.rewrites,
            "absent": self.absent,
        }


def as_text(raw: object) -> str:
    """What arrived for a field, as text; anything that is not text reads as empty."""
    if isinstance(raw, bool):
        return "on" if raw else ""
    if isinstance(raw, (int, float)):
        return str(raw)
    return raw if isinstance(raw, str) else ""


def evaluate(calc: Calculator, texts: Mapping[str, object], before: Mapping[str, object] | None = None) -> Evaluation:
    """Validate every field, then compute and format the results. ``before``: the texts of the previous request
    after an edit, so that a value whose unit the reader changed is converted, not read again in the new unit."""
    rewrites = conversions(calc, texts, before or {})
    evaluation = _evaluate(calc, {**texts, **rewrites})
    if calc.absent:  # from the values read so far (a field in error is left out of them)
        evaluation = replace(evaluation, absent=sorted(set(calc.absent(evaluation.values))))
    return replace(evaluation, rewrites=rewrites) if rewrites else evaluation


def conversions(calc: Calculator, texts: Mapping[str, object], before: Mapping[str, object]) -> dict[str, str]:
    """The new text of each field measured in a unit the reader just changed (its option and the previous one
    have a ``scale``), when its own text did not change with it: "0,5" GB becomes "500" MB."""
    rewrites = {}
    for choice in calc.fields:
        if choice.kind is not Kind.CHOICE or choice.id not in before:
            continue
        scales = {option.value: option.scale for option in choice.options}
        old, new = scales.get(as_text(before[choice.id])), scales.get(as_text(texts.get(choice.id)))
        if old is None or new is None or old == new:
            continue
        for spec in calc.fields:
            text = as_text(texts.get(spec.id, ""))
            if spec.unit_from != choice.id or text != as_text(before.get(spec.id)):
                continue
            try:
                value = parse_number(text)
            except ParseError:
                continue  # a text that is not a number stays as typed
            rewrites[spec.id] = converted(value * old / new)
    return rewrites


def converted(value: Decimal) -> str:
    """A converted value as a field's text: six significant digits (within the decimals a field accepts)."""
    with localcontext() as ctx:
        ctx.prec = 6
        rounded = +value
    return format_exact_field(rounded)


def _evaluate(calc: Calculator, texts: Mapping[str, object]) -> Evaluation:
    values: dict[str, Value] = {}
    failures: dict[str, FieldError] = {}
    mode = calc.mode(texts)
    for spec in calc.fields:
        if not spec.in_mode(mode):
            values[spec.id] = None
            continue
        if spec.id == calc.mode_field:
            values[spec.id] = mode  # an unknown mode is the first one, never an error
            continue
        try:
            # A choice left out of the request keeps its default: the page always sends one.
            missing = spec.default if spec.kind is Kind.CHOICE else ""
            values[spec.id] = read_field(spec, as_text(texts.get(spec.id, missing)))
        except FieldError as error:
            failures[spec.id] = error
    if not failures and calc.check:
        failures = {key: FieldError(Problem.INCONSISTENT, message) for key, message in calc.check(values).items()}
    units = field_units(calc, values)
    notes = field_notes(calc, texts, mode, units)
    blank = {r.id: r.show(None) for r in calc.results}
    if failures:
        errors = {key: error.message for key, error in failures.items()}
        problems = {key: error.problem.value for key, error in failures.items()}
        only_empty = all(error.problem is Problem.EMPTY for error in failures.values())
        status, message = ("incomplete", MESSAGE_EMPTY) if only_empty else ("invalid", MESSAGE_INVALID)
        return Evaluation(status, message, errors, blank, values, problems=problems, mode=mode, units=units,
                          notes=notes)
    try:
        with localcontext() as ctx:
            ctx.prec = 60
            outputs = dict(calc.compute(values))
            finite = {k: (None if isinstance(v, Decimal) and not v.is_finite() else v) for k, v in outputs.items()}
            results = {r.id: r.show(finite.get(r.id), _label(calc, r.unit_from, values)) for r in calc.results}
            chart = calc.chart(values, finite) if calc.chart else ""
    except (ArithmeticError, InvalidOperation, ValueError, OverflowError, ComputeError):
        return Evaluation("invalid", MESSAGE_FAILED, {}, blank, values, mode=mode, units=units, notes=notes)
    queries = {feed.id: _link(calc, feed, values, finite) for feed in calc.feeds}
    links = {key: query for key, query in queries.items() if query is not None}
    return Evaluation("ok", "", {}, results, values, finite, chart, mode=mode, units=units, links=links, notes=notes)


def field_notes(calc: Calculator, texts: Mapping[str, object], mode: str, units: Mapping[str, str]) -> dict[str, str]:
    """An echo with a question for each numeric field of the mode whose text the conventions read differently
    ("1.235" in a decimal field is 1 235; "1,000" in an integer field is 1)."""
    notes = {}
    for spec in calc.fields:
        if not spec.numeric or not spec.in_mode(mode):
            continue
        integer = spec.kind is Kind.INTEGER
        reading = ambiguous_reading(as_text(texts.get(spec.id, "")), integer)
        if reading is None:
            continue
        unit = units.get(spec.id, "") if spec.unit_from else spec.unit
        taken, other = (format_grouped(v) + (f" {unit}" if unit and abs(v) != 1 else "")
                        for v in (reading.taken, reading.other))
        written = format_exact_field(reading.other)
        fix = f"la virgola: {written}" if "," in written else f"{written}, senza separatori"
        notes[spec.id] = f"Letto come {taken}. Intendevi {other}? Allora scrivi {fix}."
    return notes


def _link(calc: Calculator, feed: Feed, values: Mapping[str, Value],
          outputs: Mapping[str, Decimal | str | None]) -> str | None:
    """A link's query, with the fields the sibling shares with this calculator (``family.carried``)."""
    key = (id(calc), id(feed))  # both live as long as the registry: what a feed carries is worked out once
    if key not in _CARRIED:
        from .family import carried  # the registry it reads imports every page, which import this module

        _CARRIED[key] = carried(calc, feed)
    sources, optional = _CARRIED[key]
    return feed_query(sources, feed.fixed, values, outputs, optional)


_CARRIED: dict[tuple[int, int], tuple[dict[str, str], tuple[str, ...]]] = {}


@lru_cache(maxsize=4096)
def _quoted(text: str) -> str:
    """``quote_plus``, remembered: an edit changes one or two of the many values a link carries."""
    return quote_plus(text)


def feed_query(sources: Mapping[str, str], fixed: Mapping[str, str], values: Mapping[str, Value],
               outputs: Mapping[str, Decimal | str | None], optional: tuple[str, ...] = ()) -> str | None:
    """The address query that fills a sibling's fields with these results and inputs; None when one of
    them has no value (an optional field left empty), so that no link promises what it cannot carry. Targets in
    ``optional`` are left out of the query instead (the sibling keeps its own value)."""
    texts = dict(fixed)
    for target, source in sources.items():
        value = outputs[source] if source in outputs else values.get(source)
        if value is None and target in optional:
            continue
        if value is None:
            return None
        if isinstance(value, bool):
            texts[target] = "on" if value else ""
        elif isinstance(value, Decimal):
            texts[target] = format_field(value)
        elif isinstance(value, str):
            texts[target] = value
    return "?" + "&".join(f"{_quoted(key)}={_quoted(text)}" for key, text in texts.items())  # urlencode's form


def field_units(calc: Calculator, values: Mapping[str, Value]) -> dict[str, str]:
    """The unit shown beside each field whose unit is chosen in another field."""
    return {spec.id: _label(calc, spec.unit_from, values) for spec in calc.fields if spec.unit_from}


def _label(calc: Calculator, choice_id: str, values: Mapping[str, Value]) -> str:
    """The label of the selected option of ``choice_id`` (its default if none is valid)."""
    if not choice_id:
        return ""
    choice = calc.field(choice_id)
    selected = values.get(choice_id) or choice.default
    for option in choice.options:
        if option.value == selected:
            return option.label
    return ""
