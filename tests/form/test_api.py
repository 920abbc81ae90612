"""The JSON entry point: strings in, strings out, never an exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculator import handle
from calculator.form.api import MESSAGE_BAD_REQUEST

from ..support.toy import TOY, TOY_ID, registered

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@given(st.text(max_size=200))
def test_any_text_gets_a_json_answer(text: str) -> None:
    answer = json.loads(handle(text))
    assert answer["status"] in {"ok", "incomplete", "invalid", "error"}


@given(json_values)
def test_any_json_gets_an_answer(value: object) -> None:
    answer = json.loads(handle(json.dumps(value)))
    assert answer["status"] in {"ok", "incomplete", "invalid", "error"}


@given(st.dictionaries(st.sampled_from([*TOY.defaults, "x"]) | st.text(max_size=10), json_values, max_size=6))
def test_any_values_get_an_answer(values: dict[str, object]) -> None:
    with pytest.MonkeyPatch.context() as patch, registered(patch, TOY):
        answer = json.loads(handle(json.dumps({"calculator": TOY_ID, "values": values})))
    assert answer["status"] in {"ok", "incomplete", "invalid"}
    assert {"total", "per_item"} <= set(answer["results"])


@pytest.mark.parametrize("request_text", ["", "{", "[]", '{"calculator": "nessuno"}', '"x"', "null"])
def test_bad_requests_say_so_in_italian(request_text: str) -> None:
    answer = json.loads(handle(request_text))
    assert answer["status"] == "error"
    assert answer["message"] == MESSAGE_BAD_REQUEST


def test_numbers_as_json_numbers_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    values = {**TOY.defaults, "n": 4, "size": 0.5}
    with registered(monkeypatch, TOY):
        answer = json.loads(handle(json.dumps({"calculator": TOY_ID, "values": values})))
    assert answer["results"]["total"] == "2 GB"
