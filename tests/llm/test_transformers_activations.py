"""The activation page against Transformers' own models, measured by tools/measure_transformers.py.

The script shrank one catalogue entry per family, built it with Transformers 4.57.1 (bf16, eager attention,
no dropout), counted the bytes autograd kept for the backward pass and recorded them in
tests/data/transformers_activations.json. The page, with the catalogue's choices for each family, must stay
within 1 % of each measurement.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from calculator.llm.catalogue import model
from tools.transformers_shapes import DECODER, page_bytes, tiny

from ..conftest import ROOT

RECORDED = json.loads((ROOT / "tests" / "data" / "transformers_activations.json").read_text())


def _name(row: dict[str, Any]) -> str:
    return "-".join([row["model"], *(f"{key}{row[key]}" for key in ("sequence", "window", "attention") if key in row)])


@pytest.mark.parametrize("row", RECORDED["rows"], ids=_name)
def test_the_page_matches_transformers(row: dict[str, Any]) -> None:
    """A row with a ``sequence`` was measured on that many tokens, and one with a ``window`` with the
    sliding-window layers' window set to it (shorter than the sequence): the page has no window, since eager
    attention computes every score and masks those outside the window. A row with an ``attention`` ran
    Transformers' flash_attention_2 path around a stand-in kernel that keeps what flash_attn keeps."""
    estimated = page_bytes(tiny(model(row["model"])), row.get("sequence", DECODER), row.get("attention", "eager"))
    assert estimated == row["estimated"]  # the record is of this page (re-run the script after changing it)
    assert abs(row["measured"] - estimated) <= row["measured"] * 0.01


FLASH_ROWS = [row for row in RECORDED["rows"] if row.get("attention") == "flash_attention_2"]


@pytest.mark.parametrize("row", FLASH_ROWS, ids=_name)
def test_latent_attention_needs_its_padded_values_under_flash_attention_2(row: dict[str, Any]) -> None:
    """Read as plain FlashAttention / SDPA, the page misses what Transformers' padding of latent attention's values
    keeps (more than 3 % of the shrunk DeepSeek models); for the other families the two choices are the same."""
    entry = tiny(model(row["model"]))
    plain = page_bytes(entry, DECODER, "flash")
    if entry.kv_lora_rank:
        assert row["measured"] - plain > row["measured"] * 0.03
    else:
        assert plain == row["estimated"]


def test_flash_attention_2_is_measured_for_latent_attention() -> None:
    assert {"deepseek-v2-lite", "deepseek-v3"} <= {row["model"] for row in FLASH_ROWS}


def test_every_family_is_measured() -> None:
    """Every family the activation page offers, and every family of the catalogue."""
    from calculator.llm.catalogue import ACTIVATIONS, MODELS

    measured = {model(row["model"]).family for row in RECORDED["rows"]}
    assert {entry.family for entry in MODELS if ACTIVATIONS in entry.offered} <= measured
    assert {entry.family for entry in MODELS} == measured
    assert RECORDED["transformers"] == "4.57.1"
