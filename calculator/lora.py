"""Calcolatore dei parametri LoRA.

Each adapted matrix W of shape d_out × d_in gains two factors, B (d_out × r)
and A (r × d_in): r·(d_in + d_out) trainable parameters (Hu et al.,
arXiv:2106.09685 §4.1). The attention projections are sized from the head
dimension, which some configs set on their own (Gemma, Qwen3): q_proj maps the
hidden size to heads · head_dim, k_proj and v_proj to kv_heads · head_dim
(grouped-query attention), o_proj back from heads · head_dim.
"""

from __future__ import annotations

from decimal import Decimal

from .catalogue import preset
from .model import Calculator, Feed, Field, Format, Kind, Outputs, Result, Values, integer, size_field

ADAPTER_BYTES_HALF = 2  # fp16/bf16
ADAPTER_BYTES_FULL = 4  # fp32
TRAINING_STATE_BYTES = 12  # fp32 gradient (4) + AdamW first and second moment (4 + 4)
MB = Decimal(10**6)

MODULES = {
    "q_proj": "Query (q_proj)",
    "k_proj": "Key (k_proj)",
    "v_proj": "Value (v_proj)",
    "o_proj": "Output dell'attenzione (o_proj)",
    "gate_proj": "Gate dell'MLP (gate_proj)",
    "up_proj": "Up dell'MLP (up_proj)",
    "down_proj": "Down dell'MLP (down_proj)",
}


def shapes(hidden: int, intermediate: int, heads: int, kv_heads: int, head_dim: int) -> dict[str, tuple[int, int]]:
    """(d_in, d_out) of each adaptable matrix of a Llama-style decoder layer."""
    q_dim, kv_dim = heads * head_dim, kv_heads * head_dim
    return {
        "q_proj": (hidden, q_dim),
        "k_proj": (hidden, kv_dim),
        "v_proj": (hidden, kv_dim),
        "o_proj": (q_dim, hidden),
        "gate_proj": (hidden, intermediate),
        "up_proj": (hidden, intermediate),
        "down_proj": (intermediate, hidden),
    }


def compute(values: Values) -> Outputs:
    """Trainable LoRA parameters, their share of the model, sizes and training state."""
    rank, layers = integer(values, "rank"), integer(values, "layers")
    matrices = shapes(integer(values, "hidden_size"), integer(values, "intermediate_size"),
                      integer(values, "attention_heads"), integer(values, "kv_heads"), integer(values, "head_dim"))
    per_layer = sum(rank * (d_in + d_out) for name, (d_in, d_out) in matrices.items() if values[name] is True)
    trainable = Decimal(layers * per_layer)
    total = values["total_parameters_billion"]
    share = trainable / (total * 10**9) * 100 if isinstance(total, Decimal) else None
    return {
        "trainable_parameters": trainable,
        "trainable_percent": share,
        "adapter_half_mb": trainable * ADAPTER_BYTES_HALF / MB,
        "adapter_full_mb": trainable * ADAPTER_BYTES_FULL / MB,
        "training_state_mb": trainable * TRAINING_STATE_BYTES / MB,
    }


def check(values: Values) -> dict[str, str]:
    """Key/value heads must divide the heads, and at least one module must be adapted."""
    errors: dict[str, str] = {}
    heads, kv_heads = (integer(values, k) for k in ("attention_heads", "kv_heads"))
    if kv_heads > heads or heads % kv_heads:
        errors["kv_heads"] = "Teste chiave/valore: devono dividere esattamente le teste di attenzione."
    if not any(values[name] is True for name in MODULES):
        errors["q_proj"] = "Scegli almeno un modulo da adattare."
    return errors


def _size_field(field_id: str, label: str, default: str, help_text: str, maximum: int = 1_000_000) -> Field:
    return size_field(field_id, label, default, help_text, "Architettura", maximum)


CALCULATOR = Calculator(
    id="parametri-lora",
    order=30,
    title="Calcolatore dei parametri LoRA",
    summary=(
        "Calcola i parametri addestrabili che LoRA aggiunge a un modello linguistico, la loro quota sul"
        " totale e la memoria che occupano, a partire da rango, architettura e moduli adattati."
    ),
    fields=(
        Field(id="rank", label="Rango r", default="8", group="LoRA", maximum=Decimal(65_536),
              help="Rango delle due matrici a basso rango di ogni adattatore."),
        *(
            Field(id=name, label=label, default="on" if name in {"q_proj", "v_proj"} else "",
                  kind=Kind.FLAG, group="Moduli adattati", help="")
            for name, label in MODULES.items()
        ),
        _size_field("layers", "Numero di strati", "32", "Blocchi decoder del modello (num_hidden_layers).", 10_000),
        _size_field("hidden_size", "Dimensione nascosta", "4096", "Dimensione del modello (hidden_size)."),
        _size_field("intermediate_size", "Dimensione intermedia (MLP)", "11008",
                    "Dimensione interna dell'MLP (intermediate_size)."),
        _size_field("attention_heads", "Teste di attenzione", "32", "num_attention_heads.", 100_000),
        _size_field("kv_heads", "Teste chiave/valore", "32",
                    "num_key_value_heads: meno delle teste di attenzione con la grouped-query attention.", 100_000),
        _size_field("head_dim", "Dimensione di ogni testa", "128",
                    "head_dim: di solito dimensione nascosta / teste; Gemma e Qwen3 la fissano nel config.", 100_000),
        Field(id="total_parameters_billion", label="Parametri totali del modello", default="6,74",
              kind=Kind.DECIMAL, unit="miliardi", group="Architettura", optional=True,
              minimum=Decimal(0), exclusive_minimum=True, maximum=Decimal(100_000),
              help="Facoltativo: serve per la percentuale di parametri addestrabili."),
    ),
    results=(
        Result("trainable_parameters", "Parametri addestrabili", format=Format.COUNT),
        Result("trainable_percent", "Quota del modello", format=Format.PERCENT,
               help="Rispetto ai parametri totali indicati."),
        Result("adapter_half_mb", "Adattatore su disco in fp16/bf16", "MB", help="2 byte per parametro.", primary=False),
        Result("adapter_full_mb", "Adattatore su disco in fp32", "MB", help="4 byte per parametro.", primary=False),
        Result("training_state_mb", "Gradienti e stati AdamW", "MB",
               help="12 byte per parametro addestrabile: gradiente fp32 e due momenti fp32.", primary=False),
    ),
    compute=compute,
    check=check,
    feeds=(
        Feed("vram", "vram-addestramento-llm", "Calcolatore della VRAM, con lo stesso numero di parametri",
             {"parameters_billion": "total_parameters_billion"}),
    ),
    # Models whose MLP has gate, up and down projections (the modules listed above).
    presets=tuple(preset(m) for m in ("llama-2-7b", "mistral-7b", "llama-3.1-8b", "qwen2.5-7b", "qwen3-8b",
                                       "gemma-2-2b")),
    examples={
        "predefinito": {},
        "tutti_i_moduli": {m: "on" for m in MODULES},
        "llama3_8b": {"intermediate_size": "14336", "kv_heads": "8", "total_parameters_billion": "8,03"},
        "rango_16": {"rank": "16"},
    },
)
