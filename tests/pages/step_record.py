"""The whole training steps traced with fake tensors (``tests/data/step_record.json``, made by
``tools/measure_step.py``) as the VRAM page's «picco di un passo» reads them."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from calculator.form.evaluate import evaluate
from calculator.llm.catalogue import MODELS
from calculator.pages import vram_step
from calculator.pages.presets import field_texts
from calculator.pages.vram import CALCULATOR

RECORD: dict[str, Any] = json.loads((Path(__file__).resolve().parents[1] / "data" / "step_record.json").read_text())
SETUPS: list[dict[str, Any]] = RECORD["setups"]
BY_HF_ID = {entry.source.split("huggingface.co/")[-1].split("/blob")[0].lower(): entry for entry in MODELS}


def model_fields(setup: dict[str, Any]) -> dict[str, str]:
    """The catalogue entry of the traced model (the trace's config is the published one); a model outside the
    catalogue from its config's keys."""
    hf_id = setup["model"]["hf_id"].lower()
    entry = next((e for e in MODELS if hf_id.split("/")[-1] in e.source.lower() or e.id in hf_id), None)
    if entry is not None:
        return dict(field_texts(entry))
    config = setup["model"]["config"]
    heads = config["num_attention_heads"]
    return {
        "layers": str(config["num_hidden_layers"]), "hidden_size": str(config["hidden_size"]),
        "intermediate_size": str(config["intermediate_size"]), "attention_heads": str(heads),
        "kv_heads": str(config.get("num_key_value_heads", heads)),
        "head_dim": str(config.get("head_dim") or config["hidden_size"] // heads),
        "vocab_size": str(config["vocab_size"]), "experts": str(config.get("num_experts", 0)),
        "experts_per_token": str(config.get("num_experts_per_tok", 0)),
        "tied_embeddings": "on" if config.get("tie_word_embeddings") else "",
        # OLMoE normalises the whole query and key projections (OlmoeAttention's q_norm, k_norm).
        "qk_norm": "on" if setup["model"]["model_type"] == "olmoe" else "",
    }


def precision(step: dict[str, Any]) -> str:
    if step.get("autocast"):
        return "autocast"
    return "bf16" if step["weights_dtype"] == "bfloat16" else "fp32"


def optimizer(step: dict[str, Any]) -> str:
    spec = step["optimizer"]
    name = spec["name"]
    if name == "adamw":
        return "adamw_fused" if spec.get("fused") else "adamw"
    return {"adam8bit": "adamw_8bit"}.get(name, name)


def targets(names: list[str]) -> str:
    """The page's set of targets for the trace's."""
    chosen = set(names)
    if {"gate_proj", "down_proj"} <= chosen:
        return "tutti"
    return "attenzione" if "o_proj" in chosen else "qv"


def loss(text: str) -> str:
    if text.startswith("chunked with recomputation"):
        return "fusa"
    return "a_blocchi" if text.startswith("chunked") else "standard"


def page_fields(setup: dict[str, Any]) -> dict[str, str]:
    step = setup["setup"]
    fields = {f.id: f.default for f in CALCULATOR.fields}
    fields.update({k: v for k, v in model_fields(setup).items() if k in fields})
    fields.update({
        "convention": vram_step.STEP, "parameters_billion": _billions(setup["model"]["parameters"]),
        "method": {"full": "completo", "freeze": "congelato"}.get(step["method"], step["method"]),
        "precision_mode": precision(step), "step_optimizer": optimizer(step),
        "optimizer_in_backward": "on" if step.get("optimizer_in_backward") else "",
        "micro_batch": str(step["micro_batch"]), "sequence_length": str(step["sequence"]),
        "attention": "eager" if step["attention"] == "eager" else "flash",
        "checkpointing": "completo" if step["checkpointing"] == "hf" else "nessuno",
        "loss": loss(str(step["loss"])),
        "gpu_memory_gb": "1000",
    })
    if step.get("decoder_sequence"):  # an encoder–decoder: the page's sequence is the decoder's
        fields.update({"sequence_length": str(step["decoder_sequence"]), "encoder_sequence": str(step["sequence"])})
    dropout = setup["model"]["config"].get("dropout_rate") or setup["model"]["config"].get("attention_dropout")
    fields["dropout"] = "on" if dropout else ""
    if step["method"] in ("lora", "dora"):
        lora = step["lora"]
        fields.update({"lora_trainable": str(setup["model"]["trainable"]), "rank": str(lora["rank"]),
                       "lora_targets": targets(lora["targets"]), "lora_dropout": "on" if lora["dropout"] else "",
                       "adapter_dtype": "fp32" if lora["adapter_dtype"] == "float32" else "base",
                       "method": "dora" if lora.get("use_dora") else "lora"})
    if step["method"] == "freeze":
        fields["trainable_layers"] = str(step["frozen"]["trainable_layers"]) if isinstance(step["frozen"], dict) \
            else "4"
    return fields


def _billions(count: int) -> str:
    return f"{Decimal(count) / 10**9:.6f}".replace(".", ",")


def estimate(setup: dict[str, Any]) -> dict[str, Decimal]:
    """The page's allocated peak and each phase, bytes."""
    evaluation = evaluate(CALCULATOR, page_fields(setup))
    assert evaluation.status == "ok", evaluation.errors
    given = vram_step.read(evaluation.values)
    result = vram_step.evaluate_step(given)
    return {"peak": result.allocated, **{phase.name: phase.total for phase in result.phases}}


def rows() -> list[tuple[str, str, str, str]]:
    """The article's table: each traced setup, its measured peak and the page's, GiB, and the error."""
    from calculator.form.numbers import format_decimal
    from calculator.llm.units import BYTES_PER_GIB

    out = []
    for setup in SETUPS:
        measured = Decimal(setup["peak"]["bytes"])
        guess = estimate(setup)["peak"]
        error = (guess / measured - 1) * 100
        out.append((f"`{setup['name']}`", format_decimal((measured / BYTES_PER_GIB).quantize(Decimal("0.01"))),
                    format_decimal((guess / BYTES_PER_GIB).quantize(Decimal("0.01"))),
                    f"{format_decimal(error.quantize(Decimal('0.1')))} %"))
    return out
