"""The links between siblings, declared in Python: what each carries, in the units the sibling asks for."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

import pytest

from calculator import CALCULATORS, respond

ACC, VRAM, LORA = "accumulo-del-gradiente", "vram-addestramento-llm", "parametri-lora"


def answer(calculator_id: str, values: dict[str, str]) -> dict[str, Any]:
    """Python's answer for these values over the calculator's defaults (which must compute)."""
    result = respond({"calculator": calculator_id, "values": {**CALCULATORS[calculator_id].defaults, **values}})
    assert result["status"] == "ok", result["errors"]
    return result


# Inputs with which every link of a calculator can be offered (the VRAM page needs A for its plan).
FEED_INPUTS = {VRAM: {"parameters_billion": "1", "activation_per_sample_gb": "0,5"}}


def test_every_feed_fills_fields_its_target_has() -> None:
    for calc in CALCULATORS.values():
        links = answer(calc.id, FEED_INPUTS.get(calc.id, {}))["links"]
        for feed in calc.feeds:
            target = CALCULATORS[feed.target]
            assert set(feed.values) | set(feed.fixed) <= {f.id for f in target.fields}, (calc.id, feed.id)
            query = parse_qs(links[feed.id][1:])  # type: ignore[index]
            absent = {t for t in feed.optional if t not in query}  # optional and empty here: left to the sibling
            expected = (set(feed.values) - absent) | {k for k, v in feed.fixed.items() if v}
            assert set(query) == expected, (calc.id, feed.id)
            # What the link carries is accepted by the sibling as it is.
            assert answer(feed.target, {k: v[0] for k, v in query.items()})["status"] == "ok"


@pytest.mark.parametrize(("unit", "a", "gb"), [("GB", "0,5", "16"), ("MB", "500", "16"), ("GiB", "0,5", "17,18")])
def test_accumulation_gives_the_vram_page_gigabytes(unit: str, a: str, gb: str) -> None:
    """M = b·A in the unit chosen, converted to the GB the VRAM page asks for (1 GiB = 1,073741824 GB)."""
    result = answer(ACC, {"activation_unit": unit, "activation_per_sample_gb": a, "micro_batch": "32",
                          "data_parallel_gpus": "4"})
    query = parse_qs(result["links"]["vram"][1:])  # type: ignore[index]
    assert query == {"activation_gb": [gb], "gpus": ["4"]}


def test_a_link_that_cannot_carry_its_value_is_not_offered() -> None:
    assert "vram" not in answer(LORA, {"total_parameters_billion": ""})["links"]  # type: ignore[operator]
    carried = parse_qs(answer(LORA, {})["links"]["vram"][1:])  # type: ignore[index]
    # Issue 21: the LoRA page opens the VRAM page's step convention with its method, rank, targets, exact count and
    # the model's shape.
    assert {k: v[0] for k, v in carried.items() if k in ("parameters_billion", "convention", "method", "rank",
                                                          "lora_trainable", "lora_targets", "layers")} == {
        "parameters_billion": "6,74", "convention": "passo", "method": "lora", "rank": "8",
        "lora_trainable": "4194304", "lora_targets": "qv", "layers": "32"}
    assert parse_qs(answer(VRAM, {})["links"]["lora"][1:]) == {"total_parameters_billion": ["7"]}  # type: ignore[index]


