"""The activation estimate's terms for latent attention, attention sinks and dense first layers, written out
independently from what tools/measure_transformers.py showed Transformers keeping (DeepSeek-V2, gpt-oss)."""

from __future__ import annotations

from dataclasses import replace

from calculator.llm.activation_memory import (
    EXPERT_FP32,
    EXPERT_SORTED,
    LLAMA_NORM,
    NONE,
    Shape,
    estimate,
    layer_terms,
    stack_terms,
    traits,
)
from calculator.llm.catalogue import model

# DeepSeek-V2-Lite's attention: 16 heads, query and key 128 + 64 wide, values 128, kv_lora_rank 512, bf16, eager.
LITE = Shape(layers=27, hidden=2048, heads=16, kv_heads=16, head_dim=192, intermediate=1408, gated=True,
             vocab=102400, sequence=4096, micro_batch=1, precision=2, loss_precision=4, flash=False, dropout=False,
             norm=LLAMA_NORM, tensor_parallel=1, sequence_parallel=False, checkpointing=NONE, softmax_fp32=True,
             experts=64, experts_per_token=6, shared_intermediate=2816, experts_impl=EXPERT_SORTED, dense_layers=1,
             dense_intermediate=10944, kv_lora_rank=512, rope_dim=64, v_head_dim=128)


def test_latent_attention_written_out() -> None:
    """Per token: the input of q_proj and kv_a_proj (h), the compressed key/value normalised (6 bytes per value
    in bf16, LlamaRMSNorm) and kv_b_proj's input (r), every head's query and key (a · 192), value and output
    (a · 128); the scores as in any eager attention."""
    s, h, a, r = 4096, 2048, 16, 512
    terms = layer_terms(LITE)
    assert terms["attention"] == s * 2 * (h + r + a * 192 * 2 + a * 128 * 2)
    assert terms["norms"] == s * 6 * (2 * h + r)
    assert terms["scores"] == s * s * a * (2 + 4)
    with_query_rank = layer_terms(replace(LITE, q_lora_rank=1536))  # V3's compressed query, normalised too
    assert with_query_rank["attention"] - terms["attention"] == s * 2 * 1536
    assert with_query_rank["norms"] - terms["norms"] == s * 6 * 1536


def test_transformers_flash_kernels_pad_latent_values() -> None:
    """With FlashAttention the kernel keeps every head's query and key (a · 192), value and output (a · 128).
    Transformers' own kernels (flash_attention_2 / _3) take one head width: each value is padded to 192, the kernel
    keeps it and its output that wide, and o_proj's input is a copy of the output's 128 first columns. SDPA, eager
    attention and models whose values are as wide as their keys are unchanged."""
    s, h, a, r = 4096, 2048, 16, 512
    flash = replace(LITE, flash=True)
    assert layer_terms(flash)["attention"] == s * 2 * (h + r + a * 192 * 2 + a * 128 * 2)
    padded = layer_terms(replace(flash, padded_values=True))
    assert padded["attention"] == s * 2 * (h + r + a * 192 * 2 + a * 192 * 2 + a * 128)
    assert padded["scores"] == layer_terms(flash)["scores"] == s * 4 * a  # the row statistics only
    assert layer_terms(replace(LITE, padded_values=True)) == layer_terms(LITE)  # eager: no kernel to pad for
    equal = replace(flash, v_head_dim=192)
    assert layer_terms(replace(equal, padded_values=True)) == layer_terms(equal)
    plain = replace(flash, kv_lora_rank=0, rope_dim=0, v_head_dim=0, head_dim=128)
    assert layer_terms(replace(plain, padded_values=True)) == layer_terms(plain)


def test_dense_first_layers_have_their_own_mlp() -> None:
    (dense_count, dense), (moe_count, moe) = stack_terms(LITE)
    assert (dense_count, moe_count) == (1, 26)
    assert dense["mlp"] == 4096 * 2 * (2048 + 4 * 10944)  # the MLP's input and SwiGLU's four i-wide tensors
    assert dense["attention"] == moe["attention"]


def test_sorted_experts_written_out() -> None:
    """DeepSeek-V2's experts per token: the MLP's input (h); per chosen expert the sorted copy (h), SwiGLU's four
    tensors, the fp32 output weighted in place, the weight and two int64 indices; the fp32 router (its input, the
    probabilities, the chosen indices) and its weights' fp32 copy; the gateless shared experts."""
    s, h, i, k, e, shared = 4096, 2048, 1408, 6, 64, 2816
    per_token = 2 * h + k * (2 * (h + 4 * i) + 4 * h + 4 + 16) + (4 * h + 4 * e + 8 * k) + 2 * 4 * shared
    assert layer_terms(LITE)["mlp"] == s * per_token + 4 * e * h


def test_deepseek_v3_experts_written_out() -> None:
    """DeepSeek-V3's experts one at a time: per chosen expert the gathered input and the output (2h), SwiGLU's
    four tensors, the weighted output in fp32 (4h bytes), the fp32 weight and an int64 index; the fp32 router
    (input, sigmoid scores, indices, weights, their sum) and its weights' fp32 copy."""
    s, h, i, k, e, shared = 4096, 2048, 1408, 6, 64, 2816
    shape = replace(LITE, experts_impl=EXPERT_FP32)
    per_token = 2 * h + k * (2 * (2 * h + 4 * i) + 4 * h + 12) + (4 * h + 4 * e + 12 * k + 4) + 2 * 4 * shared
    assert layer_terms(shape)["mlp"] == s * per_token + 4 * e * h


def test_sinks_add_a_column_in_eager_attention_only() -> None:
    """gpt-oss's softmax over s + 1 logits in bf16, and each row's int64 max index; FlashAttention keeps its row
    statistics either way."""
    shape = replace(LITE, kv_lora_rank=0, rope_dim=0, v_head_dim=0, head_dim=64, softmax_fp32=False)
    with_sinks = replace(shape, sinks=True)
    assert layer_terms(with_sinks)["scores"] - layer_terms(shape)["scores"] == 4096 * 16 * (2 + 8)
    flash = replace(shape, flash=True)
    assert estimate(replace(flash, sinks=True)) == estimate(flash)


def test_the_catalogue_says_how_transformers_runs_them() -> None:
    oss, lite, v3 = (traits(model(name)) for name in ("gpt-oss-20b", "deepseek-v2-lite", "deepseek-v3"))
    assert (oss.softmax_fp32, lite.experts, v3.experts) == (False, EXPERT_SORTED, EXPERT_FP32)
