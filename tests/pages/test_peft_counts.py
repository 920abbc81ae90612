"""The catalogue and the LoRA page against Transformers and PEFT themselves.

tools/peft_check.py builds every catalogue model with Transformers (from a config with the entry's values, on
PyTorch's meta device), counts its parameters, and counts the LoRA adapters PEFT's get_peft_model makes for
a few setups per model; it recorded those figures in tests/data/peft_counts.json. Here the catalogue and the
page must give each of them again, to the parameter, without PyTorch.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from calculator.llm.catalogue import MODELS, model
from calculator.llm.lora_adapters import ALL_LINEAR
from tools.lora_setups import linear_modules, page_count, setups, shortcut_count

from ..conftest import ROOT

RECORDED = json.loads((ROOT / "tests" / "data" / "peft_counts.json").read_text())
ROWS: list[dict[str, Any]] = RECORDED["rows"]


def test_the_record_covers_every_model_and_setup() -> None:
    """Re-run tools/peft_check.py --json tests/data/peft_counts.json after changing the catalogue or the setups."""
    recorded = {(row["model"], json.dumps(row.get("case"), sort_keys=True)) for row in ROWS}
    wanted = {(entry.id, json.dumps(None)) for entry in MODELS}
    wanted |= {(entry.id, json.dumps(case, sort_keys=True)) for entry in MODELS for case in setups(entry)}
    assert recorded == wanted
    assert (RECORDED["transformers"], RECORDED["peft"]) == ("4.57.1", "0.17.1")


@pytest.mark.parametrize("row", [row for row in ROWS if "case" not in row], ids=lambda row: row["model"])
def test_transformers_counts_each_model_as_the_catalogue(row: dict[str, Any]) -> None:
    assert model(row["model"]).parameters() == row["framework"]


@pytest.mark.parametrize("row", [row for row in ROWS if "case" in row],
                         ids=lambda row: f"{row['model']}-{row['setup']}".replace(" ", "-"))
def test_peft_counts_each_adapter_as_the_page(row: dict[str, Any]) -> None:
    assert page_count(model(row["model"]), row["case"]) == row["framework"]


# The page's shortcuts (issue 25). «Tutti i lineari» is PEFT's target_modules="all-linear": for a dense model
# that is the recorded "every linear layer of each block" setup (r=8). PEFT's all-linear also takes OPT-350m's
# project_in/project_out (512 ↔ 1024), nn.Linear layers outside the blocks that the page does not model: the one
# difference the shortcut record below shows (24,576 at r=8).
EVERY_LINEAR = [row for row in ROWS if row.get("case", {}).get("modules") == linear_modules(model(row["model"]))
                and set(row["case"]) == {"rank", "modules"} and not model(row["model"]).experts]
ALL_LINEAR_DIFFERS = {"opt-350m": 8 * 2 * (512 + 1024)}


@pytest.mark.parametrize("row", EVERY_LINEAR, ids=lambda row: row["model"])
def test_all_linear_on_a_dense_model_is_every_linear_layer_as_peft_counts_it(row: dict[str, Any]) -> None:
    assert row["case"]["rank"] == 8
    assert shortcut_count(model(row["model"]), ALL_LINEAR) == row["framework"]


def test_every_dense_model_has_its_every_linear_row() -> None:
    assert {row["model"] for row in EVERY_LINEAR} == {entry.id for entry in MODELS if not entry.experts}


# PEFT's own "all-linear" and the attention's matrices (by their Transformers names), counted by
# tools/peft_check.py --shortcuts for models of every kind: dense, fused, experts with a linear router (Mixtral),
# with a shared expert and its gate (Qwen1.5-MoE), experts and router as parameters (gpt-oss), latent attention
# with a router that is a parameter (DeepSeek-V2-Lite), encoder–decoders.
SHORTCUTS = json.loads((ROOT / "tests" / "data" / "peft_shortcuts.json").read_text())


def test_the_shortcut_record_covers_each_kind_of_model() -> None:
    recorded = {row["model"] for row in SHORTCUTS["rows"]}
    assert {"llama-2-7b", "mixtral-8x7b", "qwen1.5-moe-a2.7b", "gpt-oss-20b", "deepseek-v2-lite",
            "phi-3-mini", "flan-t5-large"} <= recorded
    assert (SHORTCUTS["transformers"], SHORTCUTS["peft"]) == ("4.57.1", "0.17.1")


@pytest.mark.parametrize("row", SHORTCUTS["rows"], ids=lambda row: f"{row['model']}-{row['shortcut']}")
def test_each_shortcut_counts_as_peft(row: dict[str, Any]) -> None:
    counted = shortcut_count(model(row["model"]), row["shortcut"], row["rank"])
    differs = ALL_LINEAR_DIFFERS.get(row["model"], 0) if row["shortcut"] == ALL_LINEAR else 0
    assert counted + differs == row["framework"]
