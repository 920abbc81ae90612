"""Catalogue entries as preset buttons: each model's shape as the text of every field a page may have."""

from __future__ import annotations

from decimal import Decimal

from ..form.model import Preset
from ..form.numbers import format_exact_field
from ..llm.activation_memory import traits
from ..llm.architectures import FUSED_GATE_UP, FUSED_QKV, SEPARATE, Architecture
from ..llm.catalogue import model, offered
from ..llm.lora_adapters import LINEAR_EXPERTS, PARAMETER_EXPERTS, PARAMETER_ROUTER

MODEL_GROUP = "Compila con un modello:"
T5_INPUT = 512  # T5's n_positions: the input length it was pre-trained with


def _flag(value: bool) -> str:
    return "on" if value else ""


def field_texts(entry: Architecture) -> dict[str, str]:
    """The entry as the calculators' fields read it (a calculator takes the fields it has)."""
    count = entry.parameters()
    billions = format_exact_field(Decimal(count) / 10**9)
    family = traits(entry)
    return {
        "layers": str(entry.layers), "hidden_size": str(entry.hidden), "attention_heads": str(entry.heads),
        # The head dimension only where the config sets one (else the page derives it from the fields).
        "kv_heads": str(entry.kv_heads), "head_dim": str(entry.dim) if entry.head_dim or entry.mla else "",
        # A mixture of experts: the size of each expert's MLP.
        "intermediate_size": str(entry.expert_intermediate if entry.moe else entry.intermediate),
        "mlp": entry.mlp, "vocab_size": str(entry.vocab),
        "total_parameters_billion": billions, "parameters_billion": billions,
        "active_parameters_billion": format_exact_field(Decimal(entry.active_parameters()) / 10**9) if entry.moe else "",
        "embedding_million": format_exact_field(Decimal(entry.input_embedding()) / 10**6),
        "largest_layer_million": format_exact_field(Decimal(entry.largest_layer()) / 10**6),
        "base_parameters": str(count),
        "attention_layout": FUSED_QKV if entry.fused_qkv else SEPARATE,
        "mlp_layout": FUSED_GATE_UP if entry.fused_gate_up else entry.mlp,
        "experts": str(entry.experts), "shared_intermediate_size": str(entry.shared_intermediate),
        "sliding_window": str(entry.sliding_window), "sliding_layers": str(entry.sliding_layers),
        "decoder_layers": str(entry.decoder_layers), "experts_per_token": str(entry.experts_per_token),
        "norms": family.norm, "activation_impl": family.activation, "experts_impl": family.experts,
        "softmax_fp32": _flag(family.softmax_fp32), "qk_norm": _flag(entry.qk_norm),
        "post_norms": _flag(entry.norms_per_layer == 4), "softcap": _flag(family.softcap),
        "sinks": _flag(entry.sinks),
        "relative_positions": _flag(entry.relative_buckets > 0), "mel_bins": str(entry.mel_bins),
        "parallel_block": _flag(entry.norms_per_layer == 1), "embed_norm": _flag(entry.embed_norm),
        "loss_fp32": _flag(family.loss_fp32), "tied_embeddings": _flag(entry.tied),
        # What the encoder reads: Whisper's 1500 frames (30 s of audio); T5's pre-training input length.
        "encoder_sequence": str(entry.encoder_positions or (T5_INPUT if entry.decoder_layers else 0)),
        "linear_bias": ("all" if entry.k_bias else "all_but_k") if entry.bias else "qkv" if entry.qkv_bias else "none",
        "model_biases": str(entry.biases()),
        "dense_layers": str(entry.layers - entry.moe_layers if entry.moe else 0),
        "dense_intermediate_size": str(entry.intermediate if entry.moe and entry.moe_layers < entry.layers else 0),
        "q_lora_rank": str(entry.q_lora_rank), "kv_lora_rank": str(entry.kv_lora_rank),
        "qk_rope_head_dim": str(entry.rope_dim), "qk_nope_head_dim": str(entry.nope_dim),
        "v_head_dim": str(entry.v_head_dim),
        # How Transformers stores the experts and the router (what PEFT's "all-linear" can reach).
        "moe_modules": (PARAMETER_EXPERTS if entry.family == "gpt-oss" else PARAMETER_ROUTER if entry.mla
                        else LINEAR_EXPERTS),
    }


def preset(model_id: str, group: str = MODEL_GROUP, head_dim: bool = False) -> Preset:
    """A catalogue entry as a calculator's preset button (the calculator takes the fields it has); ``head_dim``:
    always fill the head dimension (for a page without the hidden size to derive it from)."""
    entry = model(model_id)
    texts = field_texts(entry)
    if head_dim:
        texts["head_dim"] = str(entry.dim)
    return Preset(entry.id, entry.label, texts, group, section=entry.family)


def presets_for(tag: str, head_dim: bool = False) -> tuple[Preset, ...]:
    """The catalogue's models tagged for a page, in the catalogue's order."""
    return tuple(preset(entry.id, head_dim=head_dim) for entry in offered(tag))
