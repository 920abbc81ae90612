"""Count the catalogue's models and their LoRA adapters with Transformers and PEFT themselves.

For every model of ``calculator.llm.catalogue`` this builds the Transformers model from a config with the entry's
values (on PyTorch's meta device: no memory, no download), counts its parameters, then wraps it with PEFT's
``get_peft_model`` for a few LoRA setups (PEFT's default targets, every linear layer of each block, and the
options the LoRA page offers: bias="lora_only"/"all", DoRA, the router) and reads
``get_nb_trainable_parameters()``. Each figure is printed beside the catalogue's count and the LoRA page's
answer for the same setup, as a Markdown table; ``--json FILE`` also writes them, for
``tests/pages/test_peft_counts.py``.

Not part of scripts/test: it needs PyTorch, Transformers and PEFT. Like measure_activations.py it makes
``.venv-measure/`` when they cannot be imported (torch from /opt/wheels, the pinned transformers and peft
from PyPI) and runs itself there.

Usage: python3 tools/peft_check.py [--json tests/data/peft_counts.json] [--only ID …]
       python3 tools/peft_check.py --shortcuts tests/data/peft_shortcuts.json --only ID …
(``--shortcuts``: the page's two shortcuts instead, PEFT's own target_modules="all-linear" and the attention's
matrices by their Transformers names, for those entries.)
(``--only``: those catalogue entries, keeping the file's rows of the others; DeepSeek-V3's 44,544 expert matrices
take PEFT about 20 minutes on two busy cores.)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT))
from tools.measure_env import TRANSFORMERS_PINS as PINNED  # noqa: E402
from tools.measure_env import bootstrap  # noqa: E402

try:
    import peft
    import torch
    import transformers
except ImportError:
    if __name__ == "__main__":
        bootstrap(__file__, PINNED)
    raise

from calculator.llm.catalogue import MODELS, Architecture  # noqa: E402
from tools.lora_setups import linear_modules, page_count, setups, shortcut_count  # noqa: E402

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()


def config_of(entry: Architecture) -> tuple[Any, Any]:
    """The entry as a Transformers config, and the model class to build from it."""
    t = transformers
    h, layers, heads, kv, vocab = entry.hidden, entry.layers, entry.heads, entry.kv_heads, entry.vocab
    family, causal = entry.family, t.AutoModelForCausalLM
    common = dict(vocab_size=vocab, hidden_size=h, intermediate_size=entry.intermediate, num_hidden_layers=layers,
                  num_attention_heads=heads, num_key_value_heads=kv, tie_word_embeddings=entry.tied)
    if entry.head_dim:
        common["head_dim"] = entry.head_dim
    if family == "Llama":
        return t.LlamaConfig(**common), causal
    if family == "Mistral" and entry.experts:
        return t.MixtralConfig(**common, num_local_experts=entry.experts,
                               num_experts_per_tok=entry.experts_per_token), causal
    if family == "Mistral":
        return t.MistralConfig(**common), causal
    if family == "Qwen" and entry.shared_intermediate:
        return t.Qwen2MoeConfig(**common, num_experts=entry.experts, num_experts_per_tok=entry.experts_per_token,
                                moe_intermediate_size=entry.expert_intermediate,
                                shared_expert_intermediate_size=entry.shared_intermediate, decoder_sparse_step=1,
                                mlp_only_layers=[]), causal
    if family == "Qwen" and entry.experts:
        return t.Qwen3MoeConfig(**common, num_experts=entry.experts, num_experts_per_tok=entry.experts_per_token,
                                moe_intermediate_size=entry.expert_intermediate, decoder_sparse_step=1,
                                mlp_only_layers=[]), causal
    if family == "Qwen":
        return (t.Qwen3Config(**common) if entry.qk_norm else t.Qwen2Config(**common)), causal
    if family == "Gemma":
        return (t.Gemma3TextConfig(**common) if entry.qk_norm else t.Gemma2Config(**common)), causal
    if family == "Phi":
        return t.Phi3Config(**common), causal
    if family == "gpt-oss":
        return t.GptOssConfig(**common, num_local_experts=entry.experts, num_experts_per_tok=entry.experts_per_token,
                              attention_bias=entry.bias, sliding_window=entry.sliding_window), causal
    if family == "DeepSeek":
        latent = dict(moe_intermediate_size=entry.expert_intermediate, n_routed_experts=entry.experts,
                      n_shared_experts=entry.shared_intermediate // entry.expert_intermediate,
                      num_experts_per_tok=entry.experts_per_token, first_k_dense_replace=entry.dense_layers,
                      kv_lora_rank=entry.kv_lora_rank, qk_rope_head_dim=entry.rope_dim, qk_nope_head_dim=entry.nope_dim,
                      v_head_dim=entry.v_head_dim)
        if "v3" in entry.id:
            return t.DeepseekV3Config(**common, q_lora_rank=entry.q_lora_rank, **latent), causal
        return t.DeepseekV2Config(**common, q_lora_rank=entry.q_lora_rank or None, n_group=1, topk_group=1,
                                  topk_method="greedy", **latent), causal
    if family == "OLMo":
        return t.Olmo2Config(**common), causal
    if family == "SmolLM":
        return t.SmolLM3Config(**common), causal
    if family == "Falcon":
        return t.FalconConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=layers, num_attention_heads=heads,
                              ffn_hidden_size=entry.intermediate, multi_query=True, parallel_attn=True, bias=False,
                              new_decoder_architecture=False,
                              tie_word_embeddings=entry.tied), causal
    if family == "GPT-2":
        return t.GPT2Config(vocab_size=vocab, n_embd=h, n_layer=layers, n_head=heads, n_positions=entry.positions,
                            n_inner=entry.intermediate), causal
    if family == "OPT":
        return t.OPTConfig(vocab_size=vocab, hidden_size=h, ffn_dim=entry.intermediate, num_hidden_layers=layers,
                           num_attention_heads=heads, max_position_embeddings=entry.positions - 2,
                           word_embed_proj_dim=entry.embed_proj or h,
                           do_layer_norm_before=entry.final_norm), causal
    if family == "BLOOM":
        return t.BloomConfig(vocab_size=vocab, hidden_size=h, n_layer=layers, n_head=heads), causal
    if family == "T5":
        return t.T5Config(vocab_size=vocab, d_model=h, d_ff=entry.intermediate, num_layers=layers,
                          num_decoder_layers=entry.decoder_layers, num_heads=heads, d_kv=entry.dim,
                          relative_attention_num_buckets=entry.relative_buckets,
                          feed_forward_proj="gated-gelu" if entry.mlp == "gated" else "relu",
                          tie_word_embeddings=entry.tied), t.AutoModelForSeq2SeqLM
    if family == "Whisper":
        return t.WhisperConfig(vocab_size=vocab, d_model=h, encoder_layers=layers, decoder_layers=entry.decoder_layers,
                               encoder_attention_heads=heads, decoder_attention_heads=heads,
                               encoder_ffn_dim=entry.intermediate, decoder_ffn_dim=entry.intermediate,
                               num_mel_bins=entry.mel_bins, max_source_positions=entry.encoder_positions,
                               max_target_positions=entry.positions), t.AutoModelForSpeechSeq2Seq
    raise SystemExit(f"no Transformers config for {entry.id} ({family})")


# The LoRA page's module names → the names Transformers gives those layers, by family.
SEQ2SEQ_T5 = {"q_proj": ["q"], "k_proj": ["k"], "v_proj": ["v"], "o_proj": ["o"], "gate_proj": ["wi_0"],
              "up_proj": ["wi_1", "wi"], "down_proj": ["wo"]}
NAMES: dict[str, dict[str, list[str]]] = {
    "T5": SEQ2SEQ_T5,
    "Whisper": {"up_proj": ["fc1"], "down_proj": ["fc2"], "o_proj": ["out_proj"]},
    "OPT": {"up_proj": ["fc1"], "down_proj": ["fc2"], "o_proj": ["out_proj"]},
    "GPT-2": {"qkv_proj": ["c_attn"], "o_proj": ["attn.c_proj"], "up_proj": ["c_fc"], "down_proj": ["mlp.c_proj"]},
    "BLOOM": {"qkv_proj": ["query_key_value"], "o_proj": ["self_attention.dense"], "up_proj": ["dense_h_to_4h"],
              "down_proj": ["dense_4h_to_h"]},
    "Falcon": {"qkv_proj": ["query_key_value"], "o_proj": ["self_attention.dense"], "up_proj": ["dense_h_to_4h"],
               "down_proj": ["dense_4h_to_h"]},
}
MIXTRAL = {"gate_proj": ["w1"], "up_proj": ["w3"], "down_proj": ["w2"], "router": ["block_sparse_moe.gate"]}
QWEN_MOE = {"router": ["mlp.gate"]}
GPT_OSS = {"router": ["mlp.router"]}
# Experts stored as one 3-D parameter per matrix, and routers that are not an nn.Linear (gpt-oss, DeepSeek):
# PEFT reaches them through target_parameters.
EXPERT_PARAMETERS = {"gpt-oss": {"gate_up_proj": "mlp.experts.gate_up_proj", "down_proj": "mlp.experts.down_proj",
                                 "router": "mlp.router.weight"},
                     "DeepSeek": {"router": "mlp.gate.weight"}}


def peft_names(entry: Architecture, modules: list[str]) -> list[str]:
    """Regular expressions PEFT matches against full module names (so that "gate" is the router only)."""
    names = dict(NAMES.get(entry.family, {}))
    if entry.experts:
        names.update(MIXTRAL if entry.family == "Mistral" else GPT_OSS if entry.family == "gpt-oss" else QWEN_MOE)
    parameters = EXPERT_PARAMETERS.get(entry.family, {})
    found = [name for module in modules if module not in parameters for name in names.get(module, [module])]
    return [rf".*\.{re.escape(name)}" for name in found]


def peft_count(model: Any, entry: Architecture, case: dict[str, Any]) -> int:
    names = peft_names(entry, case["modules"])
    parameters = EXPERT_PARAMETERS.get(entry.family, {})
    targets = [parameters[module] for module in case["modules"] if module in parameters]
    config = peft.LoraConfig(r=case["rank"], target_modules="|".join(names) if names else None,
                             target_parameters=targets or None, bias=case.get("bias", "none"),
                             use_dora=case.get("use_dora", False))
    wrapped = peft.get_peft_model(model, config)
    trainable, _ = wrapped.get_nb_trainable_parameters()
    wrapped.unload()  # the base model back, for the next setup
    return int(trainable)


def attention_names(entry: Architecture) -> list[str]:
    """The LoRA page's names of the attention's matrices of a block (linear_modules less the MLP's)."""
    return [name for name in linear_modules(entry) if name not in ("gate_proj", "up_proj", "gate_up_proj",
                                                                     "down_proj")]


def shortcuts(args: argparse.Namespace) -> None:
    """PEFT's target_modules="all-linear" and the attention only, beside the page's shortcuts, for --only's entries."""
    rows: list[dict[str, Any]] = []
    for entry in [entry for entry in MODELS if entry.id in args.only]:
        config, auto = config_of(entry)
        with torch.device("meta"):
            model = auto.from_config(config)
        cases = {"all-linear": "all-linear", "attenzione": "|".join(peft_names(entry, attention_names(entry)))}
        for which, target in cases.items():
            wrapped = peft.get_peft_model(model, peft.LoraConfig(r=8, target_modules=target))
            counted = int(wrapped.get_nb_trainable_parameters()[0])
            wrapped.unload()
            page = shortcut_count(entry, which)
            rows.append({"model": entry.id, "shortcut": which, "rank": 8, "framework": counted, "ours": page})
            print(f"| {entry.id} | {which} | {counted:,} | {page:,} | {'=' if counted == page else '≠'} |")
    versions = {"transformers": transformers.__version__, "peft": peft.__version__, "torch": torch.__version__}
    args.shortcuts.write_text(json.dumps({**versions, "rows": rows}, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--only", nargs="*", default=[], help="these catalogue ids only; --json then keeps the"
                                                               " file's rows of the other models")
    parser.add_argument("--shortcuts", type=Path, help="count the page's shortcuts (all-linear, the attention only)"
                                                          " for the --only entries, and write them to this file")
    args = parser.parse_args()
    if args.shortcuts:
        shortcuts(args)
        return
    rows: list[dict[str, Any]] = []
    print("| model | setup | Transformers / PEFT | catalogue / LoRA page | |")
    print("|---|---|---|---|---|")
    for entry in [entry for entry in MODELS if not args.only or entry.id in args.only]:
        config, auto = config_of(entry)
        with torch.device("meta"):
            model = auto.from_config(config)
        total = sum(p.numel() for p in model.parameters())
        ours = entry.parameters()
        rows.append({"model": entry.id, "setup": "parameters", "framework": total, "ours": ours})
        print(f"| {entry.id} | all parameters | {total:,} | {ours:,} | {'=' if total == ours else '≠'} |")
        for case in setups(entry):
            counted, page = peft_count(model, entry, case), page_count(entry, case)
            label = f"r={case['rank']} {'+'.join(case['modules'])}" + "".join(
                f" {key}={case[key]}" for key in ("bias", "use_dora") if key in case)
            rows.append({"model": entry.id, "setup": label, "case": case, "framework": counted, "ours": page})
            print(f"| {entry.id} | {label} | {counted:,} | {page:,} | {'=' if counted == page else '≠'} |")
    different = [row for row in rows if row["framework"] != row["ours"]]
    print(f"\n{len(rows) - len(different)} of {len(rows)} figures equal; Transformers {transformers.__version__},"
          f" PEFT {peft.__version__}, PyTorch {torch.__version__}")
    if args.json:
        versions = {"transformers": transformers.__version__, "peft": peft.__version__, "torch": torch.__version__}
        if args.only and args.json.exists():
            kept = [row for row in json.loads(args.json.read_text())["rows"] if row["model"] not in args.only]
            order = {entry.id: n for n, entry in enumerate(MODELS)}
            rows = sorted(kept + rows, key=lambda row: order.get(row["model"], len(order)))
        args.json.write_text(json.dumps({**versions, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
