"""Megatron-LM's own memory arithmetic for a set of parallel layouts: ``tests/data/megatron_memory.json``.

``megatron/training/theoretical_memory_usage.py`` is plain arithmetic on an ``args`` namespace. This tool reads it
from a clone of NVIDIA/Megatron-LM at the pinned commit (``git show``, nothing installed), runs it for each
configuration with a namespace of Megatron's argument names, and records what it returns, in bytes: the
weights and optimizer of the most loaded shard, the first stage's activations, and the same activations with no
layers (their difference is the transformer layers' share, which the test compares term for term).

    python3 tools/megatron_memory.py /path/to/Megatron-LM   # rewrites tests/data/megatron_memory.json
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
SOURCE = "megatron/training/theoretical_memory_usage.py"
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "megatron_memory.json"
MB = 1024 * 1024

GPT = {"hidden_size": 4096, "num_attention_heads": 32, "ffn_hidden_size": 16384, "num_layers": 32,
       "padded_vocab_size": 51200, "seq_length": 2048, "micro_batch_size": 1, "swiglu": False}
GPT_175B = {"hidden_size": 12288, "num_attention_heads": 96, "ffn_hidden_size": 49152, "num_layers": 96,
            "padded_vocab_size": 51200, "seq_length": 2048, "micro_batch_size": 1, "swiglu": False}
MIXTRAL = {"hidden_size": 4096, "num_attention_heads": 32, "num_query_groups": 8, "group_query_attention": True,
           "ffn_hidden_size": 14336, "num_layers": 32, "padded_vocab_size": 32000, "seq_length": 4096,
           "micro_batch_size": 1, "swiglu": True, "num_experts": 8, "moe_router_topk": 2, "moe_ffn_hidden_size": 14336}
LLAMA3_8B = {"hidden_size": 4096, "num_attention_heads": 32, "num_query_groups": 8, "group_query_attention": True,
             "ffn_hidden_size": 14336, "num_layers": 32, "padded_vocab_size": 128256, "seq_length": 8192,
             "micro_batch_size": 1, "swiglu": True}

# name: (model, layout and training); the degrees as Megatron-LM's arguments name them, plus num_microbatches.
CONFIGS: dict[str, dict[str, Any]] = {
    "gpt-1.3b-dp8": {**GPT, "hidden_size": 2048, "num_attention_heads": 16, "ffn_hidden_size": 8192,
                     "num_layers": 24, "micro_batch_size": 4, "data_parallel_size": 8},
    "gpt-8b-tp8-sp-distopt": {**GPT, "tensor_model_parallel_size": 8, "sequence_parallel": True,
                              "use_distributed_optimizer": True, "data_parallel_size": 4},
    "gpt-8b-tp8-nosp": {**GPT, "tensor_model_parallel_size": 8, "data_parallel_size": 4},
    "gpt-8b-tp4-pp4-1f1b": {**GPT, "tensor_model_parallel_size": 4, "pipeline_model_parallel_size": 4,
                            "sequence_parallel": True, "use_distributed_optimizer": True, "data_parallel_size": 2,
                            "num_microbatches": 8},
    "gpt-8b-tp4-pp4-vp2": {**GPT, "tensor_model_parallel_size": 4, "pipeline_model_parallel_size": 4,
                           "virtual_pipeline_model_parallel_size": 2, "sequence_parallel": True,
                           "use_distributed_optimizer": True, "data_parallel_size": 2, "num_microbatches": 8},
    "gpt-8b-tp2-pp8-m4": {**GPT, "tensor_model_parallel_size": 2, "pipeline_model_parallel_size": 8,
                          "data_parallel_size": 1, "num_microbatches": 4},
    "gpt-175b-tp8-pp8": {**GPT_175B, "tensor_model_parallel_size": 8, "pipeline_model_parallel_size": 8,
                         "sequence_parallel": True, "use_distributed_optimizer": True, "data_parallel_size": 16,
                         "num_microbatches": 64},
    "gpt-175b-tp8-pp8-vp3": {**GPT_175B, "tensor_model_parallel_size": 8, "pipeline_model_parallel_size": 8,
                             "virtual_pipeline_model_parallel_size": 3, "sequence_parallel": True,
                             "use_distributed_optimizer": True, "data_parallel_size": 16, "num_microbatches": 64},
    "gpt-8b-tp4-cp2-16k": {**GPT, "seq_length": 16384, "tensor_model_parallel_size": 4, "context_parallel_size": 2,
                           "sequence_parallel": True, "use_distributed_optimizer": True, "data_parallel_size": 2},
    "mixtral-tp2-ep4": {**MIXTRAL, "tensor_model_parallel_size": 2, "expert_model_parallel_size": 4,
                        "sequence_parallel": True, "use_distributed_optimizer": True, "data_parallel_size": 8},
    "mixtral-pp4-ep8": {**MIXTRAL, "pipeline_model_parallel_size": 4, "expert_model_parallel_size": 8,
                        "sequence_parallel": True, "use_distributed_optimizer": True, "data_parallel_size": 8,
                        "num_microbatches": 8},
    "llama3-8b-tp2-sp": {**LLAMA3_8B, "tensor_model_parallel_size": 2, "sequence_parallel": True,
                         "use_distributed_optimizer": True, "data_parallel_size": 4},
    "gpt-8b-tp8-sp-norecompute": {**GPT, "tensor_model_parallel_size": 8, "sequence_parallel": True,
                                  "recompute_granularity": None, "use_distributed_optimizer": True,
                                  "data_parallel_size": 4},
}

DEFAULTS: dict[str, Any] = {
    "kv_channels": None, "group_query_attention": False, "num_query_groups": None, "num_experts": None,
    "moe_shared_expert_intermediate_size": None, "moe_layer_freq": 1, "moe_ffn_hidden_size": None,
    "mtp_num_layers": None, "normalization": "RMSNorm", "multi_latent_attention": False,
    "untie_embeddings_and_output_weights": True, "moe_latent_size": None, "moe_router_topk": 2,
    "add_bias_linear": False, "moe_shared_expert_gate": False, "expert_tensor_parallel_size": None,
    "expert_model_parallel_size": 1, "pipeline_model_parallel_size": 1, "tensor_model_parallel_size": 1,
    "context_parallel_size": 1, "virtual_pipeline_model_parallel_size": None, "sequence_parallel": False,
    "recompute_granularity": "selective", "use_distributed_optimizer": False, "num_microbatches": None,
    "is_hybrid_model": False,
}


def load(repo: Path) -> types.ModuleType:
    """The file at the pinned commit, its one relative import (``.utils``) replaced by two stubs."""
    text = subprocess.run(["git", "-C", str(repo), "show", f"{COMMIT}:{SOURCE}"], check=True, capture_output=True,
                          text=True).stdout
    text = text.replace("from .utils import is_hybrid_model, print_rank_0",
                        "is_hybrid_model = lambda args: False\nprint_rank_0 = lambda *a, **k: None")
    module = types.ModuleType("theoretical_memory_usage")
    exec(compile(text, SOURCE, "exec"), module.__dict__)  # Megatron's arithmetic, read from git
    return module


def namespace(config: dict[str, Any]) -> types.SimpleNamespace:
    args = {**DEFAULTS, **config}
    args["kv_channels"] = args["kv_channels"] or args["hidden_size"] // args["num_attention_heads"]
    if args["expert_tensor_parallel_size"] is None:  # arguments.py: defaults to the tensor-parallel size
        args["expert_tensor_parallel_size"] = args["tensor_model_parallel_size"]
    args["world_size"] = (args["tensor_model_parallel_size"] * args["pipeline_model_parallel_size"] *
                          args["context_parallel_size"] * args["data_parallel_size"])
    return types.SimpleNamespace(**args)


def run(module: types.ModuleType, config: dict[str, Any]) -> dict[str, float]:
    args = namespace(config)
    m = args.num_microbatches
    weights = module.compute_weight_and_optimizer_memory(namespace(config))
    _, activations, _ = module.report_theoretical_memory(namespace(config), num_microbatches=m)
    _, no_layers, _ = module.report_theoretical_memory(namespace({**config, "num_layers": 0}), num_microbatches=m)
    whole = namespace({**config, "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1,
                       "expert_model_parallel_size": 1, "context_parallel_size": 1, "data_parallel_size": 1,
                       "use_distributed_optimizer": False})
    out = {"weights_and_optimizer_bytes": weights, "activation_bytes": activations * MB,
           "activation_without_layers_bytes": no_layers * MB,
           "parameters": module.compute_weight_and_optimizer_memory(whole) / 18}
    if args.context_parallel_size > 1:  # the distributed optimizer shards over DP · CP; the formula takes DP
        wider = {**config, "data_parallel_size": args.data_parallel_size * args.context_parallel_size}
        out["weights_and_optimizer_over_dp_cp_bytes"] = module.compute_weight_and_optimizer_memory(namespace(wider))
    return out


def main() -> None:
    module = load(Path(sys.argv[1]))
    records = [{"name": name, "args": {**DEFAULTS, **config}, "megatron": run(module, config)}
               for name, config in CONFIGS.items()]
    document = {"source": f"NVIDIA/Megatron-LM@{COMMIT}:{SOURCE}", "units": "bytes per GPU (first pipeline stage)",
                "configurations": records}
    OUT.write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main()
