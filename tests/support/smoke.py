"""One edit per calculator for the browser's smoke tests, derived from each calculator's own ``examples``: a new
calculator joins every such test by itself, and the expected text is Python's answer, computed natively."""

from __future__ import annotations

from dataclasses import dataclass

from calculator import CALCULATORS, respond
from calculator.form.model import Format, Kind


@dataclass(frozen=True)
class Edit:
    calculator: str
    values: dict[str, str]  # text fields to fill, in the default mode
    result: str
    expected: str


def smoke_edit(calculator_id: str) -> Edit:
    """The first named example that a reader can type (numbers only, in the default mode) and that changes a
    primary numeric result, with that result's expected text."""
    calc = CALCULATORS[calculator_id]
    mode = calc.mode(calc.defaults)
    before = respond({"calculator": calculator_id, "values": calc.defaults})["results"]
    for example in calc.examples.values():
        typed = all(key in calc.defaults and calc.field(key).kind in (Kind.INTEGER, Kind.DECIMAL)
                    and calc.field(key).in_mode(mode) for key in example)
        if not example or not typed:
            continue
        after = respond({"calculator": calculator_id, "values": {**calc.defaults, **example}})
        if after["status"] != "ok":
            continue
        for result in calc.results:
            if result.primary and result.in_mode(mode) and result.format not in (Format.TEXT, Format.CODE) \
                    and after["results"][result.id] != before[result.id]:  # type: ignore[index]
                return Edit(calculator_id, dict(example), result.id, str(after["results"][result.id]))  # type: ignore[index]
    raise LookupError(f"{calculator_id}: no example a reader can type changes a primary result")


EDITS = {calculator_id: smoke_edit(calculator_id) for calculator_id in CALCULATORS}
