"""Markers of the browser tests."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a test that takes minutes by design (a throttled network); "
                                       "scripts/test runs it, scripts/test -m 'not slow' leaves it out")
