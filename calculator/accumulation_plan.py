"""Reverse solving for gradient accumulation: from a target effective batch to a configuration."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal

from .numbers import format_integer


@dataclass(frozen=True)
class Plan:
    """A configuration that reaches (or comes closest to) a target effective batch."""

    micro_batch: int
    accumulation_steps: int
    effective_batch: int
    note: str

    @property
    def exact(self) -> bool:
        return self.note == ""


def largest_micro_batch(budget: Decimal, activation: Decimal) -> int:
    """How many samples fit in the activation budget of one GPU."""
    return int((budget / activation).to_integral_value(rounding=ROUND_FLOOR))


def largest_divisor_at_most(n: int, limit: int) -> int:
    """The largest divisor of ``n`` that is not above ``limit`` (1 at least)."""
    best = 1
    d = 1
    while d * d <= n:
        if n % d == 0:
            for candidate in (d, n // d):
                if best < candidate <= limit:
                    best = candidate
        d += 1
    return best


def plan(target: int, budget: Decimal, gpus: int, activation: Decimal) -> Plan:
    """The largest micro-batch that fits, the steps to reach at least ``target``, and advice if not exact.

    Requires ``activation <= budget`` (one sample fits): callers check it first.
    """
    fits = largest_micro_batch(budget, activation)
    per_gpu = -(-target // gpus)  # samples each GPU must contribute, rounded up
    micro = max(1, min(fits, per_gpu))
    steps = -(-target // (micro * gpus))
    reached = micro * steps * gpus
    if reached == target:
        return Plan(micro, steps, reached, "")
    return Plan(micro, steps, reached, _advice(target, micro, steps, gpus, fits))


def _advice(target: int, micro: int, steps: int, gpus: int, fits: int) -> str:
    n = format_integer
    step = micro * gpus
    sentences = []
    if target % gpus:
        sentences.append(
            f"Con {n(gpus)} GPU il batch effettivo è sempre un multiplo di {n(gpus)}:"
            f" {n(target)} non si può raggiungere esattamente."
        )
    else:
        sentences.append(
            f"Con un micro-batch di {n(micro)} su {n(gpus)} GPU il batch effettivo cresce a passi di {n(step)}:"
            f" {n(target)} non è un multiplo di {n(step)}."
        )
    below = step * (steps - 1)
    options = f"{n(below)} con {n(steps - 1)} passi" if below >= step else ""
    above = f"{n(step * steps)} con {n(steps)} passi"
    sentences.append(
        f"Le opzioni più vicine sono {options} (sotto) e {above} (sopra)." if options
        else f"L'opzione più vicina è {above} (sopra)."
    )
    if target % gpus == 0:
        exact = largest_divisor_at_most(target // gpus, fits)
        sentences.append(
            f"Per raggiungere esattamente {n(target)} usa un micro-batch di {n(exact)}"
            f" con {n(target // gpus // exact)} passi di accumulo."
        )
    return " ".join(sentences)
