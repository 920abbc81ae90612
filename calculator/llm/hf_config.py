"""A model's ``config.json``, as Transformers writes it, read into an ``Architecture``; what it could not read or
found contradictory is said in Italian notes. Nothing leaves the reader's browser: this runs in the worker.

The keys differ by family (``num_hidden_layers``/``n_layer``/``num_layers``, ``hidden_size``/``n_embd``/``d_model``,
…); multimodal configs nest the language model in ``text_config``. A config of an unknown ``model_type`` is read
key by key where the standard keys exist, with a note.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .architectures import GATED, PLAIN, Architecture

MAX_CHARS = 1_000_000  # a config.json is a few kB; anything much larger is not one

# model_type → family (the traits the activation page knows by family) and what the family's layers look like.
LLAMA_LIKE = {"llama": "Llama", "mistral": "Mistral", "qwen2": "Qwen", "qwen3": "Qwen", "olmo2": "OLMo",
              "smollm3": "SmolLM", "mixtral": "Mistral", "qwen2_moe": "Qwen", "qwen3_moe": "Qwen", "olmoe": "OLMo",
              "granite": "Granite"}
LLAMA4 = ("llama4", "llama4_text")
FAMILIES = {"gpt_oss": "gpt-oss", "deepseek_v2": "DeepSeek", "deepseek_v3": "DeepSeek", "llama4": "Llama",
            "llama4_text": "Llama"}
GEMMA = {"gemma": "Gemma", "gemma2": "Gemma", "gemma3": "Gemma", "gemma3_text": "Gemma"}
PHI = {"phi3": "Phi", "phimoe": "Phi"}
KNOWN = {*LLAMA_LIKE, *GEMMA, *PHI, "gpt_oss", "deepseek_v2", "deepseek_v3", "llama4", "llama4_text", "falcon",
         "gpt2", "opt", "bloom", "t5", "mt5", "whisper", "mistral3", "phi4"}
# What the activation page does not model yet, by model_type: the parameter and LoRA counts follow these layers
# exactly; the activation estimate treats them as standard ones.
UNMODELLED = {
    "deepseek_v2": "l'attenzione latente multi-testa (MLA)",
    "deepseek_v3": "l'attenzione latente multi-testa (MLA)",
    "llama4": "l'attenzione a blocchi (attention_chunk_size) e gli strati senza RoPE",
    "llama4_text": "l'attenzione a blocchi (attention_chunk_size) e gli strati senza RoPE",
    "gpt_oss": "i «sink» dell'attenzione e gli strati a finestra scorrevole alternati",
    "gemma3": "gli strati a finestra scorrevole (contano solo con l'attenzione eager)",
    "gemma3_text": "gli strati a finestra scorrevole (contano solo con l'attenzione eager)",
    "gemma2": "gli strati a finestra scorrevole (contano solo con l'attenzione eager)",
}


@dataclass
class Reading:
    """What a config gave: the architecture (None if it cannot be read), the notes, and an error message."""

    architecture: Architecture | None = None
    notes: list[str] = field(default_factory=list)
    error: str = ""
    model_type: str = ""
    dtype: str = ""


class _Keys:
    """The config's values, looked up under each family's names; every key read is remembered."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.used: set[str] = set()

    def get(self, *names: str, default: Any = None) -> Any:
        for name in names:
            if name in self.config and self.config[name] is not None:
                self.used.add(name)
                return self.config[name]
        return default

    def integer(self, *names: str, default: int | None = None, positive: bool = False) -> int:
        value = self.get(*names)
        if value is None:
            if default is None:
                raise _MissingKeyError(names[0])
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < (1 if positive else 0):
            raise _BadValueError(names[0], value, positive)
        return value


class _MissingKeyError(Exception):
    pass


class _BadValueError(Exception):
    pass


def read(text: str) -> Reading:
    """Read a config.json's text; never raises."""
    if len(text) > MAX_CHARS:
        return Reading(error="Il testo è troppo lungo per un config.json (oltre un milione di caratteri).")
    try:
        config = json.loads(text)
    except RecursionError:
        return Reading(error="Il JSON è annidato troppo in profondità per essere un config.json.")
    except ValueError as problem:
        line = getattr(problem, "lineno", None)
        where = f" (riga {line})" if line else ""
        return Reading(error=f"Non è un JSON valido{where}: incolla il contenuto di config.json così com'è.")
    if not isinstance(config, dict):
        return Reading(error="Un config.json è un oggetto JSON tra parentesi graffe.")
    outer_type = str(config.get("model_type") or "")
    if isinstance(config.get("text_config"), dict):  # multimodal: the language model is nested
        inner = dict(config["text_config"])
        inner.setdefault("model_type", outer_type)
        for shared in ("tie_word_embeddings", "torch_dtype", "dtype"):
            if shared in config and shared not in inner:
                inner[shared] = config[shared]
        config = inner
    defaulted = _with_defaults(config, str(config.get("model_type") or outer_type))
    keys = _Keys(config)
    model_type = str(keys.get("model_type", default="") or outer_type)
    reading = Reading(model_type=model_type, dtype=str(keys.get("torch_dtype", "dtype", default="") or ""))
    if defaulted:
        shown = ", ".join(f"{key} = {json.dumps(value)}" for key, value in defaulted.items())
        which = "un valore: vale quello predefinito" if len(defaulted) == 1 else \
            f"{len(defaulted)} valori: valgono quelli predefiniti"
        reading.notes.append(f"Il config non scrive {which} di Transformers per {model_type} ({shown}).")
    try:
        reading.architecture = _architecture(keys, model_type)
    except _MissingKeyError as missing:
        reading.error = f"Manca la chiave «{missing.args[0]}»: senza non si conosce la forma del modello."
        return reading
    except _BadValueError as bad:
        kind = "positivo" if len(bad.args) > 2 and bad.args[2] else "non negativo"
        shown = json.dumps(bad.args[1], ensure_ascii=False)
        reading.error = f"La chiave «{bad.args[0]}» deve essere un intero {kind}, non {shown[:40]}."
        return reading
    reading.notes.extend(_notes(keys, reading, outer_type or model_type))
    return reading


# What Transformers fills in when a config leaves a key out, for the families whose published configs rely on it: Gemma
# 3's image–text checkpoints (4B, 12B, 27B) write only the sizes that differ from Gemma3TextConfig's defaults
# (Transformers 4.57.1, models/gemma3/configuration_gemma3.py).
DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {"vocab_size": 262_208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
                    "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "tie_word_embeddings": True,
                    "sliding_window": 4096},
}
DEFAULTS["gemma3"] = DEFAULTS["gemma3_text"]
# SmolLM3's config class leaves tie_word_embeddings to PretrainedConfig, which ties; HuggingFaceTB/SmolLM3-3B's
# config.json does not write it (the model ties its head to the embeddings).
DEFAULTS["smollm3"] = {"tie_word_embeddings": True}


def _with_defaults(config: dict[str, Any], model_type: str) -> dict[str, Any]:
    """Fill the keys the config leaves to Transformers' defaults, in place; the ones filled."""
    filled = {key: value for key, value in DEFAULTS.get(model_type, {}).items() if config.get(key) is None}
    config.update(filled)
    return filled


def _architecture(keys: _Keys, model_type: str) -> Architecture:
    arch = _by_family(keys, model_type)
    for name, value in (("layers", arch.layers), ("hidden_size", arch.hidden), ("num_attention_heads", arch.heads),
                        ("num_key_value_heads", arch.kv_heads), ("vocab_size", arch.vocab)):
        if value < 1:  # no model has none of these
            raise _BadValueError(name, value, True)
    return arch


def _by_family(keys: _Keys, model_type: str) -> Architecture:
    if model_type in ("t5", "mt5"):
        return _t5(keys)
    if model_type == "whisper":
        return _whisper(keys)
    if model_type == "gpt2":
        return _gpt2(keys)
    if model_type == "opt":
        return _opt(keys)
    if model_type == "bloom":
        return _bloom(keys)
    if model_type == "falcon":
        return _falcon(keys)
    return _decoder(keys, model_type)


def _decoder(keys: _Keys, model_type: str) -> Architecture:
    """Llama-like decoders (and the unknown ones, by the standard keys): RMSNorm, gated MLP, grouped attention;
    with the mixtures of experts, latent attention and sinks of DeepSeek, Llama 4 and gpt-oss."""
    layers = keys.integer("num_hidden_layers", "n_layer", "num_layers", positive=True)
    hidden = keys.integer("hidden_size", "n_embd", "d_model", positive=True)
    heads = keys.integer("num_attention_heads", "n_head", "num_heads", positive=True)
    kv_heads = keys.integer("num_key_value_heads", "num_kv_heads", default=heads, positive=True)
    intermediate = keys.integer("intermediate_size", "ffn_dim", "n_inner", default=4 * hidden)
    vocab = keys.integer("vocab_size", positive=True)
    head_dim = keys.integer("head_dim", default=0)
    experts = keys.integer("num_local_experts", "num_experts", "n_routed_experts", default=0)
    chosen = keys.integer("num_experts_per_tok", "experts_per_token", "moe_topk", default=0) if experts else 0
    expert_inner = keys.integer("moe_intermediate_size", default=intermediate) if experts else 0
    shared = keys.integer("shared_expert_intermediate_size", default=0)
    shared_experts = keys.integer("n_shared_experts", default=0)
    if shared_experts and not shared:
        shared = shared_experts * expert_inner
    moe = _moe_layout(keys, model_type, intermediate) if experts else {}
    if model_type in LLAMA4:  # a shared expert of each expert's size; dense layers of intermediate_size_mlp
        shared = expert_inner
    gemma = model_type in GEMMA
    phi = model_type in PHI or model_type == "phi4"
    family = LLAMA_LIKE.get(model_type) or GEMMA.get(model_type) or PHI.get(model_type) or \
        FAMILIES.get(model_type) or model_type
    gpt_oss = model_type == "gpt_oss"
    sliding = keys.integer("sliding_window", default=0) if _sliding(keys) else 0
    q_rank, kv_rank, rope, nope, value = _latent(keys)
    return Architecture(
        id="config", label="Modello da config.json", layers=layers, hidden=hidden,
        intermediate=moe.get("intermediate", intermediate), heads=heads, kv_heads=kv_heads, vocab=vocab,
        source="config.json", family=family, head_dim=head_dim,
        mlp=GATED, tied=bool(keys.get("tie_word_embeddings", default=gemma)),
        qkv_bias=not gpt_oss and bool(keys.get("attention_bias", "qkv_bias",
                                               default=model_type in ("qwen2", "qwen2_moe"))),
        bias=gpt_oss and bool(keys.get("attention_bias", default=True)),
        qk_norm=model_type in ("qwen3", "qwen3_moe", "gemma3", "gemma3_text", "olmo2", "olmoe"),
        qk_norm_full=model_type in ("olmo2", "olmoe"),
        norms_per_layer=4 if model_type in ("gemma2", "gemma3", "gemma3_text") else 2,
        fused_qkv="qkv_proj" if phi else "", fused_gate_up="gate_up_proj" if phi or gpt_oss else "",
        experts=experts, experts_per_token=chosen, expert_intermediate=expert_inner, shared_intermediate=shared,
        shared_gate=bool(shared) and model_type == "qwen2_moe",
        dense_layers=moe.get("dense_layers", 0), moe_every=moe.get("moe_every", 1), sinks=gpt_oss,
        sigmoid_router=model_type == "deepseek_v3",
        sliding_window=sliding, sliding_layers=_sliding_layers(keys, layers, model_type) if sliding else 0,
        q_lora_rank=q_rank, kv_lora_rank=kv_rank, rope_dim=rope, nope_dim=nope, v_head_dim=value)


def _moe_layout(keys: _Keys, model_type: str, intermediate: int) -> dict[str, int]:
    """Where a mixture of experts keeps dense layers, and their size."""
    if model_type in LLAMA4:
        return {"moe_every": keys.integer("interleave_moe_layer_step", default=1),
                "intermediate": keys.integer("intermediate_size_mlp", default=intermediate)}
    dense = keys.integer("first_k_dense_replace", default=0)
    every = keys.integer("moe_layer_freq", default=1)
    if every != 1:
        raise _BadValueError("moe_layer_freq", every)
    # Qwen's mixtures of experts: experts in every decoder_sparse_step-th layer (as Llama 4's interleaving), dense
    # layers of intermediate_size between; the layers listed in mlp_only_layers are dense too (said in a note).
    keys.get("mlp_only_layers")
    return {"dense_layers": dense, "moe_every": keys.integer("decoder_sparse_step", default=1, positive=True)}


def _latent(keys: _Keys) -> tuple[int, int, int, int, int]:
    """Multi-head latent attention's sizes where the config has them: q_lora_rank, kv_lora_rank, the rotary and
    the other part of a query/key head, a value head; zeros for ordinary attention."""
    rank = keys.integer("kv_lora_rank", default=0)
    if not rank:
        return 0, 0, 0, 0, 0
    return (keys.integer("q_lora_rank", default=0), rank, keys.integer("qk_rope_head_dim", positive=True),
            keys.integer("qk_nope_head_dim"), keys.integer("v_head_dim", positive=True))


def _sliding(keys: _Keys) -> bool:
    """Whether some layers attend only to a window (Qwen's use_sliding_window is off unless set)."""
    if keys.config.get("use_sliding_window") is False:
        return False
    return bool(keys.config.get("sliding_window"))


def _sliding_layers(keys: _Keys, layers: int, model_type: str) -> int:
    """How many layers use the window: layer_types when the config lists them; else Gemma 3's pattern (one global
    layer in ``sliding_window_pattern``), Gemma 2's alternation (the even layers), or every layer (Mistral)."""
    kinds = keys.get("layer_types")
    if isinstance(kinds, list):
        return sum(1 for kind in kinds if kind == "sliding_attention")
    pattern = keys.config.get("sliding_window_pattern", 6 if model_type in ("gemma3", "gemma3_text") else None)
    if isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 0:
        return layers - layers // pattern
    return (layers + 1) // 2 if model_type == "gemma2" else layers


def _gpt2(keys: _Keys) -> Architecture:
    hidden = keys.integer("n_embd", "hidden_size")
    return Architecture(
        "config", "Modello da config.json", keys.integer("n_layer"), hidden,
        keys.integer("n_inner", default=4 * hidden), keys.integer("n_head"), keys.integer("n_head"),
        keys.integer("vocab_size"), "config.json", "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True,
        positions=keys.integer("n_positions", default=1024), fused_qkv="c_attn")


def _opt(keys: _Keys) -> Architecture:
    hidden = keys.integer("hidden_size")
    projection = keys.integer("word_embed_proj_dim", default=hidden)
    return Architecture(
        "config", "Modello da config.json", keys.integer("num_hidden_layers"), hidden, keys.integer("ffn_dim"),
        keys.integer("num_attention_heads"), keys.integer("num_attention_heads"), keys.integer("vocab_size"),
        "config.json", "OPT", mlp=PLAIN, tied=True, bias=True, norm_bias=True,
        positions=keys.integer("max_position_embeddings", default=2048) + 2,
        embed_proj=projection if projection != hidden else 0,
        final_norm=bool(keys.get("do_layer_norm_before", default=True)) and projection == hidden)


def _bloom(keys: _Keys) -> Architecture:
    hidden = keys.integer("hidden_size", "n_embed")
    heads = keys.integer("n_head", "num_attention_heads")
    return Architecture(
        "config", "Modello da config.json", keys.integer("n_layer", "num_hidden_layers"), hidden, 4 * hidden, heads,
        heads, keys.integer("vocab_size"), "config.json", "BLOOM", mlp=PLAIN, tied=True, bias=True, norm_bias=True,
        embed_norm=True, fused_qkv="query_key_value")


def _falcon(keys: _Keys) -> Architecture:
    hidden = keys.integer("hidden_size")
    heads = keys.integer("num_attention_heads", "n_head")
    kv_heads = 1 if keys.get("multi_query", default=True) and not keys.get("new_decoder_architecture") else \
        keys.integer("num_kv_heads", default=heads)
    return Architecture(
        "config", "Modello da config.json", keys.integer("num_hidden_layers", "n_layer"), hidden,
        keys.integer("ffn_hidden_size", default=4 * hidden), heads, kv_heads, keys.integer("vocab_size"),
        "config.json", "Falcon", mlp=PLAIN, tied=bool(keys.get("tie_word_embeddings", default=True)),
        norm_bias=True, bias=bool(keys.get("bias", default=False)),
        norms_per_layer=1 if keys.get("parallel_attn", default=True) else 2, fused_qkv="query_key_value")


def _t5(keys: _Keys) -> Architecture:
    gated = str(keys.get("feed_forward_proj", default="relu")).startswith("gated")
    layers = keys.integer("num_layers")
    return Architecture(
        "config", "Modello da config.json", layers, keys.integer("d_model"), keys.integer("d_ff"),
        keys.integer("num_heads"), keys.integer("num_heads"), keys.integer("vocab_size"), "config.json", "T5",
        head_dim=keys.integer("d_kv"), mlp=GATED if gated else PLAIN,
        tied=bool(keys.get("tie_word_embeddings", default=not gated)),
        decoder_layers=keys.integer("num_decoder_layers", default=layers),
        relative_buckets=keys.integer("relative_attention_num_buckets", default=32))


def _whisper(keys: _Keys) -> Architecture:
    return Architecture(
        "config", "Modello da config.json", keys.integer("encoder_layers"), keys.integer("d_model"),
        keys.integer("encoder_ffn_dim"), keys.integer("encoder_attention_heads"),
        keys.integer("encoder_attention_heads"), keys.integer("vocab_size"), "config.json", "Whisper", mlp=PLAIN,
        tied=True, bias=True, k_bias=False, norm_bias=True,
        positions=keys.integer("max_target_positions", default=448),
        encoder_positions=keys.integer("max_source_positions", default=1500),
        mel_bins=keys.integer("num_mel_bins", default=80), decoder_layers=keys.integer("decoder_layers"))


# Keys that describe training, generation or tokens, not the shape: read silently, never reported as unknown.
IGNORED = {
    "architectures", "model_type", "transformers_version", "torch_dtype", "dtype", "bos_token_id", "eos_token_id",
    "pad_token_id", "use_cache", "initializer_range", "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon",
    "rope_theta", "rope_scaling", "max_position_embeddings", "hidden_act", "attention_dropout", "hidden_dropout",
    "dropout", "dropout_rate", "activation_function", "resid_pdrop", "embd_pdrop", "attn_pdrop", "sliding_window",
    "use_sliding_window", "max_window_layers", "tie_word_embeddings", "output_router_logits",
    "router_aux_loss_coef", "decoder_start_token_id", "is_encoder_decoder", "text_config", "vision_config",
    "quantization_config", "_name_or_path", "auto_map", "id2label", "label2id", "task_specific_params",
    "attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar", "layer_types",
    "pretraining_tp", "mlp_bias", "norm_topk_prob", "head_dim", "partial_rotary_factor", "rope_local_base_freq",
    # Routing, rotary and numerics settings of the 2025 families: no weights of their own.
    "experts_per_token", "initial_context_length", "swiglu_limit", "aux_loss_alpha", "n_group", "topk_group",
    "topk_method", "scoring_func", "seq_aux", "routed_scaling_factor", "ep_size", "q_lora_rank", "use_qk_norm",
    "attention_chunk_size", "no_rope_layers", "no_rope_layer_interval", "interleave_moe_layer_step",
    "attn_temperature_tuning", "floor_scale", "attn_scale", "router_jitter_noise", "moe_layers",
    "sliding_window_pattern", "attention_bias", "first_k_dense_replace", "moe_layer_freq", "num_nextn_predict_layers",
    # Keys of the published configs of GPT-2 (its sequence-summary head, not built for language modelling; n_ctx, an
    # alias of n_positions), T5, Phi and Qwen2.5, found by pasting them (tests/data/configs): no weights of their own.
    "n_ctx", "summary_activation", "summary_first_dropout", "summary_proj_to_labels", "summary_type", "summary_use_proj",
    "initializer_factor", "n_positions", "output_past", "original_max_position_embeddings", "use_mrope",
}


def _notes(keys: _Keys, reading: Reading, model_type: str) -> list[str]:
    """What the reader should know: an unknown family, unmodelled features, keys not understood, contradictions."""
    notes: list[str] = []
    arch = reading.architecture
    if arch is None:
        return notes
    if model_type not in KNOWN:
        notes.append(f"model_type «{model_type or '(assente)'}» non è tra le famiglie note: letto chiave per chiave"
                     " dove le chiavi standard ci sono; controlla la forma.")
    if model_type in UNMODELLED:
        notes.append(f"La memoria delle attivazioni non modella ancora {UNMODELLED[model_type]}: lì la stima tratta"
                     " gli strati come standard ed è approssimata; il conteggio dei parametri li segue.")
    unknown = sorted(k for k in keys.config if k not in keys.used and k not in IGNORED and not k.startswith("_"))
    if unknown:
        shown = ", ".join(unknown[:8]) + (f" e altre {len(unknown) - 8}" if len(unknown) > 8 else "")
        notes.append(f"Chiavi non usate per la forma: {shown}.")
    dense_listed = keys.config.get("mlp_only_layers")
    if isinstance(dense_listed, list) and dense_listed:
        notes.append(f"mlp_only_layers elenca {len(dense_listed)} strati densi fra quelli con esperti: il conteggio"
                     " li tratta come strati con esperti, e quindi è approssimato.")
    if arch.kv_heads > arch.heads or (arch.kv_heads and arch.heads % arch.kv_heads):
        notes.append(f"Le teste chiave/valore ({arch.kv_heads}) non dividono le teste di attenzione ({arch.heads}):"
                     " il config è incoerente.")
    explicit = keys.config.get("head_dim")
    if explicit and arch.heads and explicit * arch.heads != arch.hidden:
        notes.append(f"head_dim = {explicit} è esplicito: le teste × head_dim ({arch.heads * explicit}) non sono la"
                     f" dimensione nascosta ({arch.hidden}), come in Gemma e Qwen3.")
    if keys.config.get("num_nextn_predict_layers"):
        notes.append("num_nextn_predict_layers: il modulo di predizione multi-token (MTP) è nei pesi pubblicati ma"
                     " non nel modello che Transformers costruisce, e non è contato.")
    if arch.mla:
        notes.append(f"Attenzione latente (MLA): chiavi e valori compressi in {arch.kv_lora_rank} valori"
                     f" (kv_lora_rank) più {arch.rope_dim} di RoPE condivisi.")
    if reading.dtype:
        notes.append(f"Pesi pubblicati in {reading.dtype} (torch_dtype).")
    return notes
