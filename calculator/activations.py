"""Calcolatore della memoria delle attivazioni: where the A of the accumulation page comes from.

Bytes kept for the backward pass by each decoder layer, term by term, after
Korthikanti et al. 2022 (arXiv:2205.05198 §4): for a GPT-style layer in 16-bit
with dropout, s·b·h·(34 + 5·a·s/h). The terms are written for any shape, so that
grouped-query attention, gated MLPs, no dropout and FlashAttention follow from
the same list (see ``layer_terms``); tensor and sequence parallelism and
recomputation follow the paper's Table 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .catalogue import GATED, PLAIN, preset
from .model import Calculator, Feed, Field, Kind, Option, Outputs, Result, Values, integer, number, size_field
from .numbers import format_integer
from .svg import stacked_bar

GB = Decimal(10**9)
MB = Decimal(10**6)
GIB = Decimal(2**30)
PRECISION = {"bf16": 2, "fp16": 2, "fp32": 4}
EAGER, FLASH = "eager", "flash"
NONE, SELECTIVE, FULL = "nessuno", "selettivo", "completo"
MAX_SEQUENCE = 1_048_576

# Components of the breakdown, in the order the bar shows them.
COMPONENTS = {
    "norms": "Input delle normalizzazioni",
    "attention": "Proiezioni dell'attenzione (Q, K, V, input di QKV e di O)",
    "scores": "Punteggi, softmax e statistiche dell'attenzione",
    "mlp": "MLP",
    "masks": "Maschere di dropout",
    "logits": "Logit e cross-entropy",
}


@dataclass(frozen=True)
class Shape:
    """What the memory depends on: the model's shape and how it is trained."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    gated: bool
    vocab: int
    sequence: int
    micro_batch: int
    precision: int  # bytes per activation element
    loss_precision: int  # bytes per logit kept for the cross-entropy
    flash: bool
    dropout: bool
    norm_fp32: bool  # norms that compute in fp32 and keep an fp32 copy of their input (as transformers)
    tensor_parallel: int
    sequence_parallel: bool
    checkpointing: str


def layer_terms(shape: Shape) -> dict[str, Decimal]:
    """Bytes one layer keeps for backward, by component, per GPU (Korthikanti et al. §4.1, generalised).

    With h = heads · head_dim, kv_heads = heads, a plain MLP of 4h, 2-byte activations and dropout:
    norms 4sbh, attention 10sbh, masks 2sbh + a·s²·b, scores 4·a·s²·b, MLP 16sbh: the paper's 34sbh + 5as²b.
    """
    s, b, h, p = shape.sequence, shape.micro_batch, shape.hidden, shape.precision
    q_width = shape.heads * shape.head_dim
    # Eager attention repeats K and V to every query head before the product (as transformers' repeat_kv);
    # FlashAttention reads the grouped K and V as they are.
    kv_width = shape.kv_heads * shape.head_dim if shape.flash else q_width
    sbh = s * b * h
    t = shape.tensor_parallel
    replicated = {  # without sequence parallelism every tensor-parallel rank keeps these whole
        "norms": Decimal(2 * norm_bytes(shape) * sbh),  # what the two norms keep of their input
        "attention": Decimal(p * sbh),  # QKV's input (the first norm's output)
        "mlp": Decimal(p * sbh),  # the MLP's input (the second norm's output)
        "masks": Decimal(2 * sbh if shape.dropout else 0),  # after attention and after the MLP, 1 byte each
    }
    heads_terms = s * b * shape.heads * s  # a·s²·b
    if shape.flash:
        # Q, K, V and the output (also out_proj's input) plus the softmax statistics (fp32 per row).
        scores = Decimal(4 * s * b * shape.heads)
        attention = Decimal(p * s * b * (2 * q_width + 2 * kv_width))
    else:
        scores = Decimal(p * heads_terms)  # softmax output
        if shape.dropout:
            scores += heads_terms + p * heads_terms  # its dropout mask, and its output (what multiplies V)
        attention = Decimal(p * s * b * (2 * q_width + 2 * kv_width))  # Q, K, V, out_proj's input
    intermediate = s * b * shape.intermediate
    mlp = Decimal(p * intermediate * (4 if shape.gated else 2))
    divided = {"attention": attention, "scores": scores, "mlp": mlp}
    terms = {}
    for key in ("norms", "attention", "scores", "mlp", "masks"):
        whole = replicated.get(key, Decimal(0))
        part = divided.get(key, Decimal(0))
        terms[key] = (whole + part) / t if shape.sequence_parallel else whole + part / t
    if shape.checkpointing == SELECTIVE:
        terms["scores"] = Decimal(0) if not shape.flash else terms["scores"]
    elif shape.checkpointing == FULL:
        kept = Decimal(p * sbh) / (t if shape.sequence_parallel else 1)  # only the layer's input
        terms = {key: Decimal(0) for key in terms}
        terms["norms"] = kept
    return terms


def norm_bytes(shape: Shape) -> int:
    """Bytes a norm keeps per value of its input: the input itself (a fused kernel), or, computing in fp32 as
    transformers' LlamaRMSNorm does, an fp32 copy of it and the normalised values before the weight."""
    return 4 + shape.precision if shape.norm_fp32 else shape.precision


def logits_bytes(shape: Shape) -> Decimal:
    """The model's output: the final norm's and the head's inputs, and the cross-entropy's input kept for
    its backward, b·s·vocabulary logits (vocab-parallel over t)."""
    s, b = shape.sequence, shape.micro_batch
    head = Decimal((norm_bytes(shape) + shape.precision) * s * b * shape.hidden)
    return head + Decimal(shape.loss_precision * s * b * shape.vocab) / shape.tensor_parallel


def estimate(shape: Shape) -> dict[str, Decimal]:
    """Bytes for the whole model per GPU, by component (layers × layer terms, plus the logits)."""
    per_layer = layer_terms(shape)
    total = {key: value * shape.layers for key, value in per_layer.items()}
    total["logits"] = logits_bytes(shape)
    return total


def shape_of(values: Values) -> Shape:
    return Shape(
        layers=integer(values, "layers"), hidden=integer(values, "hidden_size"),
        heads=integer(values, "attention_heads"), kv_heads=integer(values, "kv_heads"),
        head_dim=integer(values, "head_dim"), intermediate=integer(values, "intermediate_size"),
        gated=values["mlp"] == GATED, vocab=integer(values, "vocab_size"),
        sequence=integer(values, "sequence_length"), micro_batch=integer(values, "micro_batch"),
        precision=PRECISION[str(values["precision"])], loss_precision=4 if values["loss_fp32"] is True else
        PRECISION[str(values["precision"])],
        flash=values["attention"] == FLASH, dropout=values["dropout"] is True, norm_fp32=values["norm_fp32"] is True,
        tensor_parallel=integer(values, "tensor_parallel"), sequence_parallel=values["sequence_parallel"] is True,
        checkpointing=str(values["checkpointing"]),
    )


def compute(values: Values) -> Outputs:
    """Activations per sample (A), per micro-batch (M = b·A), per layer, and by component."""
    shape = shape_of(values)
    parts = estimate(shape)
    total = sum(parts.values(), Decimal(0))
    per_layer = sum(layer_terms(shape).values(), Decimal(0))
    b = shape.micro_batch
    return {
        "per_sample_gb": total / b / GB,
        "per_micro_batch_gb": total / GB,
        "per_micro_batch_gib": total / GIB,
        "per_layer_mb": per_layer / MB,
        "layers_gb": (total - parts["logits"]) / GB,
        "logits_gb": parts["logits"] / GB,
        **{f"part_{key}_gb": value / GB for key, value in parts.items()},
    }


def check(values: Values) -> dict[str, str]:
    """Shapes that cannot exist, and splits tensor parallelism cannot make."""
    errors: dict[str, str] = {}
    heads, kv_heads, t = (integer(values, k) for k in ("attention_heads", "kv_heads", "tensor_parallel"))
    if kv_heads > heads or heads % kv_heads:
        errors["kv_heads"] = "Teste chiave/valore: devono dividere esattamente le teste di attenzione."
    if heads % t:
        errors["tensor_parallel"] = (
            f"Parallelismo tensoriale: {format_integer(t)} GPU non dividono le {format_integer(heads)} teste di"
            " attenzione (ogni GPU deve avere lo stesso numero di teste)."
        )
    elif kv_heads % t and t % kv_heads:
        errors["tensor_parallel"] = (
            f"Parallelismo tensoriale: {format_integer(t)} GPU e {format_integer(kv_heads)} teste chiave/valore"
            " non si dividono esattamente né in un verso né nell'altro."
        )
    if integer(values, "hidden_size") % t or integer(values, "intermediate_size") % t:
        errors.setdefault("tensor_parallel", "Parallelismo tensoriale: deve dividere la dimensione nascosta e quella"
                                             " intermedia.")
    return errors


def chart(values: Values, outputs: Outputs) -> str:
    parts = [(label, number(outputs, f"part_{key}_gb")) for key, label in COMPONENTS.items()]
    return stacked_bar("Attivazioni per micro-batch e per GPU, per componente", parts, "GB")


GPT3_175B = {
    "layers": "96", "hidden_size": "12288", "attention_heads": "96", "kv_heads": "96", "head_dim": "128",
    "intermediate_size": "49152", "mlp": PLAIN, "vocab_size": "51200", "sequence_length": "2048",
    "micro_batch": "1", "precision": "fp16", "attention": EAGER, "dropout": "on", "tensor_parallel": "8",
    "norm_fp32": "",
}


def _size(field_id: str, label: str, default: str, help_text: str, maximum: int = 1_000_000) -> Field:
    return size_field(field_id, label, default, help_text, "Modello", maximum)


CALCULATOR = Calculator(
    id="memoria-attivazioni",
    order=15,
    title="Calcolatore della memoria delle attivazioni",
    summary=(
        "Stima la memoria delle attivazioni che un modello linguistico conserva per il passaggio all'indietro:"
        " per campione, per micro-batch e per strato, con attenzione eager o FlashAttention, checkpointing e"
        " parallelismo tensoriale."
    ),
    fields=(
        _size("layers", "Numero di strati", "32", "Blocchi decoder del modello (num_hidden_layers).", 10_000),
        _size("hidden_size", "Dimensione nascosta", "4096", "Dimensione del modello h (hidden_size)."),
        _size("attention_heads", "Teste di attenzione", "32", "num_attention_heads (a).", 100_000),
        _size("kv_heads", "Teste chiave/valore", "8",
              "num_key_value_heads: meno delle teste di attenzione con la grouped-query attention.", 100_000),
        _size("head_dim", "Dimensione di ogni testa", "128",
              "head_dim: di solito dimensione nascosta / teste; Gemma e Qwen3 la fissano nel config.", 100_000),
        _size("intermediate_size", "Dimensione intermedia (MLP)", "14336", "intermediate_size."),
        Field(id="mlp", label="Tipo di MLP", default=GATED, kind=Kind.CHOICE, group="Modello",
              options=(Option(GATED, "Con gate (SwiGLU/GeGLU, tre matrici)"),
                       Option(PLAIN, "Semplice (GELU, due matrici)")),
              help="Llama, Mistral, Qwen e Gemma usano l'MLP con gate; GPT-2, GPT-3, OPT e BLOOM quello semplice."),
        _size("vocab_size", "Vocabolario", "128256", "vocab_size: decide la memoria dei logit.", 10_000_000),
        Field(id="sequence_length", label="Lunghezza delle sequenze", default="4096", unit="token",
              group="Addestramento", maximum=Decimal(MAX_SEQUENCE), example="4096",
              help="Token di ogni campione (s)."),
        Field(id="micro_batch", label="Micro-batch", default="1", unit="campioni", group="Addestramento",
              maximum=Decimal(100_000), help="Campioni per GPU in un passaggio in avanti (b)."),
        Field(id="precision", label="Precisione delle attivazioni", default="bf16", kind=Kind.CHOICE,
              group="Addestramento", options=(Option("bf16", "bf16 (2 byte)"), Option("fp16", "fp16 (2 byte)"),
                                             Option("fp32", "fp32 (4 byte)")),
              help="Byte di ogni valore conservato."),
        Field(id="loss_fp32", label="Logit in fp32 per la loss", default="on", kind=Kind.FLAG,
              group="Addestramento", help="Come fa Transformers, che converte i logit in fp32 prima della cross-entropy."),
        Field(id="norm_fp32", label="Normalizzazioni in fp32 (come Transformers)", default="on", kind=Kind.FLAG,
              group="Addestramento",
              help="LlamaRMSNorm e simili calcolano in fp32 e conservano una copia fp32 dell'input; i kernel fusi"
                   " (Megatron, Liger) solo l'input."),
        Field(id="attention", label="Implementazione dell'attenzione", default=FLASH, kind=Kind.CHOICE,
              group="Addestramento",
              options=(Option(FLASH, "FlashAttention / SDPA (statistiche O(s))"),
                       Option(EAGER, "Eager (conserva la matrice s × s)")),
              help="L'attenzione eager conserva i punteggi s × s di ogni testa; FlashAttention li ricalcola."),
        Field(id="dropout", label="Dropout attivo", default="", kind=Kind.FLAG, group="Addestramento",
              help="Con il dropout si conservano anche le maschere (1 byte per valore)."),
        Field(id="checkpointing", label="Checkpointing delle attivazioni", default=NONE, kind=Kind.CHOICE,
              group="Risparmio di memoria",
              options=(Option(NONE, "Nessuno"), Option(SELECTIVE, "Selettivo (ricalcola l'attenzione)"),
                       Option(FULL, "Completo (conserva solo l'input di ogni strato)")),
              help="Korthikanti et al. 2022: il selettivo ricalcola solo i punteggi dell'attenzione."),
        Field(id="tensor_parallel", label="Parallelismo tensoriale", default="1", unit="GPU",
              group="Risparmio di memoria", maximum=Decimal(1024),
              help="GPU tra cui si dividono le matrici di ogni strato (t)."),
        Field(id="sequence_parallel", label="Parallelismo di sequenza", default="", kind=Kind.FLAG,
              group="Risparmio di memoria", help="Divide per t anche le normalizzazioni e il dropout."),
    ),
    results=(
        Result("per_sample_gb", "Attivazioni per campione (A)", "GB",
               help="Da inserire nel calcolatore della memoria con accumulo del gradiente."),
        Result("per_micro_batch_gb", "Attivazioni per micro-batch e per GPU", "GB",
               help="M = b · A: da inserire nel calcolatore della VRAM."),
        Result("per_micro_batch_gib", "Le stesse in GiB", "GiB", primary=False),
        Result("per_layer_mb", "Per strato, per micro-batch", "MB", primary=False),
        Result("layers_gb", "Tutti gli strati", "GB", primary=False),
        Result("logits_gb", "Logit e cross-entropy", "GB", primary=False,
               help="b · s · vocabolario valori (più gli input della normalizzazione finale e della testa):"
                    " grande con vocabolari da 128k–256k token."),
        # The breakdown of the bar, in words too (the logits are the result above).
        *(Result(f"part_{key}_gb", label, "GB", primary=False) for key, label in COMPONENTS.items() if key != "logits"),
    ),
    compute=compute,
    check=check,
    chart=chart,
    feeds=(
        Feed("accumulo", "accumulo-del-gradiente", "Calcolatore della memoria con accumulo del gradiente, con A",
             {"activation_per_sample_gb": "per_sample_gb", "micro_batch": "micro_batch",
              "sequence_length": "sequence_length"}, {"activation_unit": "GB", "mode": "diretto"}),
        Feed("vram", "vram-addestramento-llm", "Calcolatore della VRAM, con la memoria delle attivazioni per GPU",
             {"activation_gb": "per_micro_batch_gb"}),
    ),
    presets=tuple(preset(m) for m in ("llama-3.1-8b", "llama-3.2-1b", "mistral-7b", "qwen2.5-7b", "qwen3-8b",
                                       "gemma-2-2b", "gpt2")),
    examples={
        "predefinito": {},
        "eager": {"attention": EAGER},
        "eager_doppio": {"attention": EAGER, "sequence_length": "8192"},
        "flash_doppio": {"sequence_length": "8192"},
        "selettivo": {"attention": EAGER, "checkpointing": SELECTIVE},
        "completo": {"checkpointing": FULL},
        "micro_batch_4": {"micro_batch": "4"},
        "fp16_logit": {"loss_fp32": ""},
        # GPT-3 175B as Korthikanti et al. train it (Table 3): h = 12288, a = 96, L = 96, s = 2048, t = 8.
        **{name: {**GPT3_175B, **extra} for name, extra in {
            "gpt3": {},
            "gpt3_sp": {"sequence_parallel": "on"},
            "gpt3_selettivo": {"checkpointing": SELECTIVE},
            "gpt3_sp_selettivo": {"sequence_parallel": "on", "checkpointing": SELECTIVE},
        }.items()},
    },
)
