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
- a mixture of experts with dense layers (DeepSeek's first ones, Llama 4's
  interleaved ones): those layers' MLP matrices at their own size;
- multi-head latent attention (DeepSeek-V2/V3): q_proj, or q_a_proj and q_b_proj
  through the query's bottleneck, kv_a_proj_with_mqa (hidden → kv_lora_rank +
  the shared rotary key), kv_b_proj (kv_lora_rank → every head's key part and
  value), o_proj from the value heads; no k_proj or v_proj;
- gpt-oss: experts and router are parameters, not linear layers, which PEFT
  adapts through ``target_parameters`` (the same count);
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

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from ..form.model import Calculator, Feed, Field, Format, Kind, Option, Outputs, Pasted, Preset, Result, Values, integer
from ..form.numbers import format_exact_field, format_integer
from ..llm.architectures import FUSED_GATE_UP, FUSED_QKV, GATED, PLAIN, SEPARATE
from ..llm.catalogue import LORA, model, offered
from ..llm.lora_adapters import (
    ALL_LINEAR,
    ATTENTION_ONLY,
    CHOSEN,
    EXTRA,
    LATENT,
    LINEAR_EXPERTS,
    MODULES,
    PARAMETER_EXPERTS,
    PARAMETER_ROUTER,
    Layout,
    LoraSetup,
    available,
    shortcut,
    trainable,
)
from ..llm.optimizers import lora_state_bytes
from ..llm.units import BYTES_PER_MB
from .config_paste import config_paster
from .model_fields import LATENT_FIELDS, check_head_dim, count_field, head_dim, shape_field
from .presets import preset

ADAPTER_BYTES_HALF = 2  # fp16/bf16
ADAPTER_BYTES_FULL = 4  # fp32
DEFAULT_MODEL = model("llama-2-7b")

ATTENTION_LABELS = {
    "q_proj": "Query (q_proj)",
    "k_proj": "Key (k_proj)",
    "v_proj": "Value (v_proj)",
    "qkv_proj": "Query, key e value fuse (query_key_value, c_attn, qkv_proj)",
    "o_proj": "Output dell'attenzione (o_proj, dense, c_proj)",
}
LATENT_LABELS = {
    "q_a_proj": "Query compressa (q_a_proj, attenzione latente)",
    "q_b_proj": "Query espansa (q_b_proj, attenzione latente)",
    "kv_a_proj_with_mqa": "Chiave/valore compressi (kv_a_proj_with_mqa)",
    "kv_b_proj": "Chiave/valore espansi (kv_b_proj)",
}
MLP_LABELS = {
    "gate_proj": "Gate dell'MLP (gate_proj, w1)",
    "up_proj": "Up dell'MLP (up_proj, w3, fc1, c_fc)",
    "gate_up_proj": "Gate e up fuse (gate_up_proj)",
    "down_proj": "Down dell'MLP (down_proj, w2, fc2)",
    "router": "Router degli esperti (gate)",
}
EXTRA_LABELS = {
    "embed_tokens": "Embedding dei token (embed_tokens)",
    "lm_head": "Testa del modello linguistico (lm_head)",
}
MODULE_LABELS = {**ATTENTION_LABELS, **LATENT_LABELS, **MLP_LABELS, **EXTRA_LABELS}
# Which linear layers of a model carry a bias.
LINEAR_BIAS = (
    Option("none", "Nessuno (Llama, Mistral, Gemma, Falcon)"),
    Option("qkv", "Solo query, key e value (Qwen2, Qwen2.5)"),
    Option("all", "Tutti gli strati lineari (GPT-2, OPT, BLOOM)"),
    Option("all_but_k", "Tutti tranne la key (Whisper)"),
)
BIAS_MODES = (
    Option("none", "none: nessun bias addestrato"),
    Option("lora_only", "lora_only: i bias degli strati adattati"),
    Option("all", "all: tutti i bias del modello"),
)
# Classification heads people put in modules_to_save, by layout.
HEADS = (
    Option("linear", "Una matrice senza bias (score di Llama)"),
    Option("linear_bias", "Una matrice con bias (BERT, ViT)"),
    Option("dense_proj", "Denso più proiezione, con bias (RoBERTa)"),
)

TARGET_SETS = (
    Option(CHOSEN, "Quelli spuntati qui sotto"),
    Option(ALL_LINEAR, "Tutti i lineari (all-linear)"),
    Option(ATTENTION_ONLY, "Solo l'attenzione"),
)
MOE_MODULES = (
    Option(LINEAR_EXPERTS, "Esperti e router lineari (Mixtral, Qwen)"),
    Option(PARAMETER_ROUTER, "Router come parametro (DeepSeek)"),
    Option(PARAMETER_EXPERTS, "Esperti e router parametri (gpt-oss)"),
)


def layout_of(values: Values) -> Layout:
    """What the model's blocks are made of, from the values read so far (0 for a count not read)."""
    return Layout(attention=str(values.get("attention_layout") or ""), mlp=str(values.get("mlp_layout") or ""),
                  q_lora_rank=_count(values, "q_lora_rank"), kv_lora_rank=_count(values, "kv_lora_rank"),
                  experts=_count(values, "experts"), shared_intermediate=_count(values, "shared_intermediate_size"),
                  moe_modules=str(values.get("moe_modules") or LINEAR_EXPERTS))


def targets_of(values: Values) -> frozenset[str]:
    """The adapted modules: the ticked boxes, or a shortcut's modules for this architecture."""
    which = values.get("target_set")
    if which in (ALL_LINEAR, ATTENTION_ONLY):
        return shortcut(layout_of(values), str(which))
    return frozenset(name for name in MODULES if values.get(name) is True)


def absent(values: Values) -> frozenset[str]:
    """The boxes this model has no module for (shown while ticked, with their message), every box while a shortcut
    chooses the modules, and how the experts are stored for a model without experts."""
    if values.get("target_set") in (ALL_LINEAR, ATTENTION_ONLY):
        boxes = frozenset(MODULES)
    else:
        boxes = frozenset(name for name in MODULES if values.get(name) is not True) - available(layout_of(values))
    return boxes | (frozenset() if _count(values, "experts") else {"moe_modules"})


def peft_targets(values: Values) -> str:
    """LoraConfig's target_modules for these targets (the page's names, which Llama's are)."""
    if values.get("target_set") == ALL_LINEAR:
        return 'target_modules="all-linear"'
    names = [name for name in MODULES if name in targets_of(values)]
    return "target_modules=[" + ", ".join(f'"{name}"' for name in names) + "]" if names else ""


def setup_of(values: Values) -> LoraSetup:
    """The form's values, read once."""
    biases = values["model_biases"]
    return LoraSetup(
        layers=integer(values, "layers"), hidden=integer(values, "hidden_size"),
        intermediate=integer(values, "intermediate_size"), heads=integer(values, "attention_heads"),
        kv_heads=integer(values, "kv_heads"), head_dim=head_dim(values), vocab=integer(values, "vocab_size"),
        rank=integer(values, "rank"), targets=targets_of(values),
        dora=values["use_dora"] is True, decoder_layers=integer(values, "decoder_layers"),
        experts=integer(values, "experts"), shared_intermediate=integer(values, "shared_intermediate_size"),
        linear_bias=str(values["linear_bias"]), train_bias=str(values["bias"]),
        model_biases=int(biases) if isinstance(biases, Decimal) else 0,
        num_labels=integer(values, "num_labels"), head_layout=str(values["head_layout"]),
        dense_layers=_count(values, "dense_layers"), dense_intermediate=_count(values, "dense_intermediate_size"),
        latent=(_count(values, "q_lora_rank"), _count(values, "kv_lora_rank"), _count(values, "qk_rope_head_dim"),
                _count(values, "qk_nope_head_dim"), _count(values, "v_head_dim")),
    )


def _count(values: Values, key: str) -> int:
    """A count field the form always has; 0 where a caller's values (a test's, a feed's) leave it out, or where
    it is not read (in error)."""
    return integer(values, key) if isinstance(values.get(key), Decimal) else 0


def compute(values: Values) -> Outputs:
    """Trainable LoRA parameters, their share of the model, sizes, training state and PEFT's printout."""
    added, trainable_count = trainable(setup_of(values))
    total = values["total_parameters_billion"]
    base = values["base_parameters"]
    # PEFT's trainable%: over every parameter, the adapters (and a head's trained copy) included; and over the model.
    size = total * 10**9 if isinstance(total, Decimal) else None
    share = Decimal(trainable_count) / (size + added) * 100 if size is not None else None
    share_of_model = Decimal(trainable_count) / size * 100 if size is not None else None
    peft = "Indica i parametri esatti del modello base per vedere la riga di PEFT."
    if isinstance(base, Decimal):
        # PEFT counts the adapters among "all params", and the head twice: the original and its trained copy.
        everything = int(base) + added
        peft = (f"trainable params: {trainable_count:,d} || all params: {everything:,d}"
                f" || trainable%: {100 * trainable_count / everything:.4f}")
    chosen = targets_of(values)
    targets = "tutti" if {"q_proj", "v_proj", "down_proj"} <= chosen or "gate_up_proj" in chosen else \
        "attenzione" if {"q_proj", "k_proj", "v_proj", "o_proj"} <= chosen or "qkv_proj" in chosen else "qv"
    return {
        # What the VRAM page's step convention reads (its method, its set of targets, its MLP choice).
        "vram_method": "dora" if values.get("use_dora") is True else "lora", "vram_targets": targets,
        "vram_mlp": PLAIN if values.get("mlp_layout") == PLAIN else GATED,
        "trainable_parameters": Decimal(trainable_count),
        "trainable_percent": share,
        "model_percent": share_of_model,
        "peft_printout": peft,
        "peft_targets": peft_targets(values),
        "adapter_half_mb": trainable_count * ADAPTER_BYTES_HALF / BYTES_PER_MB,
        "adapter_full_mb": trainable_count * ADAPTER_BYTES_FULL / BYTES_PER_MB,
        "training_state_mb": trainable_count * lora_state_bytes() / BYTES_PER_MB,
    }


def check(values: Values) -> dict[str, str]:
    """Targets the architecture has, key/value heads that divide the heads, and at least one target."""
    errors: dict[str, str] = check_head_dim(values)
    heads, kv_heads = (integer(values, k) for k in ("attention_heads", "kv_heads"))
    if kv_heads > heads or heads % kv_heads:
        errors["kv_heads"] = (f"Teste chiave/valore: devono dividere esattamente le {format_integer(heads)}"
                              " teste di attenzione.")
    chosen = set(targets_of(values))
    if not chosen and not integer(values, "num_labels"):
        errors["q_proj"] = "Scegli almeno un modulo da adattare."
    fused = values["attention_layout"] == FUSED_QKV
    separate = chosen & {"q_proj", "k_proj", "v_proj"}
    if fused and separate:
        errors[_first(separate)] = ("Query, key e value: con l'attenzione «fusa» sono una sola matrice; scegli «Query, key"
                            " e value fuse» oppure imposta l'attenzione separata.")
    if not fused and "qkv_proj" in chosen:
        errors["qkv_proj"] = ("Query, key e value fuse: con l'attenzione separata non esiste una matrice fusa;"
                              " scegli q_proj, k_proj e v_proj oppure imposta l'attenzione fusa.")
    layout = values["mlp_layout"]
    gates, gate_up = chosen & {"gate_proj", "gate_up_proj"}, chosen & {"gate_proj", "up_proj"}
    if layout == PLAIN and gates:
        errors[_first(gates)] = ("Gate dell'MLP: l'MLP semplice (due matrici, come GPT-2, OPT, BLOOM, T5) non ha un"
                               " gate; adatta up e down.")
    elif layout == FUSED_GATE_UP and gate_up:
        errors[_first(gate_up)] = ("Gate e up: con l'MLP «gate e up fuse» sono una sola matrice; scegli «Gate e up"
                               " fuse» oppure imposta l'MLP con gate separato.")
    elif layout == GATED and "gate_up_proj" in chosen:
        errors["gate_up_proj"] = ("Gate e up fuse: con l'MLP a tre matrici separate non esiste gate_up_proj;"
                                  " scegli gate_proj e up_proj.")
    errors.update(check_latent(values, chosen))
    if _count(values, "dense_layers") >= integer(values, "layers") and integer(values, "experts"):
        errors["dense_layers"] = ("Strati con MLP denso: devono essere meno degli strati, o il modello non ha"
                                  " esperti; indica 0 esperti per un modello denso.")
    elif _count(values, "dense_layers") and integer(values, "experts") and not _count(values, "dense_intermediate_size"):
        errors["dense_intermediate_size"] = ("Strati densi: dimensione intermedia: con strati a MLP denso serve la loro"
                                             " intermediate_size (DeepSeek-V3: 18432).")
    if "router" in chosen and not integer(values, "experts"):
        errors["router"] = "Router degli esperti: serve un modello con esperti (MoE): indica quanti esperti ha."
    if integer(values, "shared_intermediate_size") and not integer(values, "experts"):
        errors["shared_intermediate_size"] = ("Esperto condiviso: esiste solo nei modelli con esperti (MoE);"
                                              " indica quanti esperti ha, oppure lascia 0.")
    if values["bias"] == "all" and not isinstance(values["model_biases"], Decimal):
        errors["model_biases"] = ("Bias del modello: con bias=\"all\" PEFT addestra tutti i bias; indica quanti sono"
                                  " (i modelli del catalogo lo compilano).")
    if values["bias"] == "lora_only" and values["linear_bias"] == "none":
        errors["bias"] = ("Bias: con bias=\"lora_only\" si addestrano i bias degli strati adattati, ma con «Bias degli"
                          " strati lineari: nessuno» non ce ne sono; scegli dove il modello ha i bias.")
    lacking = (chosen & set(MODULES)) - available(layout_of(values))
    if lacking and not set(errors) & set(MODULES):  # a box the model lacks, no message beside a box yet: by its own
        name = _first(lacking)
        errors[name] = (f"{MODULE_LABELS[name]}: questo modello non ha questo modulo; togli la spunta oppure correggi"
                        " l'architettura (sotto «Architettura»).")
    if values["use_dora"] is True and chosen & set(EXTRA):
        errors["use_dora"] = ("DoRA: questo calcolatore la conta solo sugli strati lineari; togli embed_tokens e"
                              " lm_head oppure DoRA.")
    return errors


def _first(names: set[str]) -> str:
    """The first of these modules in the form's order: the box a message goes beside."""
    return min(names, key=MODULES.index)


def check_latent(values: Values, chosen: set[str]) -> dict[str, str]:
    """Latent attention (kv_lora_rank > 0) has no k_proj, v_proj or fused matrix, and q_proj only without a query
    bottleneck; its sizes come together; its modules exist only with it."""
    latent = _count(values, "kv_lora_rank") > 0
    if not latent:
        if chosen & set(LATENT):
            return {_first(chosen & set(LATENT)): (
                "Attenzione latente: q_a_proj, q_b_proj, kv_a_proj_with_mqa e kv_b_proj esistono solo con"
                " l'attenzione latente (DeepSeek); indica kv_lora_rank e le altre dimensioni, oppure togli quei"
                " moduli.")}
        return {}
    if not all(_count(values, key) for key in ("qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim")):
        return {"qk_rope_head_dim": ("Attenzione latente: con kv_lora_rank servono anche qk_rope_head_dim,"
                                     " qk_nope_head_dim e v_head_dim (dal config).")}
    absent = [name for name in ("k_proj", "v_proj", "qkv_proj") if name in chosen]
    if absent:
        return {absent[0]: ("Key e value: nell'attenzione latente non ci sono k_proj, v_proj né una matrice fusa;"
                            " chiavi e valori passano da kv_a_proj_with_mqa e kv_b_proj.")}
    query_rank = _count(values, "q_lora_rank")
    if query_rank and "q_proj" in chosen:
        return {"q_proj": ("Query: con q_lora_rank la query passa da q_a_proj e q_b_proj, non da una q_proj;"
                           " scegli quelle.")}
    if not query_rank and chosen & {"q_a_proj", "q_b_proj"}:
        return {_first(chosen & {"q_a_proj", "q_b_proj"}): (
            "Query compressa: con q_lora_rank 0 la query ha una sola q_proj (DeepSeek-V2-Lite); scegli q_proj.")}
    return {}


read_config = config_paster()


def _preset(model_id: str, group: str = "Compila con un modello:") -> Preset:
    """A catalogue model with the targets PEFT picks when ``target_modules`` is not given (query and value;
    the fused query_key_value/c_attn where the model has one). Phi-3, Whisper, gpt-oss, OLMo 2 and SmolLM3 have
    no default in PEFT: the same choice is made for them; for latent attention (DeepSeek, no default either), the
    query's last projection and kv_b_proj, which makes keys and values."""
    button = preset(model_id, group)
    fused = button.values["attention_layout"] == FUSED_QKV
    targets = {name: "" for name in MODULES} | ({"qkv_proj": "on"} if fused else {"q_proj": "on", "v_proj": "on"})
    return replace(button, values={**button.values, **targets, **latent_targets(button.values)})


def latent_targets(texts: Mapping[str, str]) -> dict[str, str]:
    """For latent attention, the query's last projection and kv_b_proj (what makes keys and values) in place of
    q_proj and v_proj, which it does not have; nothing for other attention."""
    if texts.get("kv_lora_rank", "0") in ("0", ""):
        return {}
    query = "q_b_proj" if texts.get("q_lora_rank", "0") not in ("0", "") else "q_proj"
    return {name: "" for name in MODULES} | {query: "on", "kv_b_proj": "on"}


def _paste(text: str) -> Pasted:
    """A pasted config.json, with the latent-attention targets when the model has it (the others keep theirs)."""
    pasted = read_config(text)
    targets = latent_targets(pasted.fields)
    if not targets:
        return pasted
    note = "Moduli adattati: q_b_proj (o q_proj) e kv_b_proj, perché l'attenzione latente non ha v_proj."
    return replace(pasted, fields={**pasted.fields, **targets}, notes=(*pasted.notes, note))


def _shape(field_id: str, help_text: str = "") -> Field:
    return shape_field(field_id, "Architettura", DEFAULT_MODEL, help_text)


def _lora_presets() -> tuple[Preset, ...]:
    """The catalogue's LoRA models, grouped by what PEFT adapts differently in them."""
    def group(entry_id: str) -> str:
        entry = model(entry_id)
        if entry.encoder_decoder:
            return "Encoder–decoder:"
        if entry.moe:
            return "Esperti (MoE):"
        return "Proiezioni fuse:" if entry.fused_qkv else "Compila con un modello:"
    groups = ("Compila con un modello:", "Proiezioni fuse:", "Esperti (MoE):", "Encoder–decoder:")
    entries = sorted(offered(LORA), key=lambda entry: groups.index(group(entry.id)))
    return tuple(_preset(entry.id, group(entry.id)) for entry in entries)


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
        Field(id="target_set", label="Moduli da adattare (target_modules)", default=CHOSEN, kind=Kind.CHOICE,
              group="Moduli adattati", options=TARGET_SETS,
              help="«Tutti i lineari» è target_modules=\"all-linear\" di PEFT: ogni strato lineare dei blocchi, senza"
                   " la testa lm_head (e senza esperti e router dove Transformers li tiene come parametri). «Solo"
                   " l'attenzione»: query, key, value e output, o le matrici che li fanno in questo modello (fuse o"
                   " latenti). Le caselle qui sotto mostrano solo i moduli che il modello ha."),
        *(
            Field(id=name, label=label, default="on" if name in {"q_proj", "v_proj"} else "",
                  kind=Kind.FLAG, group="Moduli adattati", help="")
            for name, label in MODULE_LABELS.items()
        ),
        Field(id="attention_layout", label="Proiezioni dell'attenzione", default=SEPARATE, kind=Kind.CHOICE,
              group="Architettura",
              options=(Option(SEPARATE, "Separate (q_proj, k_proj, v_proj)"),
                       Option(FUSED_QKV, "Fuse in una matrice (Falcon, GPT-2, Phi-3)")),
              help="Fuse in Falcon, BLOOM, GPT-2 e Phi-3. Alcuni modelli calcolano query, key e value con una sola"
                   " matrice, che LoRA adatta intera."),
        Field(id="mlp_layout", label="MLP", default=GATED, kind=Kind.CHOICE, group="Architettura",
              options=(Option(GATED, "Con gate, tre matrici (Llama, Qwen)"),
                       Option(FUSED_GATE_UP, "Con gate e up fuse (Phi-3, Phi-4)"),
                       Option(PLAIN, "Semplice, due matrici (GPT-2, OPT, T5)")),
              help="Con gate: Llama, Mistral, Qwen, Gemma, Flan-T5. Semplice: GPT-2, OPT, BLOOM, Falcon, T5,"
                   " Whisper. Quali matrici ha l'MLP di ogni strato (o di ogni esperto)."),
        *(_shape(key) for key in ("layers", "decoder_layers", "hidden_size", "intermediate_size", "attention_heads",
                                  "kv_heads", "head_dim", "experts")),
        Field(id="moe_modules", label="Esperti e router in Transformers", default=LINEAR_EXPERTS, kind=Kind.CHOICE,
              group="Architettura", options=MOE_MODULES,
              help="Serve a «tutti i lineari»: all-linear adatta solo gli nn.Linear. Mixtral e Qwen hanno esperti e"
                   " router lineari (Qwen1.5-MoE anche il gate dell'esperto condiviso); DeepSeek tiene il router come"
                   " parametro; gpt-oss esperti e router (che si adattano con target_parameters)."),
        *(_shape(key) for key in ("shared_intermediate_size", "dense_layers", "dense_intermediate_size",
                                  *LATENT_FIELDS)),
        _shape("vocab_size", "Serve se adatti embed_tokens o lm_head."),
        Field(id="linear_bias", label="Bias degli strati lineari", default="none", kind=Kind.CHOICE,
              group="Architettura", options=LINEAR_BIAS,
              help="Quali strati lineari hanno un bias (nessuno anche in Phi-3 e T5; tutti anche in BERT): serve con"
                   " bias=\"lora_only\"."),
        Field(id="model_biases", label="Bias del modello (conteggio)", default=str(DEFAULT_MODEL.biases()),
              group="Architettura", optional=True, minimum=Decimal(0), maximum=Decimal(10**12), example="102144",
              help="Tutti i bias del modello, norme comprese, esclusa la testa: serve con bias=\"all\". I modelli del"
                   " catalogo lo compilano."),
        count_field("num_labels", "Testa di classificazione: etichette (modules_to_save)",
                     "0 senza testa; con una testa (per esempio per la classificazione di sequenze) PEFT la addestra"
                     " intera, come copia accanto all'originale.", "Architettura"),
        Field(id="head_layout", label="Forma della testa", default="linear", kind=Kind.CHOICE, group="Architettura",
              options=HEADS, help="Quante matrici e quali bias ha la testa di classificazione: lo score di Llama,"
                                  " Mistral e Qwen"
                   " per la classificazione; il classifier di BERT e ViT; quello di RoBERTa, uno strato denso più la"
                   " proiezione."),
        Field(id="total_parameters_billion", label="Parametri totali del modello", default=format_exact_field(
              Decimal(DEFAULT_MODEL.parameters()) / 10**9), kind=Kind.DECIMAL, unit="miliardi", group="Architettura",
              optional=True, minimum=Decimal(0), exclusive_minimum=True, maximum=Decimal(100_000),
              help="Facoltativo: serve per la percentuale di parametri addestrabili."),
        Field(id="base_parameters", label="Parametri del modello base, esatti", default="6738415616",
              group="Architettura",
              optional=True, maximum=Decimal(10**15), example="6738415616",
              help="Facoltativo: per la riga di print_trainable_parameters() di PEFT. I modelli del catalogo la"
                   " compilano."),
    ),
    results=(
        Result("trainable_parameters", "Parametri addestrabili", format=Format.COUNT),
        Result("trainable_percent", "Quota addestrabile (trainable% di PEFT)", format=Format.PERCENT,
               help="Parametri addestrabili diviso tutti i parametri, adattatori compresi (e la copia di una testa in"
                    " modules_to_save): la definizione di print_trainable_parameters() di PEFT, sui parametri totali"
                    " indicati."),
        Result("model_percent", "Rispetto al solo modello", format=Format.PERCENT, primary=False,
               help="Parametri addestrabili diviso i soli parametri totali indicati, senza gli adattatori: un poco più"
                    " della quota di PEFT, che conta gli adattatori anche nel totale."),
        Result("peft_printout", "Come lo stampa PEFT (print_trainable_parameters)", format=Format.TEXT,
               primary=False),
        Result("peft_targets", "In LoraConfig", format=Format.TEXT, primary=False,
               help="I nomi sono quelli di Llama; altri modelli chiamano diversamente gli stessi moduli (c_attn,"
                    " query_key_value, w1…)."),
        Result("adapter_half_mb", "Adattatore su disco in fp16/bf16", "MB", help="2 byte per parametro.", primary=False),
        Result("adapter_full_mb", "Adattatore su disco in fp32", "MB", help="4 byte per parametro.", primary=False),
        Result("training_state_mb", "Gradienti e stati AdamW", "MB",
               help=f"{format_integer(int(lora_state_bytes()))} byte per parametro addestrabile: gradiente fp32 e due"
                    " momenti fp32.", primary=False),
    ),
    compute=compute,
    paste=_paste,
    check=check,
    absent=absent,
    glance=("trainable_parameters", "trainable_percent"),
    fold=("Architettura",),
    feeds=(
        Feed("vram", "vram-addestramento-llm",
             "Calcolatore della VRAM, per il picco di un passo con questi adattatori e questo modello",
             {"parameters_billion": "total_parameters_billion", "lora_trainable": "trainable_parameters",
              "method": "vram_method", "lora_targets": "vram_targets", "rank": "rank", "mlp": "vram_mlp",
              **{key: key for key in ("layers", "decoder_layers", "hidden_size", "intermediate_size",
                                      "attention_heads", "kv_heads", "head_dim", "experts",
                                      "shared_intermediate_size", "vocab_size")}},
             {"convention": "passo"}, optional=("head_dim",)),
    ),
    presets=_lora_presets(),
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
