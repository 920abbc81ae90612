"""The «picco di un passo» convention against Megatron-LM's own arithmetic (``tests/data/megatron_memory.json``,
made by ``tools/megatron_memory.py`` from NVIDIA/Megatron-LM@d98e8a6:megatron/training/theoretical_memory_usage.py).

Two figures per configuration, both per GPU of the first pipeline stage (the one Megatron calls most loaded):

* weights, gradients and optimizer states. Megatron assumes bf16 weights, fp32 main gradients, an fp32 master
  copy and Adam's two fp32 moments (18 B per parameter, or 6 + 12/DP with the distributed optimizer); the page's
  mixed precision with fp32 gradients, fused AdamW and ZeRO-1 counts the same bytes. Tolerance 0,1 % (Megatron
  does not divide the norms by TP; the page does).
* the transformer layers' activations (Megatron's figure minus its figure with no layers, which isolates the
  embedding and output terms), for Megatron's model: LayerNorm, dropout, GELU MLP, selective recomputation.
  Equal to 10⁻⁹, with these named differences, shown both ways:
  - without sequence parallelism Megatron adds 5 % for temporaries (its figure ÷ 1,05 is compared);
  - it reports the selective figure whatever the recomputation: with none, the page adds the attention scores;
  - with context parallelism its formula keeps the whole sequence on each rank, and its distributed optimizer
    takes DP, not DP · CP; the page divides both (Megatron's code does, the formula does not);
  - FlashAttention (needed by context parallelism) keeps 4 B of softmax statistics per row and head;
  - a gated MLP keeps four i-wide tensors, not two (Megatron's formula assumes GELU: 4·s·b·i bytes more per layer);
  - a mixture of experts keeps each routed token's copies (Megatron's formula counts a dense MLP): more.
"""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from calculator.form.evaluate import evaluate
from calculator.llm import parallelism as par
from calculator.llm.activation_memory import logits_bytes
from calculator.pages import vram_step
from calculator.pages.vram import CALCULATOR

DATA = json.loads((Path(__file__).parent.parent / "data" / "megatron_memory.json").read_text())
CONFIGS = {record["name"]: record for record in DATA["configurations"]}


def _texts(args: dict[str, Any]) -> dict[str, str]:
    """Megatron's arguments as the page's fields."""
    def n(value: object) -> str:
        return str(value)
    billions = (Decimal(int(DATA_PARAMS[args["hidden_size"], args["num_layers"], args["padded_vocab_size"],
                                        args["num_experts"], args["ffn_hidden_size"]])) / 10**9)
    gpus = (args["tensor_model_parallel_size"] * args["pipeline_model_parallel_size"] * args["context_parallel_size"]
            * args["data_parallel_size"])
    return {
        "convention": vram_step.STEP, "parameters_billion": format(billions.quantize(Decimal("0.000001")), "f")
        .replace(".", ","), "layers": n(args["num_layers"]), "hidden_size": n(args["hidden_size"]),
        "intermediate_size": n(args["moe_ffn_hidden_size"] or args["ffn_hidden_size"]),
        "attention_heads": n(args["num_attention_heads"]),
        "kv_heads": n(args["num_query_groups"] or args["num_attention_heads"]), "head_dim": "",
        "vocab_size": n(args["padded_vocab_size"]), "mlp": "gated" if args["swiglu"] else "plain",
        "tied_embeddings": "", "experts": n(args["num_experts"] or 0),
        "experts_per_token": n(args["moe_router_topk"] if args["num_experts"] else 0),
        "shared_intermediate_size": "0", "norms": "fuso", "dropout": "on", "activation_impl": "fusa",
        "softmax_fp32": "", "loss_fp32": "on", "qk_norm": "", "post_norms": "", "softcap": "",
        "attention": "flash" if args["context_parallel_size"] > 1 else "eager",
        "precision_mode": "mista", "gradient_precision": "32", "step_optimizer": "adamw_fused",
        "zero_stage": "1" if args["use_distributed_optimizer"] else "0",
        "checkpointing": "selettivo" if args["recompute_granularity"] == "selective" else "nessuno",
        "sequence_parallel": "on" if args["sequence_parallel"] else "",
        "accumulation_steps": n(args["num_microbatches"] or 1), "sequence_length": n(args["seq_length"]),
        "micro_batch": n(args["micro_batch_size"]), "gpus": n(gpus),
        "tensor_parallel": n(args["tensor_model_parallel_size"]),
        "pipeline_parallel": n(args["pipeline_model_parallel_size"]),
        "virtual_stages": n(args["virtual_pipeline_model_parallel_size"] or 1),
        "context_parallel": n(args["context_parallel_size"]), "expert_parallel": n(args["expert_model_parallel_size"]),
    }


DATA_PARAMS = {(r["args"]["hidden_size"], r["args"]["num_layers"], r["args"]["padded_vocab_size"],
                r["args"]["num_experts"], r["args"]["ffn_hidden_size"]): r["megatron"]["parameters"]
               for r in DATA["configurations"]}


def ours(name: str) -> tuple[Decimal, Decimal, vram_step.StepInput]:
    """(weights + gradients + optimizer, the layers' activations) on the first stage's GPU, in bytes."""
    args = CONFIGS[name]["args"]
    texts = {f.id: f.default for f in CALCULATOR.fields}
    texts.update(_texts(args))
    evaluation = evaluate(CALCULATOR, texts)
    assert evaluation.status == "ok", evaluation.errors
    given = vram_step.read(evaluation.values)
    stage, step = vram_step.stage_steps(given)[0]
    optimizer = next(phase for phase in step.phases if phase.name == "optimizer").parts
    states = optimizer["weights"] + optimizer["gradients"] + optimizer["optimizer"]
    shape = given.shape
    acts = vram_step.stage_activations(given, stage, shape)
    kept = acts.kept - par.ring_buffers(shape.sequence, shape.micro_batch, given.architecture.kv_heads *
                                        given.architecture.dim, shape.precision, given.layout)
    if stage.head:  # the final norm's and the head's inputs: Megatron's output terms, outside the layers
        local = replace(shape, sequence=shape.sequence // given.layout.context)
        kept -= logits_bytes(local) - local.loss_precision * acts.tokens_vocab
    return states, kept, given


def megatron(name: str) -> tuple[Decimal, Decimal]:
    figures = CONFIGS[name]["megatron"]
    weights = figures.get("weights_and_optimizer_over_dp_cp_bytes", figures["weights_and_optimizer_bytes"])
    layers = Decimal(str(figures["activation_bytes"])) - Decimal(str(figures["activation_without_layers_bytes"]))
    return Decimal(str(weights)), layers


def _in_flight_layers(given: vram_step.StepInput) -> Decimal:
    stage = par.stages(vram_step.counts_of(given), given.layout, given.micro_batches)[0]
    return stage.layers * stage.in_flight


def test_at_least_ten_configurations_dense_and_moe_with_every_degree() -> None:
    args = [record["args"] for record in DATA["configurations"]]
    assert len(args) >= 10 and DATA["source"].startswith("NVIDIA/Megatron-LM@d98e8a64")
    for key in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
                "expert_model_parallel_size"):
        assert any(a[key] > 1 for a in args), key
    assert any(a["virtual_pipeline_model_parallel_size"] for a in args)
    assert any(a["num_experts"] for a in args) and any(not a["num_experts"] for a in args)
    assert {a["use_distributed_optimizer"] for a in args} == {True, False}
    assert {a["recompute_granularity"] for a in args} == {"selective", None}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_weights_and_optimizer_per_gpu_match_megatron(name: str) -> None:
    states, _, _ = ours(name)
    expected, _ = megatron(name)
    assert abs(states - expected) <= expected * Decimal("0.001"), (states / 2**30, expected / 2**30)


EXACT = ("gpt-1.3b-dp8", "gpt-8b-tp8-sp-distopt", "gpt-8b-tp8-nosp", "gpt-8b-tp4-pp4-1f1b", "gpt-8b-tp4-pp4-vp2",
         "gpt-8b-tp2-pp8-m4", "gpt-175b-tp8-pp8", "gpt-175b-tp8-pp8-vp3")


@pytest.mark.parametrize("name", EXACT)
def test_layer_activations_equal_megatrons_on_its_own_model(name: str) -> None:
    _, kept, _ = ours(name)
    _, expected = megatron(name)
    if not CONFIGS[name]["args"]["sequence_parallel"]:
        expected /= Decimal("1.05")  # its temporaries' margin, applied only on that path
    assert abs(kept - expected) <= expected * Decimal("1e-9"), (kept, expected)


def test_context_parallel_divides_the_sequence_megatrons_formula_does_not() -> None:
    """Megatron's formula: the whole 16k sequence per rank. The page: 8k, plus FlashAttention's statistics."""
    _, kept, _ = ours("gpt-8b-tp4-cp2-16k")
    _, whole = megatron("gpt-8b-tp4-cp2-16k")
    args = CONFIGS["gpt-8b-tp4-cp2-16k"]["args"]
    s, b, a, t = args["seq_length"] // 2, args["micro_batch_size"], args["num_attention_heads"], 4
    statistics = Decimal(4 * s * b * a) / t * args["num_layers"]
    assert kept - statistics == whole / 2
    raw = CONFIGS["gpt-8b-tp4-cp2-16k"]["megatron"]
    assert raw["weights_and_optimizer_bytes"] > raw["weights_and_optimizer_over_dp_cp_bytes"]


def test_without_recomputation_the_page_adds_the_scores_megatron_leaves_out() -> None:
    _, kept, _ = ours("gpt-8b-tp8-sp-norecompute")
    _, selective_no_sp = megatron("gpt-8b-tp8-sp-norecompute")
    _, selective_sp = megatron("gpt-8b-tp8-sp-distopt")
    args = CONFIGS["gpt-8b-tp8-sp-norecompute"]["args"]
    s, b, a, t = args["seq_length"], args["micro_batch_size"], args["num_attention_heads"], 8
    scores = Decimal(5 * a * s * s * b) / t * args["num_layers"]  # Korthikanti's 5as²b, split over TP
    assert kept == selective_sp + scores
    assert kept > selective_no_sp


def test_gated_mlp_keeps_two_more_i_wide_tensors_than_megatrons_gelu() -> None:
    _, kept, _ = ours("llama3-8b-tp2-sp")
    _, expected = megatron("llama3-8b-tp2-sp")
    args = CONFIGS["llama3-8b-tp2-sp"]["args"]
    extra = Decimal(4 * args["seq_length"] * args["micro_batch_size"] * args["ffn_hidden_size"]) / 2
    assert kept - extra * args["num_layers"] == expected


@pytest.mark.parametrize("name", ["mixtral-tp2-ep4", "mixtral-pp4-ep8"])
def test_mixture_of_experts_keeps_more_than_megatrons_dense_count(name: str) -> None:
    _, kept, given = ours(name)
    _, expected = megatron(name)
    assert kept > expected and _in_flight_layers(given) == CONFIGS[name]["args"]["num_layers"]
