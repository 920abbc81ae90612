"""A throw-away calculator for the framework's tests, declared here and registered only for the test that asks,
so that no framework test depends on a real page's fields or defaults."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import pytest

from calculator.form.model import Calculator, Field, Kind, Option, Outputs, Result, Values, number
from calculator.form.registry import _Registry

TOY_ID = "giocattolo"


def _compute(values: Values) -> Outputs:
    n, size = number(values, "n"), number(values, "size")
    factor = 2 if values["double"] is True else 1
    return {"total": n * size * factor, "per_item": size if values["mode"] == "dettaglio" else None}


def _check(values: Values) -> dict[str, str]:
    return {"parts": "Parti: devono dividere esattamente N."} if number(values, "n") % number(values, "parts") else {}


TOY = Calculator(
    id=TOY_ID, title="Calcolatore giocattolo", summary="Per i test del framework.", mode_field="mode",
    fields=(
        Field(id="mode", label="Modo", default="semplice", kind=Kind.CHOICE,
              options=(Option("semplice", "Semplice"), Option("dettaglio", "Con dettaglio")), help="Modo."),
        Field(id="n", label="N", default="4", help="Quanti."),
        Field(id="parts", label="Parti", default="2", help="In quante parti."),
        Field(id="size", label="Dimensione", default="0,5", kind=Kind.DECIMAL, unit="GB", unit_from="unit",
              minimum=Decimal(0), exclusive_minimum=True, help="Di ciascuno."),
        Field(id="unit", label="Unità", default="GB", kind=Kind.CHOICE,
              options=(Option("MB", "MB"), Option("GB", "GB"), Option("GiB", "GiB")), help="Unità."),
        Field(id="note", label="Nota", default="", kind=Kind.DECIMAL, optional=True, help="Facoltativo.",
              modes=("dettaglio",)),
        Field(id="double", label="Doppio", default="", kind=Kind.FLAG, help="Raddoppia."),
    ),
    results=(Result("total", "Totale", "GB", unit_from="unit"),
             Result("per_item", "Per elemento", "GB", unit_from="unit", modes=("dettaglio",))),
    compute=_compute, check=_check,
)


@contextmanager
def registered(monkeypatch: pytest.MonkeyPatch, *calculators: Calculator) -> Iterator[None]:
    """The API answers for these calculators only, for the duration of the block."""
    registry = _Registry()
    registry._found = {calc.id: calc for calc in calculators}
    monkeypatch.setattr("calculator.form.api.CALCULATORS", registry)
    yield
