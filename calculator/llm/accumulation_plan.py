"""Reverse solving for gradient accumulation: from a target effective batch to a configuration."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal


@dataclass(frozen=True)
class Plan:
    """A configuration that reaches (or comes closest to) a target effective batch."""

    target: int
    gpus: int
    micro_batch: int
    accumulation_steps: int
    effective_batch: int
    fits: int  # the largest micro-batch the budget holds

    @property
    def exact(self) -> bool:
        return self.effective_batch == self.target

    @property
    def exact_micro_batch(self) -> int | None:
        """The largest micro-batch that reaches the target exactly (None when no configuration can)."""
        if self.target % self.gpus:
            return None
        return largest_divisor_at_most(self.target // self.gpus, self.fits)


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
    """The largest micro-batch that fits and the steps to reach at least ``target``.

    Requires ``activation <= budget`` (one sample fits): callers check it first.
    """
    fits = largest_micro_batch(budget, activation)
    per_gpu = -(-target // gpus)  # samples each GPU must contribute, rounded up
    micro = max(1, min(fits, per_gpu))
    steps = -(-target // (micro * gpus))
    return Plan(target, gpus, micro, steps, micro * steps * gpus, fits)


def plan_exact(target: int, budget: Decimal, gpus: int, activation: Decimal) -> Plan:
    """Exactly ``target``, with the largest micro-batch that fits and divides the target per GPU; where no
    configuration reaches it (``target`` not a multiple of ``gpus``), the largest micro-batch's plan."""
    largest = plan(target, budget, gpus, activation)
    micro = largest.exact_micro_batch
    if micro is None:
        return largest
    return Plan(target, gpus, micro, target // gpus // micro, target, largest.fits)

