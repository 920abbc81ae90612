"""The activation page against Transformers' own models, measured by tools/measure_transformers.py.

The script shrank one catalogue entry per family, built it with Transformers 4.57.1 (bf16, eager attention,
no dropout), counted the bytes autograd kept for the backward pass and recorded them in
tests/data/transformers_activations.json. The page, with the catalogue's choices for each family, must stay
within 1 % of each measurement, but for the families whose code keeps more than the page models (named below
with what the measurement showed): for those the recorded difference must not grow.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from calculator.catalogue import model
from tools.transformers_shapes import page_bytes, tiny

from .conftest import ROOT

RECORDED = json.loads((ROOT / "tests" / "data" / "transformers_activations.json").read_text())
# Known gaps, as the page's shortfall against the measurement at this small size:
KNOWN = {
    "whisper-small": 0.05,  # the convolutional front-end and its GELUs are not counted
    "falcon-7b": 0.11,  # one norm for a parallel attention and MLP, and Falcon's own attention code
    "bloom-560m": 0.17,  # ALiBi added with baddbmm, and BLOOM's own GELU
}


@pytest.mark.parametrize("row", RECORDED["rows"], ids=lambda row: row["model"])
def test_the_page_matches_transformers(row: dict[str, Any]) -> None:
    estimated = page_bytes(tiny(model(row["model"])))
    assert estimated == row["estimated"]  # the record is of this page (re-run the script after changing it)
    shortfall = (row["measured"] - estimated) / row["measured"]
    if row["model"] in KNOWN:
        assert 0 <= shortfall <= KNOWN[row["model"]]
    else:
        assert abs(shortfall) <= 0.01


def test_every_family_is_measured() -> None:
    from calculator.catalogue import MODELS

    assert {model(row["model"]).family for row in RECORDED["rows"]} == {entry.family for entry in MODELS}
    assert RECORDED["transformers"] == "4.57.1"
