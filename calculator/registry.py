"""Every calculator of the site, by id."""

from __future__ import annotations

from . import gradient_accumulation, lora, vram
from .model import Calculator

CALCULATORS: dict[str, Calculator] = {
    calc.id: calc
    for calc in (gradient_accumulation.CALCULATOR, vram.CALCULATOR, lora.CALCULATOR)
}


def get(calculator_id: str) -> Calculator:
    """The calculator with this id; KeyError if there is none."""
    return CALCULATORS[calculator_id]
