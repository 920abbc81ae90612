"""The LoRA setups the PEFT cross-check runs, and the LoRA page's answer for each (no PyTorch needed).

Shared by tools/peft_check.py, which counts them with Transformers and PEFT, and tests/pages/test_peft_counts.py,
which compares the page with the figures that script recorded.
"""

from __future__ import annotations

from typing import Any

from calculator import CALCULATORS
from calculator.form.evaluate import evaluate
from calculator.form.model import number
from calculator.llm.catalogue import Architecture
from calculator.llm.lora_adapters import MODULES
from calculator.pages.presets import field_texts


def linear_modules(entry: Architecture) -> list[str]:
    """The LoRA page's names for every linear layer of a block, as the model has them."""
    attention = ["qkv_proj"] if entry.fused_qkv else ["q_proj", "k_proj", "v_proj"]
    if entry.mla:
        query = ["q_a_proj", "q_b_proj"] if entry.q_lora_rank else ["q_proj"]
        attention = [*query, "kv_a_proj_with_mqa", "kv_b_proj"]
    if entry.fused_gate_up:
        mlp = ["gate_up_proj", "down_proj"]
    elif entry.mlp == "gated":
        mlp = ["gate_proj", "up_proj", "down_proj"]
    else:
        mlp = ["up_proj", "down_proj"]
    return [*attention, "o_proj", *mlp]


def setups(entry: Architecture) -> list[dict[str, Any]]:
    """Every linear layer (r=8); query and value, or the fused matrix (r=16); the biases where the model has some;
    the router with one expert matrix; DoRA for a few dense families."""
    everything = linear_modules(entry)
    pair = ["qkv_proj"] if entry.fused_qkv else ["q_proj", "v_proj"]
    if entry.mla:  # the query's last projection and the one that makes keys and values
        pair = ["q_b_proj" if entry.q_lora_rank else "q_proj", "kv_b_proj"]
    cases = [{"rank": 8, "modules": everything}, {"rank": 16, "modules": pair}]
    if entry.bias or entry.qkv_bias:
        cases.append({"rank": 8, "modules": everything[:2], "bias": "lora_only"})
        cases.append({"rank": 8, "modules": everything[:2], "bias": "all"})
    if entry.experts:
        cases.append({"rank": 4, "modules": ["down_proj", "router"]})
    if entry.family in ("Llama", "Qwen", "Gemma") and not entry.experts:
        cases.append({"rank": 8, "modules": everything, "use_dora": True})
    return cases


def page_count(entry: Architecture, case: dict[str, Any]) -> int:
    """The LoRA page's trainable parameters for the model and the setup."""
    calc = CALCULATORS["parametri-lora"]
    values = {**calc.defaults, **field_texts(entry), **{m: "" for m in MODULES},
              **{m: "on" for m in case["modules"]}, "rank": str(case["rank"]), "bias": case.get("bias", "none"),
              "use_dora": "on" if case.get("use_dora") else ""}
    evaluation = evaluate(calc, values)
    if evaluation.status != "ok":
        raise ValueError(f"{entry.id} {case}: {evaluation.errors}")
    return int(number(evaluation.outputs, "trainable_parameters"))


def shortcut_count(entry: Architecture, which: str, rank: int = 8) -> int:
    """The LoRA page's trainable parameters for the model with a shortcut of its target list ("all-linear",
    "attenzione"), whatever boxes its preset ticks."""
    calc = CALCULATORS["parametri-lora"]
    values = {**calc.defaults, **field_texts(entry), "target_set": which, "rank": str(rank)}
    evaluation = evaluate(calc, values)
    if evaluation.status != "ok":
        raise ValueError(f"{entry.id} {which}: {evaluation.errors}")
    return int(number(evaluation.outputs, "trainable_parameters"))
