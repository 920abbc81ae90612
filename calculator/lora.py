"""Calcolatore dei parametri LoRA.

Each adapted matrix W of shape d_out × d_in gains two factors, B (d_out × r)
and A (r × d_in): r·(d_in + d_out) trainable parameters (Hu et al.,
arXiv:2106.09685 §4.1). The attention projections are sized from the head
dimension, which some configs set on their own (Gemma, Qwen3): q_proj maps the
hidden size to heads · head_dim, k_proj and v_proj to kv_heads · head_dim
(grouped-query attention), o_proj back from heads · head_dim.

What PEFT adapts, architecture by architecture:
- a fused projection (Falcon's and BLOOM's query_key_value, GPT-2's c_attn,
  Phi-3's qkv_proj and gate_up_proj) is one matrix: r·(d_in + sum of the parts' d_out);
- a mixture of experts: every expert's matrices (named modules, or one 3-D
  parameter through ``target_parameters``, whose LoRA factors have r·experts
  rows: the same count), shared experts too, and the router only when targeted;
- an encoder–decoder: the self-attention and MLP of both stacks and the
  decoder's cross-attention (the same module names);
- embed_tokens and lm_head: r·(vocabulary + hidden) each;
- DoRA adds a magnitude vector of d_out values per adapted linear layer;
- a classification head in ``modules_to_save`` is trained whole, as a copy that
  PEFT keeps beside the original;
- ``bias="lora_only"`` also trains the biases of the adapted layers (d_out each,
  where the model has them), ``bias="all"`` every bias of the model.
PEFT's ``print_trainable_parameters()`` counts the base model plus the adapters
(and those copies) as "all params".
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from .catalogue import FUSED_GATE_UP, FUSED_QKV, GATED, PLAIN, SEPARATE, preset
from .model import (
    Calculator,
    Feed,
    Field,
    Format,
    Kind,
    Option,
    Outputs,
    Preset,
    Result,
    Values,
    count_field,
    integer,
    number,
    size_field,
)
from .numbers import format_integer

ADAPTER_BYTES_HALF = 2  # fp16/bf16
ADAPTER_BYTES_FULL = 4  # fp32
TRAINING_STATE_BYTES = 12  # fp32 gradient (4) + AdamW first and second moment (4 + 4)
MB = Decimal(10**6)

ATTENTION = {
    "q_proj": "Query (q_proj)",
    "k_proj": "Key (k_proj)",
    "v_proj": "Value (v_proj)",
    "qkv_proj": "Query, key e value fuse (query_key_value, c_attn, qkv_proj)",
    "o_proj": "Output dell'attenzione (o_proj, dense, c_proj)",
}
MLP = {
    "gate_proj": "Gate dell'MLP (gate_proj, w1)",
    "up_proj": "Up dell'MLP (up_proj, w3, fc1, c_fc)",
    "gate_up_proj": "Gate e up fuse (gate_up_proj)",
    "down_proj": "Down dell'MLP (down_proj, w2, fc2)",
    "router": "Router degli esperti (gate)",
}
EXTRA = {
    "embed_tokens": "Embedding dei token (embed_tokens)",
    "lm_head": "Testa del modello linguistico (lm_head)",
}
MODULES = {**ATTENTION, **MLP, **EXTRA}
# Which linear layers of a model carry a bias.
LINEAR_BIAS = (
    Option("none", "Nessuno (Llama, Mistral, Gemma, Phi-3, Falcon, T5)"),
    Option("qkv", "Solo query, key e value (Qwen2, Qwen2.5)"),
    Option("all", "Tutti gli strati lineari (GPT-2, OPT, BLOOM, BERT)"),
    Option("all_but_k", "Tutti tranne la key (Whisper)"),
)
BIAS_MODES = (
    Option("none", "none: nessun bias addestrato"),
    Option("lora_only", "lora_only: i bias degli strati adattati"),
    Option("all", "all: tutti i bias del modello"),
)
QKV = {"q_proj", "k_proj", "v_proj", "qkv_proj"}
# Classification heads people put in modules_to_save, by layout.
HEADS = (
    Option("linear", "Una matrice senza bias (score di Llama, Mistral, Qwen per la classificazione)"),
    Option("linear_bias", "Una matrice con bias (classifier di BERT, ViT)"),
    Option("dense_proj", "Strato denso più proiezione, con bias (classifier di RoBERTa)"),
)
LINEAR = {**ATTENTION, **MLP}  # DoRA gives these a magnitude vector


def shapes(hidden: int, intermediate: int, heads: int, kv_heads: int, head_dim: int) -> dict[str, tuple[int, int]]:
    """(d_in, d_out) of each adaptable matrix of a layer (an expert's MLP, for a mixture of experts)."""
    q_dim, kv_dim = heads * head_dim, kv_heads * head_dim
    return {
        "q_proj": (hidden, q_dim),
        "k_proj": (hidden, kv_dim),
        "v_proj": (hidden, kv_dim),
        "qkv_proj": (hidden, q_dim + 2 * kv_dim),
        "o_proj": (q_dim, hidden),
        "gate_proj": (hidden, intermediate),
        "up_proj": (hidden, intermediate),
        "gate_up_proj": (hidden, 2 * intermediate),
        "down_proj": (intermediate, hidden),
    }


def _adapter(rank: int, d_in: int, d_out: int, dora: bool) -> int:
    return rank * (d_in + d_out) + (d_out if dora else 0)


def _table(values: Values, size: int) -> dict[str, tuple[int, int]]:
    """The matrices of one layer of this shape, with an MLP (or expert) of ``size``."""
    heads, kv_heads, head_dim = (integer(values, k) for k in ("attention_heads", "kv_heads", "head_dim"))
    return shapes(integer(values, "hidden_size"), size, heads, kv_heads, head_dim)


def _over_layers(values: Values, attention: int, mlp: int) -> int:
    """Decoder-only: ``layers`` blocks. Encoder–decoder: the encoder's, then the decoder's with cross-attention."""
    return integer(values, "layers") * (attention + mlp) + integer(values, "decoder_layers") * (2 * attention + mlp)


def count(values: Values) -> int:
    """Trainable parameters of the adapters (and DoRA's magnitudes), over every layer that has the targets."""
    rank, dora = integer(values, "rank"), values["use_dora"] is True
    hidden, inner = integer(values, "hidden_size"), integer(values, "intermediate_size")
    experts, shared = integer(values, "experts"), integer(values, "shared_intermediate_size")
    chosen = {name for name in MODULES if values[name] is True}

    def matrices(size: int, names: set[str]) -> int:
        table = _table(values, size)
        return sum(_adapter(rank, *table[name], dora) for name in names)

    attention = matrices(inner, chosen & set(ATTENTION))
    mlp_names = chosen & {"gate_proj", "up_proj", "gate_up_proj", "down_proj"}
    mlp = matrices(inner, mlp_names) * max(experts, 1)
    if experts:
        mlp += matrices(shared, mlp_names) if shared else 0
        mlp += _adapter(rank, hidden, experts, dora) if "router" in chosen else 0
    total = _over_layers(values, attention, mlp)
    return total + rank * (integer(values, "vocab_size") + hidden) * len(chosen & set(EXTRA))


def trained_biases(values: Values) -> int:
    """Biases PEFT makes trainable: none, those of the adapted layers, or every bias of the model."""
    mode, where = values["bias"], values["linear_bias"]
    if mode == "all":
        return int(number(values, "model_biases"))
    if mode != "lora_only" or where == "none":
        return 0
    chosen = {name for name in LINEAR if values[name] is True} - {"router"}
    with_bias = chosen & QKV if where == "qkv" else chosen - ({"k_proj"} if where == "all_but_k" else set())
    table = _table(values, integer(values, "intermediate_size"))
    attention = sum(table[name][1] for name in with_bias if name in ATTENTION)
    if "qkv_proj" in with_bias and where == "all_but_k":
        attention -= integer(values, "kv_heads") * integer(values, "head_dim")
    mlp = sum(table[name][1] for name in with_bias if name not in ATTENTION) * max(integer(values, "experts"), 1)
    return _over_layers(values, attention, mlp)


def head(values: Values) -> int:
    """Parameters of the classification head in modules_to_save (0 without one)."""
    labels, hidden = integer(values, "num_labels"), integer(values, "hidden_size")
    if not labels:
        return 0
    layout = values["head_layout"]
    if layout == "linear":
        return hidden * labels
    if layout == "linear_bias":
        return hidden * labels + labels
    return hidden * hidden + hidden + hidden * labels + labels


def compute(values: Values) -> Outputs:
    """Trainable LoRA parameters, their share of the model, sizes, training state and PEFT's printout."""
    added = count(values) + head(values)  # new parameters: the adapters and the head's trained copy
    trainable = added + trained_biases(values)  # biases of the model itself that become trainable
    total = values["total_parameters_billion"]
    base = values["base_parameters"]
    share = Decimal(trainable) / (total * 10**9) * 100 if isinstance(total, Decimal) else None
    peft = "Indica i parametri esatti del modello base per vedere la riga di PEFT."
    if isinstance(base, Decimal):
        # PEFT counts the adapters among "all params", and the head twice: the original and its trained copy.
        everything = int(base) + added
        peft = (f"trainable params: {trainable:,d} || all params: {everything:,d}"
                f" || trainable%: {100 * trainable / everything:.4f}")
    return {
        "trainable_parameters": Decimal(trainable),
        "trainable_percent": share,
        "peft_printout": peft,
        "adapter_half_mb": trainable * ADAPTER_BYTES_HALF / MB,
        "adapter_full_mb": trainable * ADAPTER_BYTES_FULL / MB,
        "training_state_mb": trainable * TRAINING_STATE_BYTES / MB,
    }


def check(values: Values) -> dict[str, str]:
    """Targets the architecture has, key/value heads that divide the heads, and at least one target."""
    errors: dict[str, str] = {}
    heads, kv_heads = (integer(values, k) for k in ("attention_heads", "kv_heads"))
    if kv_heads > heads or heads % kv_heads:
        errors["kv_heads"] = (f"Teste chiave/valore: devono dividere esattamente le {format_integer(heads)}"
                              " teste di attenzione.")
    chosen = {name for name in MODULES if values[name] is True}
    if not chosen and not integer(values, "num_labels"):
        errors["q_proj"] = "Scegli almeno un modulo da adattare."
    fused = values["attention_layout"] == FUSED_QKV
    if fused and chosen & {"q_proj", "k_proj", "v_proj"}:
        errors["q_proj"] = ("Query, key e value: con l'attenzione «fusa» sono una sola matrice; scegli «Query, key"
                            " e value fuse» oppure imposta l'attenzione separata.")
    if not fused and "qkv_proj" in chosen:
        errors["qkv_proj"] = ("Query, key e value fuse: con l'attenzione separata non esiste una matrice fusa;"
                              " scegli q_proj, k_proj e v_proj oppure imposta l'attenzione fusa.")
    layout = values["mlp_layout"]
    if layout == PLAIN and chosen & {"gate_proj", "gate_up_proj"}:
        errors["gate_proj"] = ("Gate dell'MLP: l'MLP semplice (due matrici, come GPT-2, OPT, BLOOM, T5) non ha un"
                               " gate; adatta up e down.")
    elif layout == FUSED_GATE_UP and chosen & {"gate_proj", "up_proj"}:
        errors["gate_proj"] = ("Gate e up: con l'MLP «gate e up fuse» sono una sola matrice; scegli «Gate e up"
                               " fuse» oppure imposta l'MLP con gate separato.")
    elif layout == GATED and "gate_up_proj" in chosen:
        errors["gate_up_proj"] = ("Gate e up fuse: con l'MLP a tre matrici separate non esiste gate_up_proj;"
                                  " scegli gate_proj e up_proj.")
    if "router" in chosen and not integer(values, "experts"):
        errors["router"] = "Router degli esperti: serve un modello con esperti (MoE): indica quanti esperti ha."
    if integer(values, "shared_intermediate_size") and not integer(values, "experts"):
        errors["shared_intermediate_size"] = ("Esperti condivisi: esistono solo nei modelli con esperti (MoE);"
                                              " indica quanti esperti ha, oppure lascia 0.")
    if values["bias"] == "all" and not isinstance(values["model_biases"], Decimal):
        errors["model_biases"] = ("Bias del modello: con bias=\"all\" PEFT addestra tutti i bias; indica quanti sono"
                                  " (i modelli del catalogo lo compilano).")
    if values["bias"] == "lora_only" and values["linear_bias"] == "none":
        errors["bias"] = ("Bias: con bias=\"lora_only\" si addestrano i bias degli strati adattati, ma con «Bias degli"
                          " strati lineari: nessuno» non ce ne sono; scegli dove il modello ha i bias.")
    if values["use_dora"] is True and chosen & set(EXTRA):
        errors["use_dora"] = ("DoRA: questo calcolatore la conta solo sugli strati lineari; togli embed_tokens e"
                              " lm_head oppure DoRA.")
    return errors


def _preset(model_id: str, group: str = "Compila con un modello:") -> Preset:
    """A catalogue model with the targets PEFT picks when ``target_modules`` is not given (query and value;
    the fused query_key_value/c_attn where the model has one). Phi-3 and Whisper have no default in PEFT:
    the same choice is made for them."""
    button = preset(model_id, group)
    fused = button.values["attention_layout"] == FUSED_QKV
    targets = {name: "" for name in MODULES} | ({"qkv_proj": "on"} if fused else {"q_proj": "on", "v_proj": "on"})
    return replace(button, values={**button.values, **targets})


def _size_field(field_id: str, label: str, default: str, help_text: str, maximum: int = 1_000_000) -> Field:
    return size_field(field_id, label, default, help_text, "Architettura", maximum)


def _count_field(field_id: str, label: str, help_text: str, maximum: int = 1_000_000) -> Field:
    return count_field(field_id, label, help_text, "Architettura", maximum)


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
        Field(id="bias", label="Bias addestrati (bias)", default="none", kind=Kind.CHOICE, group="LoRA",
              options=BIAS_MODES, help="Il parametro bias di LoraConfig."),
        Field(id="use_dora", label="DoRA (use_dora=True)", default="", kind=Kind.FLAG, group="LoRA",
              help="Aggiunge a ogni strato lineare adattato un vettore di ampiezze lungo quanto le sue uscite."),
        *(
            Field(id=name, label=label, default="on" if name in {"q_proj", "v_proj"} else "",
                  kind=Kind.FLAG, group="Moduli adattati", help="")
            for name, label in MODULES.items()
        ),
        Field(id="attention_layout", label="Proiezioni dell'attenzione", default=SEPARATE, kind=Kind.CHOICE,
              group="Architettura",
              options=(Option(SEPARATE, "Separate (q_proj, k_proj, v_proj)"),
                       Option(FUSED_QKV, "Fuse in una matrice (Falcon, BLOOM, GPT-2, Phi-3)")),
              help="Alcuni modelli calcolano query, key e value con una sola matrice, che LoRA adatta intera."),
        Field(id="mlp_layout", label="MLP", default=GATED, kind=Kind.CHOICE, group="Architettura",
              options=(Option(GATED, "Con gate, tre matrici (Llama, Mistral, Qwen, Gemma, Flan-T5)"),
                       Option(FUSED_GATE_UP, "Con gate e up fuse (Phi-3, Phi-4)"),
                       Option(PLAIN, "Semplice, due matrici (GPT-2, OPT, BLOOM, Falcon, T5, Whisper)")),
              help="Quali matrici ha l'MLP di ogni strato (o di ogni esperto)."),
        _size_field("layers", "Numero di strati", "32",
                    "Blocchi del modello (num_hidden_layers); in un encoder–decoder, quelli dell'encoder.", 10_000),
        _count_field("decoder_layers", "Strati del decoder (encoder–decoder)",
                     "0 per i modelli solo decoder; T5 e Whisper: num_decoder_layers, con la cross-attention.",
                     10_000),
        _size_field("hidden_size", "Dimensione nascosta", "4096", "Dimensione del modello (hidden_size, d_model)."),
        _size_field("intermediate_size", "Dimensione intermedia (MLP)", "11008",
                    "Dimensione interna dell'MLP (intermediate_size, d_ff); nei MoE, quella di ogni esperto."),
        _size_field("attention_heads", "Teste di attenzione", "32", "num_attention_heads.", 100_000),
        _size_field("kv_heads", "Teste chiave/valore", "32",
                    "num_key_value_heads: meno delle teste di attenzione con la grouped-query attention.", 100_000),
        _size_field("head_dim", "Dimensione di ogni testa", "128",
                    "head_dim: di solito dimensione nascosta / teste; Gemma e Qwen3 la fissano nel config.", 100_000),
        _count_field("experts", "Esperti per strato (MoE)",
                     "0 per i modelli densi; Mixtral 8, Qwen3-30B-A3B 128 (num_local_experts, num_experts).",
                     100_000),
        _count_field("shared_intermediate_size", "Esperti condivisi: dimensione intermedia",
                     "Qwen1.5/Qwen2-MoE: shared_expert_intermediate_size; 0 se il modello non ne ha."),
        _size_field("vocab_size", "Vocabolario", "32000",
                    "vocab_size: serve se adatti embed_tokens o lm_head.", 10_000_000),
        Field(id="linear_bias", label="Bias degli strati lineari", default="none", kind=Kind.CHOICE,
              group="Architettura", options=LINEAR_BIAS,
              help="Quali strati lineari hanno un bias: serve con bias=\"lora_only\"."),
        Field(id="model_biases", label="Bias del modello (conteggio)", default="", group="Architettura",
              optional=True, minimum=Decimal(0), maximum=Decimal(10**12), example="102144",
              help="Tutti i bias del modello, norme comprese, esclusa la testa: serve con bias=\"all\". I modelli del"
                   " catalogo lo compilano."),
        _count_field("num_labels", "Testa di classificazione: etichette (modules_to_save)",
                     "0 senza testa; con una testa (per esempio per la classificazione di sequenze) PEFT la addestra"
                     " intera, come copia accanto all'originale.", 1_000_000),
        Field(id="head_layout", label="Forma della testa", default="linear", kind=Kind.CHOICE, group="Architettura",
              options=HEADS, help="Quante matrici e quali bias ha la testa di classificazione."),
        Field(id="total_parameters_billion", label="Parametri totali del modello", default="6,74",
              kind=Kind.DECIMAL, unit="miliardi", group="Architettura", optional=True,
              minimum=Decimal(0), exclusive_minimum=True, maximum=Decimal(100_000),
              help="Facoltativo: serve per la percentuale di parametri addestrabili."),
        Field(id="base_parameters", label="Parametri del modello base, esatti", default="6738415616",
              group="Architettura",
              optional=True, maximum=Decimal(10**15), example="6738415616",
              help="Facoltativo: per la riga di print_trainable_parameters() di PEFT. I modelli del catalogo la"
                   " compilano."),
    ),
    results=(
        Result("trainable_parameters", "Parametri addestrabili", format=Format.COUNT),
        Result("trainable_percent", "Quota del modello", format=Format.PERCENT,
               help="Rispetto ai parametri totali indicati."),
        Result("peft_printout", "Come lo stampa PEFT (print_trainable_parameters)", format=Format.TEXT,
               primary=False),
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
    presets=(
        *(_preset(m) for m in ("llama-2-7b", "mistral-7b", "llama-3.1-8b", "llama-3.2-1b", "qwen2.5-3b",
                              "qwen2.5-7b", "qwen3-8b", "gemma-2-2b", "mistral-nemo-12b", "opt-350m")),
        *(_preset(m, "Proiezioni fuse:") for m in ("phi-3-mini", "phi-4", "falcon-7b", "bloom-560m", "gpt2-large")),
        *(_preset(m, "Esperti (MoE):") for m in ("mixtral-8x7b", "qwen1.5-moe-a2.7b", "qwen3-30b-a3b")),
        *(_preset(m, "Encoder–decoder:") for m in ("flan-t5-large", "mt0-large", "whisper-large-v2")),
    ),
    examples={
        "predefinito": {},
        "tutti_i_moduli": {m: "on" for m in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                              "down_proj")},
        "llama3_8b": {"intermediate_size": "14336", "kv_heads": "8", "total_parameters_billion": "8,03"},
        "rango_16": {"rank": "16"},
        # The article's architecture examples: catalogue models with PEFT's default targets.
        "falcon": dict(_preset("falcon-7b").values),
        "bloomz": dict(_preset("bloom-7b1").values),
        "phi3_o_down": {**_preset("phi-3-mini").values, "qkv_proj": "", "o_proj": "on", "down_proj": "on"},
        "qwen3_moe": {**_preset("qwen3-30b-a3b").values,
                      **{m: "on" for m in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")}},
        "mixtral_esperti": {**_preset("mixtral-8x7b").values, "v_proj": "", "q_proj": "", "gate_proj": "on",
                            "up_proj": "on", "down_proj": "on"},
        "flan_t5": {**_preset("flan-t5-large").values, "rank": "16"},
        "qwen_3b": {**_preset("qwen2.5-3b").values, "rank": "16"},
        "dora": {**_preset("llama-3.1-8b").values, **{m: "on" for m in ("q_proj", "k_proj", "v_proj", "o_proj",
                                                                          "gate_proj", "up_proj", "down_proj")},
                 "use_dora": "on"},
    },
)
