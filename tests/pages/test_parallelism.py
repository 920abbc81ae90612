"""The «picco di un passo» under 4D/5D parallelism: what one GPU holds as each degree grows, the stages, and the
Italian messages when a degree does not divide what it splits."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculator.form.evaluate import Evaluation, evaluate
from calculator.llm import parallelism as par
from calculator.llm.catalogue import model
from calculator.pages import vram_step
from calculator.pages.presets import field_texts
from calculator.pages.vram import CALCULATOR


def _evaluate(model_id: str, **fields: str) -> Evaluation:
    texts = {f.id: f.default for f in CALCULATOR.fields}
    texts.update({k: v for k, v in field_texts(model(model_id)).items() if k in texts})
    texts.update({"convention": vram_step.STEP, **fields})
    return evaluate(CALCULATOR, texts)


def _allocated(model_id: str, **fields: str) -> Decimal:
    evaluation = _evaluate(model_id, **fields)
    assert evaluation.status == "ok", evaluation.errors
    return vram_step.evaluate_step(vram_step.read(evaluation.values)).allocated


def test_in_flight_micro_batches_as_megatron_counts_them() -> None:
    assert par.in_flight(par.Layout(pipeline=4), 8) == 4  # 1F1B: PP micro-batches on the first stage
    assert par.in_flight(par.Layout(pipeline=4), 2) == 2  # fewer micro-batches than stages
    assert par.in_flight(par.Layout(pipeline=4, virtual=2), 8) == Decimal("5.5")  # 4 · (1 + 3/8)
    assert par.in_flight(par.Layout(), 8) == 1


def test_layout_degrees() -> None:
    layout = par.Layout(tensor=8, pipeline=4, context=2, expert=4, replicas=2)
    assert layout.data_parallel(256) == 4
    assert layout.shard_degree(256) == 4  # DP · CP / replicas
    assert layout.expert_shard_degree(256) == 1  # 256 / (TP · EP · PP) / replicas


def test_inverse_searches_are_tight() -> None:
    assert par.smallest(lambda n: n * n >= 50, 1, 100) == 8
    assert par.largest(lambda n: n * n <= 50, 1, 100) == 7
    assert par.smallest(lambda n: False, 1, 10) is None


DENSE_SETUP = st.fixed_dictionaries({
    "model": st.sampled_from(["llama-3.1-8b", "qwen2.5-7b", "mistral-7b"]),
    "checkpointing": st.sampled_from(["nessuno", "selettivo", "completo"]),
    "zero_stage": st.sampled_from(["0", "1", "2", "3"]),
    "sequence_length": st.sampled_from(["1024", "4096", "8192"]),
    "sequence_parallel": st.sampled_from(["", "on"]),
    "tp": st.sampled_from([1, 2]), "pp": st.sampled_from([1, 2]), "cp": st.sampled_from([1, 2]),
    "dp": st.sampled_from([1, 2, 4]),
})


def _layout_fields(setup: dict[str, object], **degrees: int) -> dict[str, str]:
    d = {key: int(str(setup[key])) for key in ("tp", "pp", "cp", "dp")} | degrees
    return {"checkpointing": str(setup["checkpointing"]), "zero_stage": str(setup["zero_stage"]),
            "sequence_length": str(setup["sequence_length"]), "sequence_parallel": str(setup["sequence_parallel"]),
            "tensor_parallel": str(d["tp"]), "pipeline_parallel": str(d["pp"]), "context_parallel": str(d["cp"]),
            "gpus": str(d["tp"] * d["pp"] * d["cp"] * d["dp"]), "accumulation_steps": "8"}


@settings(max_examples=40, deadline=None)
@given(DENSE_SETUP, st.sampled_from(["tp", "pp", "cp", "dp"]))
def test_memory_per_gpu_never_grows_when_a_degree_grows(setup: dict[str, object], degree: str) -> None:
    """With the other degrees fixed (more GPUs). Under 1F1B with at least PP micro-batches the first stage keeps
    the same activations (L/PP layers × PP micro-batches) and fewer weights; interleaving is the named exception."""
    name = str(setup["model"])
    before = _allocated(name, **_layout_fields(setup))
    after = _allocated(name, **_layout_fields(setup, **{degree: int(str(setup[degree])) * 2}))
    assert after <= before


def test_interleaving_is_the_named_exception() -> None:
    """Megatron's penalty: the first stage keeps 1 + (PP − 1)/(PP · v) times the layers' activations."""
    base = {"gpus": "8", "pipeline_parallel": "8", "accumulation_steps": "16", "sequence_length": "4096"}
    plain = _allocated("llama-3.1-8b", **base)
    interleaved = _allocated("llama-3.1-8b", **base, virtual_stages="2")
    assert interleaved > plain


def test_expert_parallelism_divides_the_experts_only() -> None:
    fields = {"gpus": "8", "zero_stage": "0", "checkpointing": "completo"}
    one = _allocated("mixtral-8x7b", **fields)
    eight = _allocated("mixtral-8x7b", **fields, expert_parallel="8")
    assert eight < one / 3  # the experts are 96 % of Mixtral's weights; attention and router stay whole


def test_the_first_stage_holds_the_embedding_and_the_last_the_head() -> None:
    evaluation = _evaluate("llama-3.1-8b", gpus="4", pipeline_parallel="4", accumulation_steps="8")
    given_ = vram_step.read(evaluation.values)
    stages = par.stages(vram_step.counts_of(given_), given_.layout, given_.micro_batches)
    assert [stage.name for stage in stages] == ["first", "last"]
    assert stages[0].in_flight == 4 and stages[1].in_flight == 1 and stages[1].head and not stages[0].head
    assert stages[0].dense == stages[1].dense  # untied: an embedding on one, a head of the same size on the other


@pytest.mark.parametrize(("fields", "field", "words"), [
    ({"tensor_parallel": "3"}, "tensor_parallel", "non dividono le 32 teste"),
    ({"gpus": "64", "pipeline_parallel": "64"}, "pipeline_parallel", "sono più dei 32 strati"),
    ({"gpus": "32", "pipeline_parallel": "16", "virtual_stages": "3"}, "pipeline_parallel", "16 stadi × 3"),
    ({"gpus": "6", "pipeline_parallel": "4"}, "gpus", "TP × PP × CP = 1 × 4 × 1 = 4"),
    ({"gpus": "4", "context_parallel": "4", "sequence_length": "2052"}, "context_parallel", "2 · CP = 8"),
    ({"gpus": "2", "context_parallel": "2", "attention": "eager"}, "context_parallel", "FlashAttention"),
    ({"gpus": "8", "expert_parallel": "2"}, "expert_parallel", "non ha esperti"),
    ({"gpus": "8", "pipeline_parallel": "2", "method": "lora"}, "pipeline_parallel", "fine-tuning completo"),
    ({"gpus": "8", "hsdp_replicas": "3", "zero_stage": "3"}, "hsdp_replicas", "non divide"),
    ({"gpus": "8", "virtual_stages": "2"}, "virtual_stages", "almeno 2 stadi"),
])
def test_degrees_that_do_not_divide_are_said_beside_their_field(fields: dict[str, str], field: str,
                                                                 words: str) -> None:
    evaluation = _evaluate("llama-3.1-8b", **fields)
    assert evaluation.status != "ok"
    assert words in evaluation.errors[field], evaluation.errors


def test_experts_that_do_not_divide() -> None:
    evaluation = _evaluate("mixtral-8x7b", gpus="6", expert_parallel="3")
    assert "8 esperti non si dividono in parti uguali tra 3 GPU" in evaluation.errors["expert_parallel"]


def test_layers_that_do_not_divide_are_said_and_the_most_loaded_rank_counted() -> None:
    """torchtitan splits Llama 3.1 405B's 126 layers over 8 stages unevenly: the fullest rank has 16."""
    evaluation = _evaluate("llama-3.1-8b", gpus="6", pipeline_parallel="3", accumulation_steps="6")
    assert evaluation.status == "ok"
    assert "32 strati non si dividono in parti uguali tra 3 blocchi" in str(evaluation.outputs["peak_stage"])
    assert "(11)" in str(evaluation.outputs["peak_stage"])
    assert par.stage_layers(126, par.Layout(pipeline=8)) == 16
    assert par.stage_layers(126, par.Layout(pipeline=8, virtual=2)) == 16
    assert par.stage_layers(32, par.Layout(pipeline=4, virtual=2)) == 8


def test_the_activation_page_splits_the_sequence_over_context_parallel_ranks() -> None:
    """Per GPU, 8192 tokens over CP 2 keep what 4096 tokens keep on one GPU (FlashAttention: nothing s × s)."""
    from calculator.pages.activations import CALCULATOR as ACTIVATIONS

    texts = {f.id: f.default for f in ACTIVATIONS.fields}
    texts.update({k: v for k, v in field_texts(model("llama-3.1-8b")).items() if k in texts})
    texts["attention"] = "flash"
    split = evaluate(ACTIVATIONS, {**texts, "sequence_length": "8192", "context_parallel": "2"})
    whole = evaluate(ACTIVATIONS, {**texts, "sequence_length": "4096"})
    assert split.status == "ok", split.errors
    assert split.outputs["per_micro_batch_gb"] == whole.outputs["per_micro_batch_gb"]
    odd = evaluate(ACTIVATIONS, {**texts, "sequence_length": "8190", "context_parallel": "2"})
    assert "2 · CP = 4" in odd.errors["context_parallel"]
    eager = evaluate(ACTIVATIONS, {**texts, "attention": "eager", "context_parallel": "2"})
    assert "FlashAttention" in eager.errors["context_parallel"]


def test_hsdp_replicas_shard_within_their_group_only() -> None:
    """16 GPUs with ZeRO-3: plain FSDP shards over 16; HSDP with 2 replicas over 8, so more per GPU."""
    fields = {"gpus": "16", "zero_stage": "3", "checkpointing": "completo"}
    fsdp = _allocated("llama-3.1-8b", **fields)
    hsdp = _allocated("llama-3.1-8b", **fields, hsdp_replicas="2")
    eight = _allocated("llama-3.1-8b", **{**fields, "gpus": "8"})
    assert fsdp < hsdp and abs(hsdp - eight) < Decimal(10**6)  # within NCCL's band, as 8-way FSDP
