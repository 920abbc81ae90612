"""Run a calculator on what the user typed: validation, compute, formatting."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation, localcontext

from .model import Calculator, FieldError, Kind, Value, read_field

MESSAGE_EMPTY = "Inserisci un valore per visualizzare i risultati."
MESSAGE_INVALID = "Correggi i valori segnalati per aggiornare i risultati."
MESSAGE_FAILED = "Impossibile calcolare con questi valori: prova con numeri più piccoli."
FIELD_EMPTY = "Inserisci un valore."


@dataclass(frozen=True)
class Evaluation:
    """Everything the page shows for one set of inputs, as text."""

    status: str  # "ok" | "incomplete" | "invalid"
    message: str
    errors: dict[str, str] = field(default_factory=dict)
    results: dict[str, str] = field(default_factory=dict)
    values: dict[str, Value] = field(default_factory=dict)
    outputs: dict[str, Decimal | str | None] = field(default_factory=dict)
    chart: str = ""

    def as_dict(self) -> dict[str, object]:
        """The JSON-ready view: strings only."""
        return {
            "status": self.status,
            "message": self.message,
            "errors": self.errors,
            "results": self.results,
            "chart": self.chart,
        }


def as_text(raw: object) -> str:
    """What arrived for a field, as text; anything that is not text reads as empty."""
    if isinstance(raw, bool):
        return "on" if raw else ""
    if isinstance(raw, (int, float)):
        return str(raw)
    return raw if isinstance(raw, str) else ""


def evaluate(calc: Calculator, texts: Mapping[str, object]) -> Evaluation:
    """Validate every field, then compute and format the results."""
    values: dict[str, Value] = {}
    errors: dict[str, str] = {}
    mode = calc.mode(texts)
    for spec in calc.fields:
        if not spec.in_mode(mode):
            values[spec.id] = None
            continue
        try:
            # A choice left out of the request keeps its default: the page always sends one.
            missing = spec.default if spec.kind is Kind.CHOICE else ""
            values[spec.id] = read_field(spec, as_text(texts.get(spec.id, missing)))
        except FieldError as error:
            errors[spec.id] = str(error)
    if not errors and calc.check:
        errors = dict(calc.check(values))
    blank = {r.id: r.show(None) for r in calc.results}
    if errors:
        only_empty = all(message == FIELD_EMPTY for message in errors.values())
        status, message = ("incomplete", MESSAGE_EMPTY) if only_empty else ("invalid", MESSAGE_INVALID)
        return Evaluation(status, message, errors, blank, values)
    try:
        with localcontext() as ctx:
            ctx.prec = 60
            outputs = dict(calc.compute(values))
        finite = {k: (None if isinstance(v, Decimal) and not v.is_finite() else v) for k, v in outputs.items()}
        results = {r.id: r.show(finite.get(r.id), _unit(calc, r.unit_from, values)) for r in calc.results}
        chart = calc.chart(values, finite) if calc.chart else ""
    except (ArithmeticError, InvalidOperation, ValueError, OverflowError):
        return Evaluation("invalid", MESSAGE_FAILED, {}, blank, values)
    return Evaluation("ok", "", {}, results, values, finite, chart)



def _unit(calc: Calculator, choice_id: str, values: Mapping[str, Value]) -> str:
    """The label of the selected option of ``choice_id``: a unit chosen by the user."""
    if not choice_id:
        return ""
    for option in calc.field(choice_id).options:
        if option.value == values.get(choice_id):
            return option.label
    return ""
