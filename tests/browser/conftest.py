"""Markers of the browser tests: ``slow`` ones (minutes by design, a throttled network) are left out of the full
suite, which must stay under about 13 minutes on two cores, unless asked for: ``scripts/test -m slow`` runs them
alone, ``CALC_SLOW_TESTS=1 scripts/test`` with everything else."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a test that takes minutes by design (a throttled network)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("CALC_SLOW_TESTS") or "slow" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="slow by design: scripts/test -m slow, or CALC_SLOW_TESTS=1 scripts/test")
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(skip)
