"""The LoRA page against figures PEFT's own documentation and examples printed.

Each case: a model of the catalogue, the LoraConfig the source used, and the line its
``print_trainable_parameters()`` printed. Sources are files of github.com/huggingface/peft at the
commit named (``PEFT``), or at the commit given in the case.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from calculator import CALCULATORS, respond
from calculator.llm.catalogue import model
from calculator.pages.lora import MODULES
from calculator.pages.presets import field_texts

from ..support.outputs import output_number

LORA = "parametri-lora"
PEFT = "huggingface/peft@5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40"
OLD_README = "huggingface/peft@759bb70acea8486b3a493792a5b6ba80b5217fb4:README.md"
PEFT_2023 = "huggingface/peft@462b65fe4582b7f5c3b565f9913f81fa01dc30a5"
# The LoRA tutorials of datawhalechina/self-llm: each notebook prints its LoraConfig and PEFT's line (r=8).
SELF_LLM = "datawhalechina/self-llm@0932a89b0fd8e7a9844874eceb8ec993d6570d78"
ALL_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def texts(model_id: str, rank: int, targets: tuple[str, ...], **extra: str) -> dict[str, str]:
    return {**field_texts(model(model_id)), **{m: "" for m in MODULES}, **{t: "on" for t in targets},
            "rank": str(rank), **extra}


def answer(model_id: str, rank: int, targets: tuple[str, ...], **extra: str) -> dict[str, Any]:
    values = {**CALCULATORS[LORA].defaults, **texts(model_id, rank, targets, **extra)}
    return respond({"calculator": LORA, "values": values})


def trainable_count(model_id: str, rank: int, targets: tuple[str, ...], **extra: str) -> Decimal:
    """The page's trainable parameters, as the number it computed (not the text it shows)."""
    return output_number(LORA, "trainable_parameters", texts(model_id, rank, targets, **extra))


# (source, model, r, target_modules as the calculator names them, extra fields, trainable, all params, %)
PRINTED = [
    # LoraConfig(r=16) with PEFT's default targets for Qwen2 (q_proj, v_proj); tied embeddings, q/k/v biases.
    (f"{PEFT}:README.md", "qwen2.5-3b", 16, ("q_proj", "v_proj"), {}, "3,686,400", "3,089,625,088", "0.1193"),
    # target_modules=["q_proj"], r=8; grouped-query attention, head_dim 64.
    (f"{PEFT}:docs/source/quicktour.md", "llama-3.2-1b", 8, ("q_proj",), {}, "524,288", "1,236,338,688", "0.0424"),
    # r=16 on q_proj, v_proj; OPT-350m projects 512-wide embeddings in and out. Printed before PEFT rounded to
    # four decimals: 0.472659014678278.
    (f"{PEFT}:docs/source/guides/peft_model_config.md", "opt-350m", 16, ("q_proj", "v_proj"), {},
     "1,572,864", "332,769,280", "0.4727"),
    # int8 weights are counted whole. Printed without separators: 8388608 / 6666862592 / 0.12582542214183376.
    (f"{PEFT}:examples/int8_training/Finetune_opt_bnb_peft.ipynb", "opt-6.7b", 16, ("q_proj", "v_proj"), {},
     "8,388,608", "6,666,862,592", "0.1258"),
    # Encoder–decoder: T5's "q" and "v" in the encoder's self-attention and the decoder's self- and
    # cross-attention (144 matrices). Printed: 4718592 / 787868672 / 0.5989059049678777.
    (f"{PEFT}:examples/int8_training/Finetune_flan_t5_large_bnb_peft.ipynb", "flan-t5-large", 16,
     ("q_proj", "v_proj"), {}, "4,718,592", "787,868,672", "0.5989"),
    # Speech: Whisper's encoder and decoder, r=32. Printed: 15728640 / 1559033600 / 1.0088711365810203.
    (f"{PEFT}:examples/int8_training/peft_bnb_whisper_large_v2_training.ipynb", "whisper-large-v2", 32,
     ("q_proj", "v_proj"), {}, "15,728,640", "1,559,033,600", "1.0089"),
    # The README's first example for years: mt0-large (mT5), r=8, default targets q and v.
    # Printed: 2359296 / 1231940608 / 0.19151053100118282.
    (OLD_README, "mt0-large", 8, ("q_proj", "v_proj"), {}, "2,359,296", "1,231,940,608", "0.1915"),
    # Mixtral with r=256 and target_modules q/k/v/o/gate_proj/up_proj/down_proj: Mixtral's experts are
    # named w1/w2/w3, so only the attention matches. 4-bit weights counted whole (PEFT multiplies Params4bit).
    (f"{PEFT}:examples/KappaTune/README.md (r=256 in experiments_kappatune_peft.py)", "mixtral-8x7b", 256,
     ("q_proj", "k_proj", "v_proj", "o_proj"), {}, "218,103,808", "46,920,896,512", "0.4648"),
    # embed_tokens and lm_head as LoRA targets after adding 27 tokens (vocabulary 32,027), r=64.
    (f"{PEFT}:examples/causal_language_modeling/peft_lora_clm_with_additional_tokens.ipynb", "mistral-7b", 64,
     ("q_proj", "v_proj", "embed_tokens", "lm_head"),
     {"vocab_size": "32027", "base_parameters": str(7_241_732_096 + 2 * 27 * 4096)},
     "31,886,720", "7,273,840,000", "0.4384"),
    # A fused projection: bigscience/bloomz-7b1 with LoraConfig(r=8) and PEFT's default target for BLOOM,
    # query_key_value, one matrix of 4,096 × 3 · 4,096 per layer. Printed: 3932160 / 7072948224 /
    # 0.055594355783029126 (a notebook removed from PEFT since).
    (f"{PEFT_2023}:examples/causal_language_modeling/peft_lora_clm_accelerate_big_model_inference.ipynb",
     "bloom-7b1", 8, ("qkv_proj",), {}, "3,932,160", "7,072,948,224", "0.0556"),
    # head_dim set by the config (256, with 8 query and 4 key/value heads on a 2,304-wide model): google/gemma-2-2b
    # for sequence classification on GLUE MRPC (2 labels), r=16 on q_proj and v_proj; the task type trains the
    # "score" head (2,304 × 2, no bias) through modules_to_save. The base of the classifier is the causal model
    # (its tied head counted once) plus the score head.
    (f"{PEFT}:examples/sequence_classification/LoRA-torchao-8bit.ipynb", "gemma-2-2b", 16, ("q_proj", "v_proj"),
     {"num_labels": "2", "base_parameters": str(2_614_341_888 + 2304 * 2)}, "3,199,488", "2,617,545,984", "0.1222"),
    # Experts: Qwen3-30B-A3B with the seven usual targets, r=8. Qwen's experts use the dense names, so gate_proj,
    # up_proj and down_proj adapt each of the 128 experts of the 48 layers; the router, "gate", is not matched.
    (f"{SELF_LLM}:models/Qwen3/06-Qwen3-30B-A3B 微调及 SwanLab 可视化记录.ipynb", "qwen3-30b-a3b", 8, ALL_LINEAR, {},
     "421,920,768", "30,954,043,392", "1.3631"),
    # Fused: Phi-4 with target_modules=["o_proj", "qkv_proj"], r=8 (40 query and 10 key/value heads in qkv_proj).
    (f"{SELF_LLM}:models/phi4/04-Phi-4-Lora.ipynb", "phi-4", 8, ("qkv_proj", "o_proj"), {},
     "7,372,800", "14,666,880,000", "0.0503"),
    # Fused, and what a name that does not exist does: Phi-3 mini with the seven Llama names, r=8. Phi-3 has no
    # q/k/v_proj, gate_proj or up_proj, so PEFT adapts only o_proj and down_proj (the page says so instead: see
    # test_llama_names_on_phi_3_get_a_message). Printed 0.11649212031987152.
    (f"{SELF_LLM}:models/phi-3/Phi-3-mini-4k-Instruct-Lora.ipynb", "phi-3-mini", 8, ("o_proj", "down_proj"), {},
     "4,456,448", "3,825,536,000", "0.1165"),
    # head_dim 256 and four norms per layer: Gemma 2 9B, the seven targets, r=8.
    (f"{SELF_LLM}:models/Gemma2/04-Gemma-2-9b-it peft lora微调.ipynb", "gemma-2-9b", 8, ALL_LINEAR, {},
     "27,009,024", "9,268,715,008", "0.2914"),
    # head_dim set by the config and q/k norms: Qwen3 8B, the seven targets, r=8.
    (f"{SELF_LLM}:models/Qwen3/05-Qwen3-8B-LoRA.ipynb", "qwen3-8b", 8, ALL_LINEAR, {},
     "21,823,488", "8,212,558,848", "0.2657"),
    # Grouped-query attention with q/k/v biases (not trained with bias="none"): Qwen2.5 7B, r=8.
    (f"{SELF_LLM}:models/Qwen2.5/05-Qwen2.5-7B-Instruct Lora .ipynb", "qwen2.5-7b", 8, ALL_LINEAR, {},
     "20,185,088", "7,635,801,600", "0.2643"),
    # Llama 3.1 8B Instruct, the seven targets, r=8.
    (f"{SELF_LLM}:models/Llama3_1/04-LLaMA3_1-8B-Instruct Lora.ipynb", "llama-3.1-8b", 8, ALL_LINEAR, {},
     "20,971,520", "8,051,232,768", "0.2605"),
]


@pytest.mark.parametrize(("source", "model_id", "rank", "targets", "extra", "trainable", "everything", "percent"),
                         PRINTED, ids=[f"{case[1]}-r{case[2]}" for case in PRINTED])
def test_peft_printed_it(source: str, model_id: str, rank: int, targets: tuple[str, ...], extra: dict[str, str],
                         trainable: str, everything: str, percent: str) -> None:
    result = answer(model_id, rank, targets, **extra)
    assert result["status"] == "ok", result["errors"]
    assert result["results"]["peft_printout"] == (
        f"trainable params: {trainable} || all params: {everything} || trainable%: {percent}"), source
    # The number computed, written as PEFT writes it (f"{trainable_params:,d}"), is the number PEFT printed.
    assert f"{int(trainable_count(model_id, rank, targets, **extra)):,d}" == trainable


# OpenAI's own gpt-oss notebook fine-tunes gpt-oss-20b with Unsloth (FastLanguageModel.get_peft_model, r=4, the seven
# usual target names) and prints "Trainable parameters = 1,990,656 of 20,916,747,840 (0.01% trained)". gpt-oss's
# experts are 3-D parameters, not linear layers, so only q/k/v/o_proj get adapters; the rest is the model.
GPT_OSS_NOTEBOOK = "openai/gpt-oss@7b583341fe16729127f6d5b94a7b09ccae97e1a1:examples/reinforcement-fine-tuning.ipynb"


def test_unsloth_printed_gpt_oss_20b_in_openais_notebook() -> None:
    trainable = trainable_count("gpt-oss-20b", 4, ("q_proj", "k_proj", "v_proj", "o_proj"))
    assert trainable == 1_990_656, GPT_OSS_NOTEBOOK
    assert model("gpt-oss-20b").parameters() + trainable == 20_916_747_840, GPT_OSS_NOTEBOOK


def test_qdora_counts_magnitudes_and_names_the_4_bit_convention() -> None:
    """QDoRA on Llama 3 8B, r=8 on every linear layer (examples/dora_finetuning/QDoRA_finetuning.ipynb at PEFT):
    printed "trainable params: 22347776 || all params: 4562948096 || trainable%: 0.48976616717579247".

    The trainable count is LoRA's 20,971,520 plus DoRA's magnitudes (one per output of each adapted layer,
    1,376,256). The "all params" of that printout counts each 4-bit linear weight as its packed storage, two
    weights per byte; today's PEFT multiplies Params4bit by 2 × the storage's bytes
    (src/peft/peft_model.py, get_nb_trainable_parameters), and the page shows that full count."""
    result = answer("llama-3.1-8b", 8, ALL_LINEAR, use_dora="on")
    assert trainable_count("llama-3.1-8b", 8, ALL_LINEAR, use_dora="on") == 22_347_776
    assert result["results"]["peft_printout"] == (
        "trainable params: 22,347,776 || all params: 8,052,609,024 || trainable%: 0.2775")
    assert trainable_count("llama-3.1-8b", 8, ALL_LINEAR) == 20_971_520
    entry = model("llama-3.1-8b")
    linear = entry.layers * (entry.attention() + entry.mlp_block())  # the weights bitsandbytes packs
    packed_count = entry.parameters() - linear + linear // 2 + 22_347_776
    assert packed_count == 4_562_948_096


# Base counts that PEFT's printouts of other methods confirm: "all params" less the method's own parameters.
BASES = [
    (f"{PEFT}:docs/source/package_reference/prompt_tuning.md", "bloom-560m", 8_192, 559_222_784),  # bloomz-560m
    (f"{PEFT}:src/peft/peft_model.py (prefix tuning)", "gpt2-large", 1_843_200, 775_873_280),
    (f"{PEFT}:examples/conditional_generation/peft_prompt_tuning_seq2seq.ipynb", "t5-large", 40_960, 737_709_056),
    (f"{PEFT}:examples/conditional_generation/peft_ia3_seq2seq.ipynb", "mt0-large", 282_624, 1_229_863_936),
]


@pytest.mark.parametrize(("source", "model_id", "method", "everything"), BASES, ids=[c[1] for c in BASES])
def test_base_counts_confirmed_by_other_methods(source: str, model_id: str, method: int, everything: int) -> None:
    assert model(model_id).parameters() == everything - method, source


def test_llama_names_on_phi_3_get_a_message() -> None:
    """Where PEFT silently adapts only the names that exist (the Phi-3 printout above), the page names the fused
    targets to choose instead of giving a smaller count."""
    errors = answer("phi-3-mini", 8, ALL_LINEAR)["errors"]
    assert "scegli «Query, key e value fuse»" in errors["q_proj"]
    assert "scegli «Gate e up fuse»" in errors["gate_proj"]


def test_fused_query_key_value_is_one_matrix() -> None:
    """BLOOM's query_key_value, r=8: 24 layers × 8 × (1024 + 3 × 1024)."""
    assert trainable_count("bloom-560m", 8, ("qkv_proj",)) == 24 * 8 * (1024 + 3072)
    # Falcon 7B's multi-query attention: the fused matrix has 71 query heads and one key and one value head.
    assert trainable_count("falcon-7b", 8, ("qkv_proj",)) == 32 * 8 * (4544 + 73 * 64)


def test_experts_each_get_an_adapter_and_the_router_only_when_targeted() -> None:
    """Mixtral: w1/w2/w3 in each of the 8 experts of 32 layers; Qwen1.5-MoE also a shared expert."""
    per_expert = 8 * (4096 + 14336) * 3
    assert trainable_count("mixtral-8x7b", 8, ("gate_proj", "up_proj", "down_proj")) == 32 * 8 * per_expert
    with_router = trainable_count("mixtral-8x7b", 8, ("gate_proj", "up_proj", "down_proj", "router"))
    assert with_router == 32 * (8 * per_expert + 8 * (4096 + 8))
    qwen = trainable_count("qwen1.5-moe-a2.7b", 4, ("down_proj",))
    assert qwen == 24 * 4 * ((1408 + 2048) * 60 + (5632 + 2048))


# modules_to_save: the classification head is trained whole, and PEFT keeps the original beside the copy, so
# "all params" counts it twice. The base counts include the head, as the printouts of the full models show.
HEADS = [
    # ViT-base on Food-101 (101 labels), r=16 on "query" and "value", modules_to_save=["classifier"];
    # the same notebook prints the full model as "trainable params: 85876325 || all params: 85876325".
    (f"{PEFT}:docs/source/package_reference/lora.md", 16, "101", "85876325", "667,493", "86,543,818", "0.7713"),
    # bert-base-cased for sequence classification (2 labels), target_modules=["query", "key"] with r=8: the task
    # type puts the classifier in modules_to_save. Printed "trainable%: 0.2730".
    (f"{PEFT}:examples/evaluation/lora-lm-eval.ipynb", 8, "2", "108311810", "296,450", "108,608,260", "0.2730"),
]


@pytest.mark.parametrize(("source", "rank", "labels", "base", "trainable", "everything", "percent"), HEADS,
                         ids=["vit-food101", "bert-seq-cls"])
def test_a_classification_head_in_modules_to_save(source: str, rank: int, labels: str, base: str, trainable: str,
                                                  everything: str, percent: str) -> None:
    bert_like = {"layers": "12", "hidden_size": "768", "intermediate_size": "3072", "attention_heads": "12",
                 "kv_heads": "12", "head_dim": "64", "mlp_layout": "plain", "num_labels": labels,
                 "head_layout": "linear_bias", "base_parameters": base, "total_parameters_billion": ""}
    targets = ("q_proj", "v_proj") if labels == "101" else ("q_proj", "k_proj")
    values = {**CALCULATORS[LORA].defaults, **{m: "" for m in MODULES}, **{t: "on" for t in targets},
              "rank": str(rank), **bert_like}
    result = respond({"calculator": LORA, "values": values})
    assert result["status"] == "ok", result["errors"]
    assert result["results"]["peft_printout"] == (
        f"trainable params: {trainable} || all params: {everything} || trainable%: {percent}"), source


def test_bias_all_trains_every_bias() -> None:
    """LayoutLM-base for token classification (13 labels), r=16 on query and value, bias="all"
    (examples/token_classification/peft_lora_token_cls.ipynb at PEFT): printed
    "trainable params: 702,733 || all params: 113,237,786 || trainable%: 0.6206". The biases: 12 layers × (4 × 768
    in attention, 3,072 + 768 in the MLP, 2 × 768 in the norms), the embeddings' norm and the pooler, 768 each; the
    classifier (768 × 13 + 13) is trained whole through the task's modules_to_save."""
    biases = 12 * (4 * 768 + 3072 + 768 + 2 * 768) + 768 + 768
    values = {**CALCULATORS[LORA].defaults, **{m: "" for m in MODULES}, "q_proj": "on", "v_proj": "on", "rank": "16",
              "layers": "12", "hidden_size": "768", "intermediate_size": "3072", "attention_heads": "12",
              "kv_heads": "12", "head_dim": "64", "mlp_layout": "plain", "num_labels": "13",
              "head_layout": "linear_bias", "bias": "all", "linear_bias": "all", "model_biases": str(biases),
              "base_parameters": str(113_237_786 - 589_824 - (768 * 13 + 13)), "total_parameters_billion": ""}
    result = respond({"calculator": LORA, "values": values})
    assert result["status"] == "ok", result["errors"]
    assert result["results"]["peft_printout"] == (
        "trainable params: 702,733 || all params: 113,237,786 || trainable%: 0.6206")


def test_bias_lora_only_trains_the_adapted_layers_biases() -> None:
    """GPT-2's c_attn carries a 2,304-wide bias: with bias="lora_only" it trains too, 12 × 2,304 more. All of GPT-2's
    biases (the catalogue counts 102,144: linear layers and LayerNorms) with bias="all"."""
    lora, only, everything = (trainable_count("gpt2", 8, ("qkv_proj",), bias=b) for b in ("none", "lora_only", "all"))
    assert only - lora == 12 * 2304
    assert everything - lora == model("gpt2").biases() == 102_144
    # Whisper has no bias on k_proj: lora_only on q, k, v adds the q and v biases only.
    none, lora_only = (trainable_count("whisper-small", 8, ("q_proj", "k_proj", "v_proj"), bias=b)
                       for b in ("none", "lora_only"))
    assert lora_only - none == (12 + 2 * 12) * 2 * 768
