"""The LLM training VRAM calculator: properties and chart."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from calculator import respond
from calculator.form.svg import svg_part
from calculator.llm.optimizers import RECIPES
from calculator.pages.vram import CALCULATOR, SHAPE_FIELDS, ZERO_STAGES, compute

from ..support.golden import VRAM, request

params = st.decimals(min_value=Decimal("0.001"), max_value=Decimal(10_000), places=3)
activations = st.decimals(min_value=Decimal(0), max_value=Decimal(1_000), places=2)
gpus = st.integers(min_value=1, max_value=4096).map(Decimal)
optimizers = st.sampled_from(sorted(f"{o}/{g}" for o in RECIPES for g in ("16", "32")))  # and gradient precision
stages = st.sampled_from(sorted(ZERO_STAGES))
SHAPE = {spec.id: Decimal(spec.default) if spec.default else None for spec in CALCULATOR.fields if spec.id in SHAPE_FIELDS}


def per_gpu(p: Decimal, act: Decimal, n: Decimal, choice: str, stage: str) -> Decimal:
    opt, precision = choice.split("/")
    out = compute({**SHAPE, "parameters_billion": p, "activation_gb": act, "gpus": n, "optimizer": opt, "zero_stage": stage,
                   "gpu_memory_gb": Decimal(80), "reserve_gb": Decimal(2), "activation_per_sample_gb": None,
                   "convention": "zero", "gradient_precision": precision})
    value = out["per_gpu_gb"]
    assert value is not None
    return value


@given(params, params, activations, gpus, optimizers, stages)
def test_memory_grows_with_parameters(p1: Decimal, p2: Decimal, act: Decimal, n: Decimal, opt: str, stage: str) -> None:
    low, high = sorted((p1, p2))
    assert per_gpu(low, act, n, opt, stage) <= per_gpu(high, act, n, opt, stage)


@given(params, activations, activations, gpus, optimizers, stages)
def test_memory_grows_with_activations(
    p: Decimal, a1: Decimal, a2: Decimal, n: Decimal, opt: str, stage: str
) -> None:
    low, high = sorted((a1, a2))
    difference = per_gpu(p, high, n, opt, stage) - per_gpu(p, low, n, opt, stage)
    assert difference >= 0
    assert abs(difference - (high - low)) < Decimal("1e-20")  # activations are added, never sharded


@given(params, activations, gpus, optimizers, stages)
def test_more_gpus_never_need_more_memory_each(p: Decimal, act: Decimal, n: Decimal, opt: str, stage: str) -> None:
    assert per_gpu(p, act, n + 1, opt, stage) <= per_gpu(p, act, n, opt, stage)
    if stage == "0":
        assert per_gpu(p, act, n + 1, opt, stage) == per_gpu(p, act, n, opt, stage)


@given(params, activations, gpus, optimizers)
def test_higher_stages_shard_more(p: Decimal, act: Decimal, n: Decimal, opt: str) -> None:
    values = [per_gpu(p, act, n, opt, s) for s in "0123"]
    assert values == sorted(values, reverse=True)


@given(params, optimizers)
def test_one_gpu_total_is_bytes_per_parameter_times_parameters(p: Decimal, choice: str) -> None:
    opt, precision = choice.split("/")
    recipe = RECIPES[opt]
    if recipe.optimizer is None:  # shape-dependent: Adafactor, in tests/llm/test_optimizers.py
        return
    total = recipe.weights + recipe.gradients(precision) + recipe.optimizer
    assert per_gpu(p, Decimal(0), Decimal(1), choice, "3") == p * total


def test_recipes_match_their_sources() -> None:
    table = {key: (r.weights, r.gradients("16"), r.gradients("32"), r.optimizer) for key, r in RECIPES.items()}
    assert table == {
        "adamw_mixed": (2, 2, 4, 12),  # ZeRO §3.1; Hugging Face model memory anatomy: 18 B in all with fp32 gradients
        "adamw_8bit": (2, 2, 4, 6),  # Transformer Math 101: optimizer 6 B; Hugging Face: 12 B
        "sgd_momentum": (2, 2, 4, 8),  # Transformer Math 101: optimizer 8 B; Hugging Face: 14 B
        "adamw_fp32": (4, 4, 4, 8),  # fp32 gradients whatever the choice
        "adafactor": (2, 2, 4, None),  # the factored state depends on the matrices' shapes
    }
    assert [o.value for o in CALCULATOR.field("optimizer").options] == list(RECIPES)


def test_chart_is_well_formed_svg_with_four_parts() -> None:
    answer = respond(request(VRAM, gpus="8", zero_stage="3"))
    svg = ET.fromstring(svg_part(str(answer["chart"])))
    ns = "{http://www.w3.org/2000/svg}"
    assert svg.tag == f"{ns}svg" and svg.get("role") == "img"
    assert svg.find(f"{ns}title") is not None
    desc = svg.find(f"{ns}desc")
    assert desc is not None and desc.text is not None
    assert "Pesi: 1,75 GB" in desc.text and "Attivazioni: 2 GB" in desc.text and "totale 16 GB" in desc.text
    bars = [r for r in svg.findall(f"{ns}rect") if r.find(f"{ns}title") is not None]
    assert len(bars) == 4
    width = float(svg.get("viewBox", "").split()[2])  # narrow: it sits beside the verdict
    # 16 GB on the default card (85,9 GB): the bar fills its share of the axis, which reaches the card's memory.
    assert abs(sum(float(r.get("width", "0")) for r in bars) - (width - 2) * 16 / 85.9) < 0.1
    assert [t.text for t in svg.findall(f"{ns}text")] == ["0", "42,95", "85,9 GB"]  # the axis, in GB
    legend = ET.fromstring(str(answer["chart"])[len(svg_part(str(answer["chart"]))):])  # HTML, readable on a phone
    assert [li.find("span").tail for li in legend] == [  # type: ignore[union-attr]
        "Pesi: 1,75 GB (10,94 %)", "Gradienti: 1,75 GB (10,94 %)", "Stati dell'ottimizzatore: 10,5 GB (65,62 %)",
        "Attivazioni: 2 GB (12,5 %)", "Riserva del framework: 2 GB", "Memoria della GPU: 85,9 GB"]


def test_the_card_and_what_overflows_it_are_drawn_on_the_bar() -> None:
    chart = str(respond(request(VRAM, gpu_memory_gb="24"))["chart"])
    svg = ET.fromstring(svg_part(chart))
    ns = "{http://www.w3.org/2000/svg}"
    overflow = [r for r in svg.findall(f"{ns}rect") if r.get("class") == "calc-overflow"]
    limit = [line for line in svg.findall(f"{ns}line") if line.get("class") == "calc-limit"]
    assert len(overflow) == 1 and len(limit) == 1
    assert overflow[0].get("x") == limit[0].get("x1")  # the overflow starts at the card's memory
    assert "Oltre la memoria della GPU: 90 GB" in chart  # 114 GB on 24 GB


def test_chart_with_no_memory_draws_no_bar() -> None:
    answer = respond(request(VRAM, parameters_billion="0,001", activation_gb="0"))
    assert "<svg" in str(answer["chart"])
    ET.fromstring(svg_part(str(answer["chart"])))


# Addresses the VRAM page was opened with before the step convention (the accumulation, activation and LoRA pages'
# links, and readers' own), with the results they showed then (computed at 67366d0): they open unchanged.
OLD_LINKS = [
    ({"activation_gb": "16", "gpus": "4"},
     {"per_gpu_gb": "128 GB", "fit": "Non entra in una GPU da 80 GiB = 85,9 GB: mancano 44,1 GB."}),
    ({"parameters_billion": "6,74"}, {"per_gpu_gb": "109,84 GB"}),
    ({"parameters_billion": "13", "gpus": "8", "zero_stage": "3", "activation_per_sample_gb": "0,5"},
     {"per_gpu_gb": "28 GB", "max_micro_batch": "115",
      "fit": "Entra in una GPU da 80 GiB = 85,9 GB: restano 55,9 GB oltre la riserva."}),
    ({"optimizer": "adamw_8bit", "gradient_precision": "32", "activation_gb": "0"}, {"per_gpu_gb": "84 GB"}),
]


def test_old_links_open_with_their_values() -> None:
    for query, expected in OLD_LINKS:
        answer: dict[str, Any] = respond(request(VRAM, **query))
        assert answer["mode"] == "zero" and answer["status"] == "ok", query
        for key, text in expected.items():
            assert answer["results"][key] == text, (query, key)
