"""What a link to a sibling carries: the values its feed declares and every field the sibling shares with this
calculator by name (the model's shape, the sequence, the micro-batch, the GPUs…), so that it opens on the same setup.

A shared field is left out when its unit is chosen in another field (its number means nothing without it), when
the two fields differ in kind, and, for lists, when the sibling lacks one of this one's options; it is optional
(an empty one is left to the sibling)."""

from __future__ import annotations

from collections.abc import Mapping

from .model import Calculator, Feed, Field, Kind
from .registry import CALCULATORS


def carried(calc: Calculator, feed: Feed) -> tuple[dict[str, str], tuple[str, ...]]:
    """The feed's values (sibling field → this calculator's field or result) with the shared fields added, and the
    sibling fields that may be left out."""
    target = CALCULATORS.get(feed.target)
    if target is None:
        return dict(feed.values), feed.optional
    theirs = {spec.id: spec for spec in target.fields}
    shared = [spec.id for spec in calc.fields if spec.id in theirs and spec.id not in feed.values
              and spec.id not in feed.fixed and _same(spec, theirs[spec.id], (calc.mode_field, target.mode_field))]
    return {**{key: key for key in shared}, **feed.values}, (*feed.optional, *shared)


def _same(mine: Field, theirs: Field, modes: tuple[str, str]) -> bool:
    if mine.id in modes or mine.kind is not theirs.kind or mine.unit_from or theirs.unit_from:
        return False
    return mine.kind is not Kind.CHOICE or {o.value for o in mine.options} <= {o.value for o in theirs.options}


def shared_fields(calc: Calculator, feed: Feed) -> Mapping[str, str]:
    """Only the fields carried because the sibling shares them (for the tests and the page's note)."""
    values, _ = carried(calc, feed)
    return {key: source for key, source in values.items() if key not in feed.values}
