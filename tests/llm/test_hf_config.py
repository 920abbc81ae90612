"""A pasted config.json read into an architecture (``calculator/llm/hf_config.py``)."""

from __future__ import annotations

import json

import pytest

from calculator.llm import hf_config
from tests.conftest import ROOT
from tests.pages.step_record import SETUPS

# Real configs whose models Transformers built (tools/measure_step.py recorded the exact parameter count).
TRACED = {setup["model"]["hf_id"]: setup["model"] for setup in SETUPS if setup["setup"]["method"] == "full"}


@pytest.mark.parametrize("hf_id", sorted(TRACED))
def test_a_real_config_gives_the_count_transformers_builds(hf_id: str) -> None:
    model = TRACED[hf_id]
    reading = hf_config.read(json.dumps({**model["config"], "model_type": model["model_type"]}))
    assert reading.error == "" and reading.architecture is not None
    assert reading.architecture.parameters() == model["parameters"]


def test_a_nested_text_config_is_the_language_model() -> None:
    inner = {**TRACED["meta-llama/Llama-3.2-1B"]["config"], "model_type": "llama"}
    reading = hf_config.read(json.dumps({"model_type": "mistral3", "text_config": inner, "vision_config": {}}))
    assert reading.architecture is not None
    assert reading.architecture.parameters() == TRACED["meta-llama/Llama-3.2-1B"]["parameters"]


@pytest.mark.parametrize(("text", "message"), [
    ("{", "Non è un JSON valido"),
    ("[1, 2]", "oggetto JSON"),
    ('{"model_type": "llama", "hidden_size": 64}', "Manca la chiave «num_hidden_layers»"),
    ('{"num_hidden_layers": "2", "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10}',
     "deve essere un intero"),
    ("{" + " " * 1_000_001 + "}", "troppo lungo"),
])
def test_what_cannot_be_read_says_why(text: str, message: str) -> None:
    reading = hf_config.read(text)
    assert reading.architecture is None and message in reading.error


def test_notes_for_unknown_families_unmodelled_features_and_explicit_head_dim() -> None:
    base = {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
            "intermediate_size": 128, "vocab_size": 100}
    unknown = hf_config.read(json.dumps({**base, "model_type": "brandnew", "frobnicate": 3}))
    assert any("brandnew" in note for note in unknown.notes)
    assert any("frobnicate" in note for note in unknown.notes)
    deepseek = hf_config.read(json.dumps({**base, "model_type": "deepseek_v3"}))
    assert any("latente" in note for note in deepseek.notes)
    explicit = hf_config.read(json.dumps({**base, "model_type": "qwen3", "head_dim": 32}))
    assert explicit.architecture is not None and explicit.architecture.dim == 32
    assert any("head_dim = 32" in note for note in explicit.notes)
    derived = hf_config.read(json.dumps({**base, "model_type": "llama"}))
    assert derived.architecture is not None and derived.architecture.dim == 16 and derived.notes == []


# Configs as Transformers writes them (the keys each family's config.json uses), for catalogue models whose count
# the publisher states: the reader must give that count.
FAMILY_CONFIGS = {
    "gpt2": {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257,
             "n_positions": 1024, "n_inner": None, "activation_function": "gelu_new"},
    "opt-350m": {"model_type": "opt", "num_hidden_layers": 24, "hidden_size": 1024, "ffn_dim": 4096,
                 "num_attention_heads": 16, "vocab_size": 50272, "max_position_embeddings": 2048,
                 "word_embed_proj_dim": 512, "do_layer_norm_before": False},
    "bloom-560m": {"model_type": "bloom", "n_layer": 24, "hidden_size": 1024, "n_head": 16, "vocab_size": 250880},
    "falcon-7b": {"model_type": "falcon", "num_hidden_layers": 32, "hidden_size": 4544, "num_attention_heads": 71,
                  "vocab_size": 65024, "multi_query": True, "parallel_attn": True, "bias": False,
                  "new_decoder_architecture": False},
    "t5-large": {"model_type": "t5", "num_layers": 24, "num_decoder_layers": 24, "d_model": 1024, "d_ff": 4096,
                 "d_kv": 64, "num_heads": 16, "vocab_size": 32128, "feed_forward_proj": "relu"},
    "flan-t5-large": {"model_type": "t5", "num_layers": 24, "num_decoder_layers": 24, "d_model": 1024, "d_ff": 2816,
                      "d_kv": 64, "num_heads": 16, "vocab_size": 32128, "feed_forward_proj": "gated-gelu",
                      "tie_word_embeddings": False},
    "whisper-small": {"model_type": "whisper", "encoder_layers": 12, "decoder_layers": 12, "d_model": 768,
                      "encoder_ffn_dim": 3072, "decoder_ffn_dim": 3072, "encoder_attention_heads": 12,
                      "decoder_attention_heads": 12, "vocab_size": 51865, "num_mel_bins": 80,
                      "max_source_positions": 1500, "max_target_positions": 448},
    "phi-3-mini": {"model_type": "phi3", "num_hidden_layers": 32, "hidden_size": 3072, "intermediate_size": 8192,
                   "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32064,
                   "tie_word_embeddings": False, "sliding_window": 2047},
    "gemma-2-2b": {"model_type": "gemma2", "num_hidden_layers": 26, "hidden_size": 2304, "intermediate_size": 9216,
                   "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 256000,
                   "sliding_window": 4096},
    "gemma-3-1b": {"model_type": "gemma3_text", "num_hidden_layers": 26, "hidden_size": 1152,
                   "intermediate_size": 6912, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
                   "vocab_size": 262144, "sliding_window": 512, "sliding_window_pattern": 6},
    "mixtral-8x7b": {"model_type": "mixtral", "num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
                     "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "num_local_experts": 8,
                     "num_experts_per_tok": 2, "tie_word_embeddings": False},
    "qwen1.5-moe-a2.7b": {"model_type": "qwen2_moe", "num_hidden_layers": 24, "hidden_size": 2048,
                          "intermediate_size": 5632, "num_attention_heads": 16, "num_key_value_heads": 16,
                          "vocab_size": 151936, "num_experts": 60, "num_experts_per_tok": 4,
                          "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
                          "tie_word_embeddings": False},
    "qwen3-8b": {"model_type": "qwen3", "num_hidden_layers": 36, "hidden_size": 4096, "intermediate_size": 12288,
                 "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
                 "tie_word_embeddings": False, "attention_bias": False},
    "qwen3-30b-a3b": {"model_type": "qwen3_moe", "num_hidden_layers": 48, "hidden_size": 2048,
                      "intermediate_size": 6144, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
                      "vocab_size": 151936, "num_experts": 128, "num_experts_per_tok": 8,
                      "moe_intermediate_size": 768, "tie_word_embeddings": False},
}


@pytest.mark.parametrize("model_id", sorted(FAMILY_CONFIGS))
def test_each_family_reads_to_the_publishers_count(model_id: str) -> None:
    from calculator.llm.catalogue import model

    reading = hf_config.read(json.dumps(FAMILY_CONFIGS[model_id]))
    assert reading.error == "" and reading.architecture is not None, reading.error
    assert reading.architecture.parameters() == model(model_id).stated_parameters


# The 2025 families, each with the keys of its config.json that give the shape (values as published at the model's
# config.json, the URL of its catalogue entry): the reader gives the count Transformers builds
# (tests/data/peft_counts.json) and the architecture features the pages count.
GPT_OSS_LAYERS = ["sliding_attention", "full_attention"] * 12
NEW_FAMILY_CONFIGS: dict[str, dict[str, object]] = {
    "gpt-oss-20b": {"model_type": "gpt_oss", "num_hidden_layers": 24, "hidden_size": 2880, "intermediate_size": 2880,
                    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 201088,
                    "num_local_experts": 32, "num_experts_per_tok": 4, "experts_per_token": 4, "attention_bias": True,
                    "sliding_window": 128, "layer_types": GPT_OSS_LAYERS, "tie_word_embeddings": False,
                    "swiglu_limit": 7.0, "initial_context_length": 4096, "rope_theta": 150000},
    "deepseek-v2-lite": {"model_type": "deepseek_v2", "num_hidden_layers": 27, "hidden_size": 2048,
                         "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_attention_heads": 16,
                         "num_key_value_heads": 16, "vocab_size": 102400, "n_routed_experts": 64, "n_shared_experts": 2,
                         "num_experts_per_tok": 6, "first_k_dense_replace": 1, "moe_layer_freq": 1,
                         "q_lora_rank": None, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
                         "v_head_dim": 128, "tie_word_embeddings": False, "topk_method": "greedy"},
    "deepseek-v3": {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168,
                    "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_attention_heads": 128,
                    "num_key_value_heads": 128, "vocab_size": 129280, "n_routed_experts": 256, "n_shared_experts": 1,
                    "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1, "q_lora_rank": 1536,
                    "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
                    "num_nextn_predict_layers": 1, "tie_word_embeddings": False, "topk_method": "noaux_tc"},
    "olmo-2-7b": {"model_type": "olmo2", "num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 11008,
                  "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 100352,
                  "tie_word_embeddings": False, "attention_bias": False},
    "olmo-2-13b": {"model_type": "olmo2", "num_hidden_layers": 40, "hidden_size": 5120, "intermediate_size": 13824,
                   "num_attention_heads": 40, "num_key_value_heads": 40, "vocab_size": 100352,
                   "tie_word_embeddings": False},
    "smollm3-3b": {"model_type": "smollm3", "num_hidden_layers": 36, "hidden_size": 2048, "intermediate_size": 11008,
                   "num_attention_heads": 16, "num_key_value_heads": 4, "vocab_size": 128256,
                   "tie_word_embeddings": True, "no_rope_layer_interval": 4, "use_sliding_window": False,
                   "sliding_window": None},
}


@pytest.mark.parametrize("model_id", sorted(NEW_FAMILY_CONFIGS))
def test_the_2025_families_read_to_the_count_transformers_builds(model_id: str) -> None:
    from calculator.llm.catalogue import model
    from calculator.pages.config_paste import config_paster, same_model

    reading = hf_config.read(json.dumps(NEW_FAMILY_CONFIGS[model_id]))
    arch, entry = reading.architecture, model(model_id)
    assert reading.error == "" and arch is not None, reading.error
    assert arch.parameters() == entry.parameters() and entry.agrees_with_publisher(arch.parameters())
    assert same_model(arch) == entry
    assert not any("Chiavi non usate" in note for note in reading.notes)
    pasted = config_paster()(json.dumps(NEW_FAMILY_CONFIGS[model_id]))
    agrees = "(uguale, alle cifre che dà)" if entry.stated_rounding > 1 else "(uguale)"
    assert any(agrees in note for note in pasted.notes)
    assert pasted.fields["kv_lora_rank"] == str(entry.kv_lora_rank)
    assert pasted.fields["dense_layers"] == str(entry.layers - entry.moe_layers if entry.moe else 0)


ALL_FAMILY_CONFIGS = {**FAMILY_CONFIGS, **NEW_FAMILY_CONFIGS}


@pytest.mark.parametrize("model_id", sorted(ALL_FAMILY_CONFIGS))
def test_a_config_reads_to_the_catalogues_sliding_window(model_id: str) -> None:
    """The window and how many layers use it, as the catalogue's button fills them on the time page (Phi-3 mini 4k:
    2047 tokens on every layer, as its config.json states and Transformers 4.57 applies)."""
    from calculator.llm.catalogue import model

    arch = hf_config.read(json.dumps(ALL_FAMILY_CONFIGS[model_id])).architecture
    entry = model(model_id)
    assert arch is not None
    assert (arch.sliding_window, arch.sliding_layers) == (entry.sliding_window, entry.sliding_layers)


def test_latent_attention_dense_layers_sinks_and_windows_are_read() -> None:
    v3 = hf_config.read(json.dumps(NEW_FAMILY_CONFIGS["deepseek-v3"])).architecture
    assert v3 is not None and v3.mla and v3.q_lora_rank == 1536 and v3.dim == 192 and v3.moe_layers == 58
    lite = hf_config.read(json.dumps(NEW_FAMILY_CONFIGS["deepseek-v2-lite"])).architecture
    assert lite is not None and lite.q_lora_rank == 0 and lite.shared_intermediate == 2 * 1408
    oss = hf_config.read(json.dumps(NEW_FAMILY_CONFIGS["gpt-oss-20b"])).architecture
    assert oss is not None and oss.sinks and oss.bias and oss.sliding_layers == 12 and oss.sliding_window == 128
    # Llama 4: the language model nested in text_config, experts every other layer, a shared expert.
    scout = {"model_type": "llama4", "tie_word_embeddings": False, "text_config": {
        "model_type": "llama4_text", "num_hidden_layers": 48, "hidden_size": 5120, "intermediate_size": 8192,
        "intermediate_size_mlp": 16384, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "vocab_size": 202048, "num_local_experts": 16, "num_experts_per_tok": 1, "interleave_moe_layer_step": 1,
        "use_qk_norm": True}}
    arch = hf_config.read(json.dumps(scout)).architecture
    # Transformers 4.57.1's Llama4ForCausalLM from this text config, on the meta device: 107,769,861,120.
    assert arch is not None and arch.parameters() == 107_769_861_120
    scout["text_config"]["interleave_moe_layer_step"] = 2  # type: ignore[index]
    arch = hf_config.read(json.dumps(scout)).architecture
    assert arch is not None and arch.moe_layers == 24


def test_gemma_3_image_text_configs_leave_sizes_to_transformers_defaults() -> None:
    """google/gemma-3-4b-it's config.json (tests/data/configs/gemma-3-4b.json) writes in text_config only what differs
    from Gemma3TextConfig's defaults: the heads, head_dim and vocabulary come from Transformers, and a note says so;
    one layer in six is global when the config gives no pattern."""
    published = json.loads((ROOT / "tests" / "data" / "configs" / "gemma-3-4b.json").read_text(encoding="utf-8"))
    reading = hf_config.read(json.dumps(published))
    arch = reading.architecture
    assert arch is not None and (arch.heads, arch.kv_heads, arch.dim, arch.vocab) == (8, 4, 256, 262_208)
    assert arch.sliding_layers == 34 - 34 // 6
    assert any("Il config non scrive 5 valori" in note and "num_attention_heads = 8" in note for note in reading.notes)
    # What the config does write wins over a default.
    published["text_config"]["num_attention_heads"] = 16
    arch = hf_config.read(json.dumps(published)).architecture
    assert arch is not None and arch.heads == 16


def test_smollm3_ties_its_head_when_the_config_does_not_say() -> None:
    """HuggingFaceTB/SmolLM3-3B's config.json writes no tie_word_embeddings; Transformers ties (PretrainedConfig's
    default), and so does the reader, saying so; a config that unties is read as written."""
    published = json.loads((ROOT / "tests" / "data" / "configs" / "smollm3-3b.json").read_text(encoding="utf-8"))
    reading = hf_config.read(json.dumps(published))
    assert reading.architecture is not None and reading.architecture.tied
    assert any("tie_word_embeddings = true" in note and "un valore" in note for note in reading.notes)
    untied = hf_config.read(json.dumps({**published, "tie_word_embeddings": False})).architecture
    assert untied is not None and not untied.tied


def test_qwen_experts_every_few_layers_and_dense_layers_listed() -> None:
    """Qwen's MoE configs place experts with decoder_sparse_step (1 in every published one) and list dense layers in
    mlp_only_layers (empty in every published one): a step of 2 gives experts in every other layer, as Transformers
    builds them; a listed layer cannot be said yet, and a note says so."""
    config = {**FAMILY_CONFIGS["qwen3-30b-a3b"], "decoder_sparse_step": 1, "mlp_only_layers": []}
    reading = hf_config.read(json.dumps(config))
    assert reading.architecture is not None and reading.architecture.moe_layers == 48
    assert not any("Chiavi non usate" in note or "mlp_only_layers" in note for note in reading.notes)
    halved = hf_config.read(json.dumps({**config, "decoder_sparse_step": 2})).architecture
    assert halved is not None and halved.moe_layers == 24
    listed = hf_config.read(json.dumps({**config, "mlp_only_layers": [0, 47]}))
    assert any("mlp_only_layers elenca 2 strati" in note for note in listed.notes)


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 100_000, "annidato"),
    ('{"num_hidden_layers": NaN, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10}', "non NaN"),
    ('{"num_hidden_layers": Infinity, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10}',
     "non Infinity"),
    ('{"num_hidden_layers": -2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10}', "positivo"),
    ('{"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 0, "vocab_size": 10}', "positivo, non 0"),
    ('{"model_type": "llama", "num_layers": 2, "d_model": 64, "num_heads": 4, "d_ff": 8}', "vocab_size"),
    ('{"model_type": "deepseek_v3", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,'
     ' "vocab_size": 10, "n_routed_experts": 4, "moe_layer_freq": 2}', "moe_layer_freq"),
])
def test_hostile_configs_get_an_italian_message(text: str, message: str) -> None:
    reading = hf_config.read(text)
    assert reading.architecture is None and message in reading.error
