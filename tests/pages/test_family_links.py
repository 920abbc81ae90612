"""The links between siblings, declared in Python: what each carries, in the units the sibling asks for."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

import pytest

from calculator import CALCULATORS, respond
from calculator.form.family import carried, shared_fields

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
            sources, optional = carried(calc, feed)  # declared, and shared by name
            assert set(sources) | set(feed.fixed) <= {f.id for f in target.fields}, (calc.id, feed.id)
            query = parse_qs(links[feed.id][1:])  # type: ignore[index]
            absent = {t for t in optional if t not in query}  # optional and empty here: left to the sibling
            expected = (set(sources) - absent) | {k for k, v in feed.fixed.items() if v}
            assert set(query) == expected, (calc.id, feed.id)
            # What the link carries is accepted by the sibling as it is.
            assert answer(feed.target, {k: v[0] for k, v in query.items()})["status"] == "ok"


@pytest.mark.parametrize(("unit", "a", "gb"), [("GB", "0,5", "16"), ("MB", "500", "16"), ("GiB", "0,5", "17,18")])
def test_accumulation_gives_the_vram_page_gigabytes(unit: str, a: str, gb: str) -> None:
    """M = b·A in the unit chosen, converted to the GB the VRAM page asks for (1 GiB = 1,073741824 GB)."""
    result = answer(ACC, {"activation_unit": unit, "activation_per_sample_gb": a, "micro_batch": "32",
                          "data_parallel_gpus": "4"})
    query = parse_qs(result["links"]["vram"][1:])  # type: ignore[index]
    assert {k: v for k, v in query.items() if k in ("activation_gb", "gpus")} == {"activation_gb": [gb], "gpus": ["4"]}
    assert "activation_per_sample_gb" not in query  # its unit is chosen on this page: never carried as it is


def test_a_link_that_cannot_carry_its_value_is_not_offered() -> None:
    assert "vram" not in answer(LORA, {"total_parameters_billion": ""})["links"]  # type: ignore[operator]
    carried = parse_qs(answer(LORA, {})["links"]["vram"][1:])  # type: ignore[index]
    # Issue 21: the LoRA page opens the VRAM page's step convention with its method, rank, targets, exact count and
    # the model's shape.
    assert {k: v[0] for k, v in carried.items() if k in ("parameters_billion", "convention", "method", "rank",
                                                          "lora_trainable", "lora_targets", "layers")} == {
        "parameters_billion": "6,74", "convention": "passo", "method": "lora", "rank": "8",
        "lora_trainable": "4194304", "lora_targets": "qv", "layers": "32"}
    to_lora = parse_qs(answer(VRAM, {})["links"]["lora"][1:])  # type: ignore[index]
    assert to_lora["total_parameters_billion"] == ["7"] and to_lora["layers"] == ["32"]  # the count and the shape




def _model_inputs(calculator_id: str) -> dict[str, str]:
    """Llama 3.1 8B where the page offers it, with what its links need."""
    calc = CALCULATORS[calculator_id]
    preset = next((p for p in calc.presets if p.id == "llama-3.1-8b"), None)
    own = {f.id for f in calc.fields}
    texts = {k: v for k, v in (preset.values if preset else {}).items() if k in own}
    return {**texts, **FEED_INPUTS.get(calculator_id, {})}


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_every_link_carries_every_quantity_the_sibling_shares(calculator_id: str) -> None:
    """Walk every link of the page: each field the sibling has under the same name arrives with the same text, and
    the sibling computes with it."""
    calc = CALCULATORS[calculator_id]
    given = answer(calculator_id, _model_inputs(calculator_id))
    sent = {**calc.defaults, **_model_inputs(calculator_id)}
    for feed in calc.feeds:
        if feed.id not in given["links"]:
            continue
        query = {k: v[0] for k, v in parse_qs(given["links"][feed.id][1:]).items()}
        for target_field in shared_fields(calc, feed):
            if calc.field(target_field).in_mode(calc.mode(sent)) and sent.get(target_field):
                assert query.get(target_field) == sent[target_field], (calc.id, feed.id, target_field)
        assert answer(feed.target, query)["status"] == "ok"


def test_vram_with_llama_31_8b_opens_the_lora_page_on_llama_31_8b() -> None:
    """Issue 25: VRAM (Llama 3.1 8B) → LoRA counted Llama 2 7B's shape with 8,03 B parameters."""
    vram = answer(VRAM, _model_inputs(VRAM))
    arrived = {k: v[0] for k, v in parse_qs(vram["links"]["lora"][1:]).items()}
    lora = CALCULATORS[LORA]
    preset = next(p for p in lora.presets if p.id == "llama-3.1-8b")
    by_preset = answer(LORA, {k: v for k, v in preset.values.items() if k in {f.id for f in lora.fields}})
    by_link = answer(LORA, arrived)
    assert by_link["results"]["trainable_parameters"] == by_preset["results"]["trainable_parameters"] == "3.407.872"
