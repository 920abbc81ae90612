"""The «picco di un passo» convention reads the same architecture as the activation page: latent attention, dense
first layers, attention sinks and how Transformers runs the experts reach its activations (issue 23)."""

from __future__ import annotations

from dataclasses import fields

import pytest

from calculator import CALCULATORS
from calculator.form.evaluate import read_field
from calculator.llm.catalogue import model
from calculator.pages import activations, vram_step
from calculator.pages.presets import field_texts

VRAM, ACT = CALCULATORS["vram-addestramento-llm"], CALCULATORS["memoria-attivazioni"]
SHARED = ("kv_lora_rank", "q_lora_rank", "rope_dim", "v_head_dim", "dense_layers", "dense_intermediate",
          "experts_impl", "sinks", "experts", "experts_per_token", "shared_intermediate", "head_dim", "heads",
          "kv_heads", "layers", "hidden", "intermediate", "vocab")


def values(calc, model_id: str, **extra: str):  # type: ignore[no-untyped-def]
    texts = {**calc.defaults, **field_texts(model(model_id)), **extra}
    return {spec.id: read_field(spec, str(texts.get(spec.id, spec.default))) for spec in calc.fields}


@pytest.mark.parametrize("model_id", ["deepseek-v2-lite", "deepseek-v3", "gpt-oss-20b", "mixtral-8x7b",
                                      "llama-3.1-8b"])
def test_the_step_convention_sees_the_architecture_the_activation_page_sees(model_id: str) -> None:
    step = values(VRAM, model_id, convention=vram_step.STEP)
    ours = vram_step.shape_of(step, vram_step.architecture_of(step), "bf16")
    theirs = activations.shape_of(values(ACT, model_id))
    assert {name: getattr(ours, name) for name in SHARED} == {name: getattr(theirs, name) for name in SHARED}
    assert {f.name for f in fields(ours)} >= set(SHARED)


def test_latent_attention_changes_the_step_convention_activations() -> None:
    """DeepSeek-V2-Lite with and without its latent sizes: the step's activations follow them."""
    step = values(VRAM, "deepseek-v2-lite", convention=vram_step.STEP)
    plain = {**step, "kv_lora_rank": read_field(VRAM.field("kv_lora_rank"), "0")}
    latent = vram_step.shape_of(step, vram_step.architecture_of(step), "bf16")
    flat = vram_step.shape_of(plain, vram_step.architecture_of(plain), "bf16")
    assert latent.kv_lora_rank == 512 and flat.kv_lora_rank == 0
    from calculator.llm.activation_memory import estimate

    assert estimate(latent) != estimate(flat)


@pytest.mark.parametrize(("model_id", "padded"), [("deepseek-v2-lite", True), ("deepseek-v3", True),
                                                  ("llama-3.1-8b", False), ("mixtral-8x7b", False)])
def test_transformers_flash_kernels_cost_more_only_with_latent_attention(model_id: str, padded: bool) -> None:
    """Both pages read flash_attention_2 / _3 as FlashAttention whose latent values are padded to the keys' width
    (activation_memory.attention_bytes): more activation memory for DeepSeek-V2/V3, the same for the others."""
    from calculator.llm.activation_memory import estimate

    for calc, shape_of in ((VRAM, lambda v: vram_step.shape_of(v, vram_step.architecture_of(v), "bf16")),
                           (ACT, activations.shape_of)):
        extra = {"convention": vram_step.STEP} if calc is VRAM else {}
        sdpa = shape_of(values(calc, model_id, attention="flash", **extra))
        theirs = shape_of(values(calc, model_id, attention="flash_attention_2", **extra))
        assert sdpa.flash and theirs.flash and theirs.padded_values and not sdpa.padded_values
        assert (sum(estimate(theirs).values()) > sum(estimate(sdpa).values())) is padded, calc.id


def test_transformers_flash_kernels_refuse_fp32_on_the_step_convention() -> None:
    from calculator import respond

    texts = {**VRAM.defaults, **field_texts(model("deepseek-v2-lite")), "convention": vram_step.STEP,
             "attention": "flash_attention_2", "precision_mode": "fp32"}
    answer = respond({"calculator": VRAM.id, "values": texts})
    assert answer["status"] == "invalid"
    assert "scegli SDPA" in answer["errors"]["attention"]  # type: ignore[index]
