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
from tools.lora_setups import page_count, setups

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
