"""The «picco di un passo» convention against measured runs at scale (``tests/data/published_scale.json``: 20 torchtitan
runs of Llama 3.1 8B, 70B and 405B with FSDP, TP, PP and CP, each with its source and commit).

The runs log ``torch.cuda.memory_stats()['reserved_bytes.all.peak']`` in GiB. The page's allocated peak, times the
allocator's reserve it states (2–30 %), is the band those figures should fall in; the test allows 1,00–1,35 times
the allocated peak for what the page leaves out (compiled kernels' buffers, NCCL's). Inputs as the runs state them
or as torchtitan's configs set them (the file says which); the page's mixed precision with fp32 gradients and fused
AdamW; FlashAttention (SDPA); torchtitan's per-op selective or full checkpointing; sequence parallelism with TP.

Named divergences:

* FSDP with pipeline parallelism: torchtitan does not reshard a stage's weights after forward (to avoid an
  all-gather per micro-batch) and reduces gradients at the last micro-batch
  (pytorch/torchtitan@9dec370ad26b5f8e9a7333a0e36165018262644b:torchtitan/parallelisms/parallelize_llama.py#L326-L329):
  memory as the page's ZeRO-1, which is what the six 405B runs are compared with (with ZeRO-3 the page gives 34 GiB
  against 73–85 measured);
* Megatron-Bridge's Llama 3 70B runs in FP8 (TransformerEngine's current scaling): the linear layers keep their
  inputs in 8 bits, the page counts 16, and the source's "GB" may be MiB ÷ 1000: 0,69–0,89 of the page's figure;
* Moonlight 16B and Megatron's MLA proxy: multi-latent attention is not modelled (left out, named in the test);
* the two community H200 runs with float8 all-gathers and fp8 weights recomputed in backward: the page's figure is
  above what they measured (reserved ÷ allocated 0,84–0,85), the per-op policy being approximated by half of each
  layer's products.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from calculator.form.evaluate import evaluate
from calculator.form.numbers import format_exact_field
from calculator.llm.architectures import Architecture
from calculator.llm.catalogue import model
from calculator.llm.units import BYTES_PER_GIB
from calculator.pages import vram_step
from calculator.pages.presets import field_texts
from calculator.pages.vram import CALCULATOR

DATA = json.loads((Path(__file__).parent.parent / "data" / "published_scale.json").read_text())
RUNS = {run["id"]: run for run in DATA["runs"]}
BAND = (Decimal("1.00"), Decimal("1.35"))
FLOAT8_ALL_GATHER = ("torchtitan-llama31-8b-fsdp32-h200-float8", "torchtitan-llama31-8b-fsdp64-h200-float8")
FP8_ACTIVATIONS = tuple(run_id for run_id, run in RUNS.items() if run["precision"].startswith("FP8"))


NOT_MODELLED = {
    "megatron-ci-moe-mla-tp2-pp2-vp4-ep4": "multi-latent attention, a multi-token-prediction layer and a vocabulary"
                                           " the source does not state",
    "megatron-bridge-moonlight-16b-8xh100-tp2-ep8-recompute-none": "Moonlight is DeepSeek-V3's architecture:"
                                                                   " multi-latent attention, not modelled",
    "megatron-bridge-moonlight-16b-8xh100-tp2-ep8-recompute-moe-act": "the same",
}


def megatron(run: dict[str, Any]) -> bool:
    return "distributed optimizer" in run["precision"] + run["layout"]["zero"]


def texts_of(run: dict[str, Any]) -> dict[str, str]:
    shape, layout = run["model"], run["layout"]
    vocab = shape["vocab"]
    if megatron(run):  # --make-vocab-size-divisible-by 128, times TP
        vocab = -(-vocab // (128 * layout["tp"])) * 128 * layout["tp"]
    plain = "not gated" in shape.get("mlp", "")
    arch = Architecture("run", "", shape["layers"], shape["hidden"], shape["ffn"], shape["heads"], shape["kv_heads"],
                        vocab, "", mlp="plain" if plain else "gated", bias=bool(shape.get("bias")),
                        norm_bias="LayerNorm" in shape.get("norm", ""),
                        positions=8192 if "learned absolute" in shape.get("position_embedding", "") else 0)
    texts = {f.id: f.default for f in CALCULATOR.fields}
    texts.update({k: v for k, v in field_texts(model(shape["catalogue"] or "llama-3.1-70b")).items() if k in texts})
    texts.update(layers=str(shape["layers"]), hidden_size=str(shape["hidden"]), intermediate_size=str(shape["ffn"]),
                 attention_heads=str(shape["heads"]), kv_heads=str(shape["kv_heads"]), vocab_size=str(vocab),
                 head_dim="", parameters_billion=format_exact_field(Decimal(arch.parameters()) / 10**9))
    in_flight = run.get("pp_microbatches") or 1
    texts.update(
        convention=vram_step.STEP, precision_mode="mista", gradient_precision="32", step_optimizer="adamw_fused",
        zero_stage="1" if layout["pp"] > 1 else "3", gpus=str(run["gpus"]), tensor_parallel=str(layout["tp"]),
        pipeline_parallel=str(layout["pp"]), context_parallel=str(layout["cp"]),
        hsdp_replicas=str(layout["dp_replicate"]), virtual_stages=str(layout["virtual_stages"] or 1),
        sequence_parallel="on" if layout["tp"] > 1 else "", attention="flash",
        checkpointing="selettivo_op" if run["checkpointing"].startswith("selective") else "completo",
        micro_batch=str(run["local_batch"] // in_flight), accumulation_steps=str(in_flight),
        sequence_length=str(run["seq_len"]))
    if megatron(run):  # Megatron-LM's defaults: LayerNorm (TransformerEngine), GELU, dropout, no recomputation
        texts.update(zero_stage="1", mlp="plain" if plain else "gated", norms="fuso", dropout="on" if plain else "",
                     activation_impl="fusa", checkpointing="nessuno" if run["checkpointing"].startswith("none")
                     else "selettivo", sequence_parallel="on" if layout.get("sequence_parallel") else "",
                     micro_batch=str(run["micro_batch"]),
                     accumulation_steps=str(run["local_batch"] // run["micro_batch"]))
    return texts


def ratio(run_id: str) -> Decimal:
    """Measured ÷ the page's allocated peak (of the stage measured, when the source names the last one)."""
    run = RUNS[run_id]
    evaluation = evaluate(CALCULATOR, texts_of(run))
    assert evaluation.status == "ok", evaluation.errors
    stages = vram_step.stage_steps(vram_step.read(evaluation.values))
    if "last" in run["measured"]["rank"].lower() or "LAST" in run.get("notes", ""):
        stages = [pair for pair in stages if pair[0].name in ("last", "only")]
    allocated = max(step.allocated for _, step in stages)
    unit = BYTES_PER_GIB if run["measured"]["unit"] == "GiB" else Decimal(10**9)
    return Decimal(str(run["measured"]["value"])) * unit / allocated


def test_at_least_eight_runs_with_sources_and_every_layout() -> None:
    assert len(RUNS) >= 8
    assert all(run["source"] for run in RUNS.values())
    layouts = [run["layout"] for run in RUNS.values()]
    for degree in ("tp", "pp", "cp", "dp_shard"):
        assert any(layout[degree] > 1 for layout in layouts), degree
    assert any(layout["virtual_stages"] == 2 for layout in layouts)


RESERVED = [run_id for run_id, run in RUNS.items() if run["measured"]["kind"] == "max_memory_reserved"
            and run_id not in FLOAT8_ALL_GATHER and run_id not in NOT_MODELLED]
ALLOCATED = [run_id for run_id, run in RUNS.items() if run["measured"]["kind"] != "max_memory_reserved"
             and run_id not in NOT_MODELLED and run_id not in FP8_ACTIVATIONS]


@pytest.mark.parametrize("run_id", RESERVED)
def test_measured_reserved_memory_is_within_the_allocator_band(run_id: str) -> None:
    assert BAND[0] <= ratio(run_id) <= BAND[1]


@pytest.mark.parametrize("run_id", ALLOCATED)
def test_measured_allocated_peak_within_fifteen_per_cent(run_id: str) -> None:
    assert Decimal("0.85") <= ratio(run_id) <= Decimal("1.15")


@pytest.mark.parametrize("run_id", FP8_ACTIVATIONS)
def test_fp8_runs_keep_less_than_the_page_counts(run_id: str) -> None:
    assert Decimal("0.65") <= ratio(run_id) <= Decimal("0.95")


def test_every_run_is_compared_or_named() -> None:
    assert set(RUNS) == {*RESERVED, *ALLOCATED, *FLOAT8_ALL_GATHER, *FP8_ACTIVATIONS, *NOT_MODELLED}


@pytest.mark.parametrize("run_id", FLOAT8_ALL_GATHER)
def test_float8_all_gather_runs_measured_less_than_the_page(run_id: str) -> None:
    assert Decimal("0.80") <= ratio(run_id) <= Decimal("0.90")


def test_pipeline_runs_need_zero1_semantics() -> None:
    """With ZeRO-3 the page would give less than half of what the 405B runs measured."""
    run = RUNS["torchtitan-llama31-405b-fsdp8-tp8-pp8-1f1b"]
    evaluation = evaluate(CALCULATOR, {**texts_of(run), "zero_stage": "3"})
    allocated = vram_step.evaluate_step(vram_step.read(evaluation.values)).allocated
    assert Decimal(str(run["measured"]["value"])) * BYTES_PER_GIB / allocated > 2
