"""Every calculator of the site, by id: each module of the ``calculator`` package, at any depth, that defines
``CALCULATOR``."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping

from .model import Calculator


def discover() -> dict[str, Calculator]:
    """The package's calculators, in their declared order (then by id)."""
    root = (__package__ or "calculator.form").rpartition(".")[0]
    package = importlib.import_module(root)
    found = []
    for module in pkgutil.walk_packages(package.__path__, prefix=f"{root}."):
        calc = getattr(importlib.import_module(module.name), "CALCULATOR", None)
        if isinstance(calc, Calculator):
            found.append(calc)
    return {calc.id: calc for calc in sorted(found, key=lambda c: (c.order, c.id))}


class _Registry(Mapping[str, Calculator]):
    """Discovered on first use, once every module of the package can be imported."""

    def __init__(self) -> None:
        self._found: dict[str, Calculator] | None = None

    def _all(self) -> dict[str, Calculator]:
        if self._found is None:
            self._found = discover()
        return self._found

    def __getitem__(self, calculator_id: str) -> Calculator:
        return self._all()[calculator_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


CALCULATORS: Mapping[str, Calculator] = _Registry()


def get(calculator_id: str) -> Calculator:
    """The calculator with this id; KeyError if there is none."""
    return CALCULATORS[calculator_id]
