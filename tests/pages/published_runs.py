"""Published peaks of real training runs (``tests/data/published_peaks.json``, each with its source) as the VRAM
page's «picco di un passo» reads them: the model, and every input as the source states it, turned into fields."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from calculator.form.evaluate import evaluate
from calculator.llm.activation_memory import FULL, NONE, OFFLOAD, SELECTIVE_OP
from calculator.llm.catalogue import model
from calculator.llm.lora_adapters import LoraSetup, trainable
from calculator.llm.units import BYTES_PER_GIB
from calculator.pages import vram_step
from calculator.pages.presets import field_texts
from calculator.pages.vram import CALCULATOR

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "published_peaks.json").read_text())

# Models of the cases that are not in the catalogue, from their config.json on the Hugging Face Hub.
OUTSIDE = {
    # meta-llama/Llama-2-70b-hf
    "llama-2-70b": {"layers": "80", "hidden_size": "8192", "intermediate_size": "28672", "attention_heads": "64",
                    "kv_heads": "8", "head_dim": "128", "vocab_size": "32000", "parameters_billion": "68,976653"},
    # Qwen/Qwen-1_8B, Qwen-7B, Qwen-14B, Qwen-72B (config.json: intermediate_size is twice the MLP's width, w1 and
    # w2 each half; fused c_attn with a bias; untied)
    "qwen-1.8b": {"layers": "24", "hidden_size": "2048", "intermediate_size": "5504", "attention_heads": "16",
                  "kv_heads": "16", "head_dim": "128", "vocab_size": "151936", "parameters_billion": "1,836828"},
    "qwen-7b": {"layers": "32", "hidden_size": "4096", "intermediate_size": "11008", "attention_heads": "32",
                "kv_heads": "32", "head_dim": "128", "vocab_size": "151936", "parameters_billion": "7,721324"},
    "qwen-14b": {"layers": "40", "hidden_size": "5120", "intermediate_size": "13696", "attention_heads": "40",
                 "kv_heads": "40", "head_dim": "128", "vocab_size": "152064", "parameters_billion": "14,167290"},
    "qwen-72b": {"layers": "80", "hidden_size": "8192", "intermediate_size": "24576", "attention_heads": "64",
                 "kv_heads": "64", "head_dim": "128", "vocab_size": "152064", "parameters_billion": "72,287920"},
    # stabilityai/stablelm-base-alpha-3b (GPT-NeoX: plain MLP of 4h, LayerNorm)
    "stablelm-3b": {"layers": "16", "hidden_size": "4096", "intermediate_size": "16384", "attention_heads": "32",
                    "kv_heads": "32", "head_dim": "128", "vocab_size": "50688", "parameters_billion": "3,638525",
                    "mlp": "plain", "norms": "fuso"},
    # microsoft/phi-1_5
    "phi-1.5": {"layers": "24", "hidden_size": "2048", "intermediate_size": "8192", "attention_heads": "32",
                "kv_heads": "32", "head_dim": "64", "vocab_size": "51200", "parameters_billion": "1,418270",
                "mlp": "plain", "norms": "fuso"},
    # 01-ai/Yi-34B
    "yi-34b": {"layers": "60", "hidden_size": "7168", "intermediate_size": "20480", "attention_heads": "56",
               "kv_heads": "8", "head_dim": "128", "vocab_size": "64000", "parameters_billion": "34,388917"},
    # google/gemma-7b (head_dim 256, tied embeddings)
    "gemma-7b": {"layers": "28", "hidden_size": "3072", "intermediate_size": "24576", "attention_heads": "16",
                 "kv_heads": "16", "head_dim": "256", "vocab_size": "256000", "parameters_billion": "8,537680",
                 "tied_embeddings": "on", "norms": "gemma"},
}
NAMES = [  # (a piece of the case's model name, the model)
    ("Llama 3.2 3B", "llama-3.2-3b"), ("Llama-3.2-3B", "llama-3.2-3b"), ("Llama 3.1 8B", "llama-3.1-8b"),
    ("Llama-3.1-8B", "llama-3.1-8b"), ("Llama 3.1 70B", "llama-3.1-70b"), ("Llama-2-70b", "llama-2-70b"),
    ("Llama 2 13B", "llama-2-13b"), ("Llama-2-7b", "llama-2-7b"), ("Llama 2 7B", "llama-2-7b"),
    ("Qwen-1.8B", "qwen-1.8b"), ("Qwen-72B", "qwen-72b"), ("Qwen-14B", "qwen-14b"), ("Qwen-7B", "qwen-7b"),
    ("StableLM", "stablelm-3b"), ("phi-1.5", "phi-1.5"), ("Yi-34B", "yi-34b"), ("Mistral 7B", "mistral-7b"),
    ("gemma-7b", "gemma-7b"),
]
# Module names of each library, as PEFT's (LitGPT, torchtune and Qwen name them their own way).
MODULE_NAMES = {
    "query": {"q_proj"}, "key": {"k_proj"}, "value": {"v_proj"}, "projection": {"o_proj"}, "output_proj": {"o_proj"},
    "w1": {"gate_proj"}, "w3": {"up_proj"}, "w2": {"down_proj"}, "mlp": {"gate_proj", "up_proj", "down_proj"},
    "head": {"lm_head"}, "c_attn": {"q_proj", "k_proj", "v_proj"}, "c_proj": {"o_proj", "down_proj"},
}
ALL_LINEAR = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}


def model_id(case: dict[str, Any]) -> str:
    return next(key for piece, key in NAMES if piece in case["model"])


def model_fields(key: str) -> dict[str, str]:
    if key in OUTSIDE:
        return {"mlp": "gated", "norms": "llama", "tied_embeddings": "", **OUTSIDE[key]}
    return dict(field_texts(model(key)))


def targets(case: dict[str, Any]) -> set[str]:
    named = case["lora_targets"]
    if named == "all-linear":
        return set(ALL_LINEAR)
    out: set[str] = set()
    for name in named:
        out |= MODULE_NAMES.get(name, {name})
    if case["model"].startswith("Qwen") and "c_proj" in named:  # Qwen's MLP: w1 and w2 are gate and up
        out = (out - {"gate_proj", "down_proj"}) | {"gate_proj", "up_proj", "down_proj"}
    return out


def lora_count(fields: dict[str, str], case: dict[str, Any]) -> int:
    plain = fields.get("mlp") == "plain"
    names = targets(case)
    if plain:  # a plain MLP's two matrices under PEFT's names for the gated one's up and down
        names = {n for n in names if n != "gate_proj"}
    setup = LoraSetup(layers=int(fields["layers"]), hidden=int(fields["hidden_size"]),
                      intermediate=int(fields["intermediate_size"]), heads=int(fields["attention_heads"]),
                      kv_heads=int(fields["kv_heads"]),
                      head_dim=int(fields["head_dim"] or int(fields["hidden_size"]) // int(fields["attention_heads"])),
                      vocab=int(fields["vocab_size"]), rank=int(case["lora_rank"]), targets=frozenset(names))
    return trainable(setup)[1]


PRECISION = {"bf16-pure": "bf16", "bf16-mixed": "mista", "fp16-mixed": "mista", "fp32": "fp32"}
CHECKPOINT = {"none": NONE, "full": FULL, "selective-op": SELECTIVE_OP, "offload": OFFLOAD}
OPTIMIZER = {"adamw": "adamw", "adamw_8bit": "adamw_8bit", "paged_adamw_8bit": "paged_adamw_8bit",
             "paged_adamw": "paged_adamw"}


def page_fields(case: dict[str, Any]) -> dict[str, str]:
    """Every input of a case as the page's fields."""
    fields = {f.id: f.default for f in CALCULATOR.fields}
    fields.update({k: v for k, v in model_fields(model_id(case)).items() if k in fields})
    method = case["method"]
    quantised = case["quantization"]
    parallel = case["parallelism"] or ""
    gpus = case["gpus"] or 1
    tp = int(parallel.split("tp=")[1].split(",")[0]) if "tp=" in parallel else 1
    stage = "3" if ("fsdp" in parallel or "zero3" in parallel) else "2" if "zero2" in parallel else "0"
    fields.update({
        "convention": vram_step.STEP,
        "method": "qlora" if quantised else {"full": "completo"}.get(method, method),
        "precision_mode": PRECISION[case["precision"]],
        # DeepSpeed steps with its fused Adam; PyTorch's AdamW runs foreach.
        "step_optimizer": "adamw_fused" if "zero" in parallel and case["optimizer"] == "adamw"
        else OPTIMIZER[case["optimizer"]],
        "optimizer_in_backward": "on" if case["optimizer_in_backward"] else "",
        "sequence_length": str(case["sequence"]), "micro_batch": str(case["micro_batch"]),
        "checkpointing": CHECKPOINT[case["checkpointing"]],
        # torchtune's chunked loss from the «+ Compile» row on is compiled: its chunks keep their bf16 logits.
        "loss": ("a_blocchi_compilata" if case["compile"] else "a_blocchi") if case["loss"] == "chunked"
        else "standard",
        "gpus": str(gpus), "tensor_parallel": str(tp), "sequence_parallel": "on" if tp > 1 else "",
        "zero_stage": stage if gpus > 1 or stage == "3" else "0",
        "offload_optimizer": "on" if "offload" in parallel else "", "offload_param": "on" if "offload" in parallel
        else "", "gpu_memory_gb": "85,899346",
    })
    if method in ("lora", "qlora"):
        chosen = targets(case)
        fields.update({
            "lora_trainable": str(lora_count(fields, case)), "rank": str(case["lora_rank"]),
            # The page's nearest set of targets, for what the adapters keep (the count above is exact).
            "lora_targets": "tutti" if "down_proj" in chosen else "attenzione" if chosen & {"k_proj", "o_proj"}
            else "qv",
            # torchtune and LitGPT keep the adapters in the base's bf16; PEFT (and the Trainer's users) in fp32.
            "adapter_dtype": "base" if case["source"].startswith(("pytorch/torchtune@", "Lightning-AI/litgpt@"))
            else "fp32",
        })
    if quantised:
        fields["double_quant"] = "on" if case["double_quant"] else ""
        if fields["precision_mode"] == "mista":  # a quantised base has no master copy: Transformers' autocast
            fields["precision_mode"] = "autocast"
    return fields


def figure_gib(case: dict[str, Any]) -> Decimal:
    scale = {"GiB": Decimal(1), "GB": Decimal(10**9) / BYTES_PER_GIB, "MiB": Decimal(1) / 1024,
             "MB": Decimal(10**6) / BYTES_PER_GIB}[case["unit"]]
    return Decimal(str(case["figure"])) * scale


def estimate(case: dict[str, Any]) -> dict[str, Decimal]:
    """The page's allocated peak and nvidia-smi band for the case, GiB."""
    given = vram_step.read(_values(page_fields(case)))
    result = vram_step.evaluate_step(given)
    low, expected, high = vram_step.shown_of(given, result)
    return {"allocated": result.allocated / BYTES_PER_GIB, "low": low / BYTES_PER_GIB,
            "expected": expected / BYTES_PER_GIB, "high": high / BYTES_PER_GIB}


def _values(fields: dict[str, str]) -> dict[str, Any]:
    evaluation = evaluate(CALCULATOR, fields)
    assert evaluation.status == "ok", evaluation.errors
    return evaluation.values


def per_gpu_figure(case: dict[str, Any]) -> Decimal:
    """The figure per GPU in GiB (Qwen's README gives the total over its GPUs for its multi-GPU rows)."""
    figure = figure_gib(case)
    return figure / (case["gpus"] or 1) if case["name"].endswith("_total") else figure


def kind(case: dict[str, Any]) -> str:
    """What the figure is. torchtune's tables come from its own logger, which prints the allocator's active peak
    (torchtune/training/memory.py: memory_stats()["active_bytes.all.peak"]): the allocated peak."""
    if case["kind"] == "unknown" and case["source"].startswith("pytorch/torchtune@"):
        return "max_memory_allocated"
    return str(case["kind"])


# The tolerance of each kind of figure, as (lowest, highest) ratio of the published figure to the estimate of it.
# Allocated: ±20 %, because torchtune and LitGPT run their own model code with fused or compiled kernels, whose
# saved tensors differ from Transformers' (on which the activation terms were measured) — torch.compile alone
# moved torchtune's Llama 3.2 3B peak by 15 %. Reserved: the estimate is allocated × 1,10, and the caching
# allocator keeps from a few per cent to a third more (fragmentation under FSDP): −20 %/+30 %. A figure whose
# kind the source does not state may be any of the three: from 0,8 × the allocated peak to 1,1 × the high end of
# the nvidia-smi band.
TOLERANCE = {"max_memory_allocated": (Decimal("0.80"), Decimal("1.20")),
             "max_memory_reserved": (Decimal("0.80"), Decimal("1.30"))}
RESERVE = Decimal("1.10")


def accepted(case: dict[str, Any]) -> tuple[Decimal, Decimal]:
    """The range of published figures (GiB per GPU) the estimate accepts for this case."""
    e = estimate(case)
    figure_kind = kind(case)
    if figure_kind == "max_memory_allocated":
        low, high = TOLERANCE[figure_kind]
        return e["allocated"] * low, e["allocated"] * high
    if figure_kind == "max_memory_reserved":
        low, high = TOLERANCE[figure_kind]
        return e["allocated"] * RESERVE * low, e["allocated"] * RESERVE * high
    return e["allocated"] * Decimal("0.8"), e["high"] * Decimal("1.1")
