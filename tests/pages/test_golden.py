"""Golden tables of every calculator, natively (the same run in Pyodide in test_pyodide_node)."""

from __future__ import annotations

from typing import Any

import pytest

from calculator import respond

from ..support.golden import ERRORS, RESULTS


def _id(case: tuple[Any, ...]) -> str:
    req = case[0]
    return req["calculator"]


@pytest.mark.parametrize(("req", "expected"), RESULTS, ids=[_id(c) for c in RESULTS])
def test_golden_results(req: dict[str, Any], expected: dict[str, str]) -> None:
    answer = respond(req)
    assert answer["status"] == "ok", answer
    results = answer["results"]
    assert isinstance(results, dict)
    assert {key: results[key] for key in expected} == expected
    assert answer["errors"] == {}


@pytest.mark.parametrize(("req", "field_id", "message"), ERRORS, ids=[_id(c) for c in ERRORS])
def test_golden_errors(req: dict[str, Any], field_id: str, message: str) -> None:
    answer = respond(req)
    assert answer["errors"] == {field_id: message}
    assert set(answer["results"].values()) - {""} == {"—"}  # type: ignore[union-attr]
    assert answer["status"] in {"invalid", "incomplete"}
