"""A pasted config.json read into an architecture (``calculator/llm/hf_config.py``)."""

from __future__ import annotations

import json

import pytest

from calculator.llm import hf_config
from tests.pages.step_record import SETUPS

# Real configs whose models Transformers built (tools/measure_step.py recorded the exact parameter count).
TRACED = {setup["model"]["hf_id"]: setup["model"] for setup in SETUPS if setup["setup"]["method"] == "full"}


@pytest.mark.parametrize("hf_id", sorted(set(TRACED) - {"allenai/OLMoE-1B-7B-0924"}))
def test_a_real_config_gives_the_count_transformers_builds(hf_id: str) -> None:
    model = TRACED[hf_id]
    reading = hf_config.read(json.dumps({**model["config"], "model_type": model["model_type"]}))
    assert reading.error == "" and reading.architecture is not None
    assert reading.architecture.parameters() == model["parameters"]


@pytest.mark.xfail(strict=True, reason="OLMoE normalises the whole query and key projections (q_norm over heads ×"
                                       " head_dim); the architecture counts one norm per head")
def test_olmoe_full_width_qk_norm() -> None:
    model = TRACED["allenai/OLMoE-1B-7B-0924"]
    reading = hf_config.read(json.dumps({**model["config"], "model_type": model["model_type"]}))
    assert reading.architecture is not None and reading.architecture.parameters() == model["parameters"]


def test_a_nested_text_config_is_the_language_model() -> None:
    inner = {**TRACED["meta-llama/Llama-3.2-1B"]["config"], "model_type": "llama"}
    reading = hf_config.read(json.dumps({"model_type": "mistral3", "text_config": inner, "vision_config": {}}))
    assert reading.architecture is not None
    assert reading.architecture.parameters() == TRACED["meta-llama/Llama-3.2-1B"]["parameters"]


@pytest.mark.parametrize(("text", "message"), [
    ("{", "Non è un JSON valido"),
    ("[1, 2]", "oggetto JSON"),
    ('{"model_type": "llama", "hidden_size": 64}', "Manca la chiave «num_hidden_layers»"),
    ('{"num_hidden_layers": "2", "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10}',
     "deve essere un intero"),
    ("{" + " " * 1_000_001 + "}", "troppo lungo"),
])
def test_what_cannot_be_read_says_why(text: str, message: str) -> None:
    reading = hf_config.read(text)
    assert reading.architecture is None and message in reading.error


def test_notes_for_unknown_families_unmodelled_features_and_explicit_head_dim() -> None:
    base = {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
            "intermediate_size": 128, "vocab_size": 100}
    unknown = hf_config.read(json.dumps({**base, "model_type": "brandnew", "frobnicate": 3}))
    assert any("brandnew" in note for note in unknown.notes)
    assert any("frobnicate" in note for note in unknown.notes)
    deepseek = hf_config.read(json.dumps({**base, "model_type": "deepseek_v3"}))
    assert any("latente" in note for note in deepseek.notes)
    explicit = hf_config.read(json.dumps({**base, "model_type": "qwen3", "head_dim": 32}))
    assert explicit.architecture is not None and explicit.architecture.dim == 32
    assert any("head_dim = 32" in note for note in explicit.notes)
    derived = hf_config.read(json.dumps({**base, "model_type": "llama"}))
    assert derived.architecture is not None and derived.architecture.dim == 16 and derived.notes == []
