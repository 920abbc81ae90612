"""A calculator's typed outputs, for tests that check numbers rather than the text the page shows.

``outputs("parametri-lora", rank="16")["trainable_parameters"] == 8_388_608``: the values are what
``compute`` returned (``Decimal`` for numbers, ``str`` for texts, ``None`` for a number that is not
finite), before any formatting, so a change of thousands separator or rounding leaves these tests alone.
Only the formatting tests and the golden table (tests/support/golden.py) compare display text.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from calculator import get
from calculator.form.evaluate import Evaluation, evaluate

Outputs = dict[str, Decimal | str | None]


def evaluation(calculator_id: str, values: Mapping[str, object] | None = None, /, **texts: object) -> Evaluation:
    """Evaluate a calculator on its defaults overridden by ``values`` and then ``texts``, natively."""
    calc = get(calculator_id)
    return evaluate(calc, {**calc.defaults, **(values or {}), **texts})


def outputs(calculator_id: str, values: Mapping[str, object] | None = None, /, **texts: object) -> Outputs:
    """The typed outputs (by result id) for these inputs over the defaults; the inputs must compute."""
    result = evaluation(calculator_id, values, **texts)
    assert result.status == "ok", (result.status, result.message, result.errors)
    return result.outputs


def output_number(calculator_id: str, result_id: str, values: Mapping[str, object] | None = None, /,
                  **texts: object) -> Decimal:
    """One result that must be a number: ``output_number("parametri-lora", "trainable_parameters") == 4_194_304``."""
    value = outputs(calculator_id, values, **texts)[result_id]
    assert isinstance(value, Decimal), (result_id, value)
    return value
