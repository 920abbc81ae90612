"""Calcolatore della memoria delle attivazioni: where the A of the accumulation page comes from.

The page adapter of ``llm.activation_memory``: the form's values parsed once into a ``Shape``, the estimate by
component, the combinations that cannot exist, the chart and the declaration.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from ..form.model import (
    Calculator,
    Feed,
    Field,
    Kind,
    Option,
    Outputs,
    Result,
    Values,
    integer,
    number,
    optional_number,
)
from ..form.numbers import format_integer
from ..form.svg import stacked_bar
from ..llm import parallelism as par
from ..llm.activation_memory import (
    ACTIVATION_EXTRA,
    CLAMPED_SWIGLU,
    EAGER,
    EXPERT_FP32,
    EXPERT_LOOP,
    EXPERT_SORTED,
    EXPERT_TOPK,
    FLASH,
    FLASH_TRANSFORMERS,
    FULL,
    FUSED_ACTIVATION,
    FUSED_NORM,
    GELU_NEW,
    GEMMA_NORM,
    LLAMA_NORM,
    MAX_SEQUENCE,
    NONE,
    OFFLOAD,
    RELU,
    SELECTIVE,
    SELECTIVE_OP,
    T5_NORM,
    Shape,
    estimate,
    largest_layer,
    rebuilt_layer,
)
from ..llm.architectures import GATED, PLAIN
from ..llm.catalogue import ACTIVATIONS, model
from ..llm.units import BYTES_PER_GB, BYTES_PER_GIB, BYTES_PER_MB, BYTES_PER_VALUE
from .config_paste import config_paster
from .model_fields import LATENT_FIELDS, PADDED_VALUES_HELP, check_head_dim, count_field, head_dim, shape_field
from .presets import preset, presets_for

# Components of the breakdown, in the order the bar shows them.
COMPONENTS = {
    "norms": "Input delle normalizzazioni",
    "attention": "Proiezioni dell'attenzione (Q, K, V, input di QKV e di O)",
    "scores": "Punteggi, softmax e statistiche dell'attenzione",
    "mlp": "MLP",
    "masks": "Maschere di dropout",
    "input": "Front-end audio dell'encoder",
    "logits": "Logit e cross-entropy",
}


CHECKPOINT_LABELS = {
    NONE: "Nessuno",
    FULL: "Completo (gradient_checkpointing)",
    SELECTIVE: "Selettivo di Megatron",
    SELECTIVE_OP: "Selettivo per operazione (torchtitan)",
    OFFLOAD: "Completo con input su CPU (torchtune)",
}


def checkpointing_field(group: str, modes: tuple[str, ...] = ()) -> Field:
    """Checkpointing named as the frameworks name it; the values of old links (selettivo, completo) kept."""
    return Field(id="checkpointing", label="Checkpointing delle attivazioni", default=NONE, kind=Kind.CHOICE,
                 group=group, modes=modes, options=tuple(Option(key, label) for key, label in CHECKPOINT_LABELS.items()),
                 help="Completo: il gradient_checkpointing di Transformers conserva l'input di ogni strato e nel"
                      " backward ricostruisce uno strato alla volta, che si aggiunge al picco. Il selettivo di"
                      " Megatron ricalcola solo i punteggi s × s dell'attenzione: con FlashAttention non cambia nulla,"
                      " perché non sono mai conservati. Il selettivo per operazione di torchtitan conserva i prodotti"
                      " matriciali alterni. Con gli input su CPU (offload_activations di torchtune) è il completo,"
                      " con l'input di ogni strato spostato sulla CPU.")


def shape_of(values: Values) -> Shape:
    return Shape(
        layers=integer(values, "layers"), hidden=integer(values, "hidden_size"),
        heads=integer(values, "attention_heads"), kv_heads=integer(values, "kv_heads"),
        head_dim=head_dim(values), intermediate=integer(values, "intermediate_size"),
        gated=values["mlp"] == GATED, vocab=integer(values, "vocab_size"),
        sequence=integer(values, "sequence_length") // context_parallel(values), micro_batch=integer(values, "micro_batch"),
        precision=BYTES_PER_VALUE[str(values["precision"])], loss_precision=4 if values["loss_fp32"] is True else
        BYTES_PER_VALUE[str(values["precision"])],
        flash=values["attention"] != EAGER, padded_values=values["attention"] == FLASH_TRANSFORMERS,
        dropout=values["dropout"] is True, norm=str(values["norms"]),
        softmax_fp32=values["softmax_fp32"] is True,
        activation_extra=ACTIVATION_EXTRA[str(values["activation_impl"])],
        qk_norm=values["qk_norm"] is True, post_norms=values["post_norms"] is True, softcap=values["softcap"] is True,
        relative_positions=values["relative_positions"] is True, mel_bins=integer(values, "mel_bins"),
        parallel_block=values["parallel_block"] is True, embed_norm=values["embed_norm"] is True,
        tensor_parallel=integer(values, "tensor_parallel"), sequence_parallel=values["sequence_parallel"] is True,
        checkpointing=str(values["checkpointing"]),
        experts=integer(values, "experts"), experts_per_token=integer(values, "experts_per_token"),
        shared_intermediate=integer(values, "shared_intermediate_size"),
        decoder_layers=integer(values, "decoder_layers"), encoder_sequence=integer(values, "encoder_sequence"),
        experts_impl=str(values["experts_impl"]), sinks=values["sinks"] is True,
        dense_layers=integer(values, "dense_layers"), dense_intermediate=integer(values, "dense_intermediate_size"),
        q_lora_rank=integer(values, "q_lora_rank"), kv_lora_rank=integer(values, "kv_lora_rank"),
        rope_dim=integer(values, "qk_rope_head_dim"), v_head_dim=integer(values, "v_head_dim"),
    )


def context_parallel(values: Values) -> int:
    """GPUs the sequence is split among (1 when the field is absent, as for the VRAM page's step convention)."""
    value = values.get("context_parallel")
    return int(value) if isinstance(value, Decimal) else 1


def layout_of(values: Values) -> par.Layout:
    """The pipeline's degrees as the form gives them (1 when a field is absent)."""
    def degree(key: str) -> int:
        value = values.get(key)
        return int(value) if isinstance(value, Decimal) else 1
    return par.Layout(pipeline=degree("pipeline_parallel"), virtual=degree("virtual_stages"))


def micro_batches(values: Values, layout: par.Layout) -> int:
    """Micro-batches per step (the accumulation steps); empty: as many as the pipeline's blocks, so it fills."""
    value = optional_number(values, "accumulation_steps")
    return int(value) if value is not None else layout.pipeline * layout.virtual


def first_stage(shape: Shape, layout: par.Layout, micro_batches: int) -> tuple[dict[str, Decimal], Decimal]:
    """The first pipeline stage's activations by component, and the micro-batches it holds: its L/PP layers (the
    most loaded rank's, ``par.stage_layers``) for the micro-batches the schedule keeps in flight
    (``par.in_flight``: min(PP, m) under 1F1B, PP + (PP − 1)/v interleaved), without the logits, which are the last
    stage's. With no pipeline, the whole model and one micro-batch."""
    if layout.pipeline == 1:
        return estimate(shape), Decimal(1)
    flight = par.in_flight(layout, micro_batches)
    parts = estimate(replace(shape, layers=par.stage_layers(shape.layers, layout)))
    return {key: Decimal(0) if key == "logits" else value * flight for key, value in parts.items()}, flight


def last_stage(shape: Shape, layout: par.Layout, micro_batches: int) -> Decimal:
    """The last stage's activations: its layers for the micro-batches it holds (one under 1F1B), and the logits."""
    layers = par.stage_layers(shape.layers, layout)
    parts = estimate(replace(shape, layers=layers))
    flight = par.in_flight(layout, micro_batches, layout.pipeline - 1)
    return (sum(parts.values(), Decimal(0)) - parts["logits"]) * flight + parts["logits"]


def compute(values: Values) -> Outputs:
    """Activations per sample (A), per micro-batch (M = b·A), per layer, and by component: per GPU, on the first
    pipeline stage when there is a pipeline."""
    shape = shape_of(values)
    layout = layout_of(values)
    m = micro_batches(values, layout)
    parts, flight = first_stage(shape, layout, m)
    total = sum(parts.values(), Decimal(0))
    per_layer = largest_layer(shape)
    b = shape.micro_batch
    piped = layout.pipeline > 1
    return {
        "stage_layers": Decimal(par.stage_layers(shape.layers, layout)) if piped else None,
        "in_flight": flight if piped else None,
        "last_stage_gb": last_stage(shape, layout, m) / BYTES_PER_GB if piped else None,
        "per_sample_gb": total / b / BYTES_PER_GB,
        "per_micro_batch_gb": total / BYTES_PER_GB,
        "per_micro_batch_gib": total / BYTES_PER_GIB,
        "per_layer_mb": per_layer / BYTES_PER_MB,
        "layers_gb": (total - parts["logits"]) / BYTES_PER_GB,
        "rebuilt_gb": rebuilt_layer(shape) / BYTES_PER_GB,
        "logits_gb": parts["logits"] / BYTES_PER_GB,
        **{f"part_{key}_gb": value / BYTES_PER_GB for key, value in parts.items()},
    }


def check(values: Values) -> dict[str, str]:
    """Shapes that cannot exist, and splits tensor parallelism cannot make."""
    errors: dict[str, str] = check_head_dim(values)
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
    if any(integer(values, key) % t for key in ("hidden_size", "intermediate_size", "shared_intermediate_size")):
        errors.setdefault("tensor_parallel", "Parallelismo tensoriale: deve dividere la dimensione nascosta e quella"
                                             " intermedia.")
    c, sequence = context_parallel(values), integer(values, "sequence_length")
    if c > 1 and sequence % (2 * c):
        errors["context_parallel"] = (f"Parallelismo di contesto: la sequenza di {format_integer(sequence)} token deve"
                                      f" dividersi per 2 · CP = {format_integer(2 * c)} (ogni GPU prende due blocchi,"
                                      " per bilanciare la maschera causale).")
    elif c > 1 and values["attention"] == EAGER:
        errors["context_parallel"] = ("Parallelismo di contesto: l'attenzione ad anello usa kernel come"
                                      " FlashAttention; scegli FlashAttention.")
    if values["attention"] == FLASH_TRANSFORMERS and BYTES_PER_VALUE[str(values["precision"])] == 4:
        errors["attention"] = ("flash_attention_2 e _3 di Transformers non accettano attivazioni a 32 bit (fp32,"
                               " tf32): scegli SDPA, oppure una precisione a 16 bit.")
    errors.update(check_pipeline(values))
    errors.update(check_experts(values))
    errors.update(check_encoder(values))
    errors.update(check_latent(values))
    return errors


def check_latent(values: Values) -> dict[str, str]:
    """Dense first layers of a mixture, and latent attention's sizes."""
    errors = {}
    dense, experts = integer(values, "dense_layers"), integer(values, "experts")
    if dense and (not experts or dense >= integer(values, "layers")):
        errors["dense_layers"] = ("Strati con MLP denso: valgono solo in un modello a esperti, e devono essere meno"
                                  " degli strati; altrimenti lascia 0.")
    elif dense and not integer(values, "dense_intermediate_size"):
        errors["dense_intermediate_size"] = ("Strati densi: con strati a MLP denso serve la loro dimensione"
                                             " intermedia.")
    rank, rope = integer(values, "kv_lora_rank"), integer(values, "qk_rope_head_dim")
    latent = ("q_lora_rank", "qk_rope_head_dim", "v_head_dim")
    if not rank and any(integer(values, key) for key in latent):
        errors["kv_lora_rank"] = ("Attenzione latente: q_lora_rank, qk_rope_head_dim e v_head_dim valgono solo con"
                                  " kv_lora_rank; per l'attenzione ordinaria lasciali a 0.")
    elif rank and (not integer(values, "v_head_dim") or rope >= head_dim(values)):
        errors["v_head_dim"] = ("Attenzione latente: servono v_head_dim e una qk_rope_head_dim minore della"
                                " dimensione di ogni testa (qk_nope_head_dim + qk_rope_head_dim).")
    return errors


def check_pipeline(values: Values) -> dict[str, str]:
    """Layers that do not divide among the pipeline's stages (Megatron-LM wants them even), and schedules that
    cannot exist."""
    layout, layers = layout_of(values), integer(values, "layers")
    p, v, n = layout.pipeline, layout.virtual, format_integer
    errors: dict[str, str] = {}
    if p > 1 and integer(values, "decoder_layers"):
        errors["pipeline_parallel"] = ("Parallelismo a pipeline: qui è previsto per i modelli solo decoder; per un"
                                       " encoder–decoder lascia 1.")
    elif layers % (p * v):
        blocks = f"{n(p)} stadi" if v == 1 else f"{n(p * v)} blocchi ({n(p)} stadi × {n(v)} stadi virtuali)"
        fitting = ", ".join(n(d) for d in par.divisors(layers, 64) if d > 1 and (v == 1 or (layers // d) % v == 0))
        errors["pipeline_parallel"] = (f"Parallelismo a pipeline: i {n(layers)} strati non si dividono in parti uguali"
                                       f" tra {blocks}; Megatron-LM vuole lo stesso numero di strati per stadio."
                                       + (f" Stadi possibili: {fitting}." if fitting else ""))
    if v > 1 and p == 1:
        errors["virtual_stages"] = "Stadi virtuali: servono almeno 2 stadi di pipeline (lo schema interleaved)."
    elif v > 1 and micro_batches(values, layout) % p:
        errors["virtual_stages"] = (f"Stadi virtuali: con lo schema interleaved Megatron-LM vuole un numero di"
                                    f" micro-batch per passo multiplo dei {n(p)} stadi.")
    return errors


def check_experts(values: Values) -> dict[str, str]:
    experts, chosen = integer(values, "experts"), integer(values, "experts_per_token")
    if not experts:
        errors = {}
        if chosen:
            errors["experts_per_token"] = ("Esperti attivi per token: servono gli esperti per strato (MoE); per un"
                                           " modello denso lascia 0.")
        if integer(values, "shared_intermediate_size"):
            errors["shared_intermediate_size"] = ("Esperto condiviso: c'è solo in un modello a esperti; indica gli"
                                                  " esperti per strato, o lascia 0.")
        return errors
    if not chosen:
        return {"experts_per_token": f"Esperti attivi per token: con {format_integer(experts)} esperti per strato"
                                     " ne serve almeno 1 (num_experts_per_tok)."}
    if chosen > experts:
        return {"experts_per_token": "Esperti attivi per token: non possono essere più degli esperti per strato"
                                     f" ({format_integer(experts)})."}
    return {}


def check_encoder(values: Values) -> dict[str, str]:
    decoder, source = integer(values, "decoder_layers"), integer(values, "encoder_sequence")
    if decoder and not source:
        return {"encoder_sequence": "Lunghezza delle sequenze dell'encoder: con gli strati del decoder serve anche"
                                    " questa (i token, o i frame audio, che l'encoder legge)."}
    if source and not decoder:
        return {"encoder_sequence": "Lunghezza delle sequenze dell'encoder: vale solo per i modelli encoder–decoder;"
                                    " indica gli strati del decoder, o lascia 0."}
    if integer(values, "mel_bins") and not decoder:
        return {"mel_bins": "Bande mel: il front-end audio c'è solo negli encoder–decoder come Whisper; indica gli"
                            " strati del decoder, o lascia 0."}
    return {}


def chart(values: Values, outputs: Outputs) -> str:
    parts = [(label, number(outputs, f"part_{key}_gb")) for key, label in COMPONENTS.items()]
    where = " del primo stadio della pipeline" if layout_of(values).pipeline > 1 else ""
    return stacked_bar(f"Attivazioni per micro-batch e per GPU{where}, per componente", parts, "GB")


GPT3_175B = {
    "layers": "96", "hidden_size": "12288", "attention_heads": "96", "kv_heads": "96", "head_dim": "128",
    "intermediate_size": "49152", "mlp": PLAIN, "vocab_size": "51200", "sequence_length": "2048",
    "micro_batch": "1", "precision": "fp16", "attention": EAGER, "dropout": "on", "tensor_parallel": "8",
    "norms": FUSED_NORM, "softmax_fp32": "",
}


DEFAULT_MODEL = model("llama-3.1-8b")


def _shape(field_id: str, help_text: str = "") -> Field:
    return shape_field(field_id, "Modello", DEFAULT_MODEL, help_text)


def _count(field_id: str, label: str, help_text: str, group: str = "Modello", maximum: int = 1_000_000,
           unit: str = "") -> Field:
    return count_field(field_id, label, help_text, group, maximum, unit)


CALCULATOR = Calculator(
    id="memoria-attivazioni",
    order=15,
    title="Calcolatore della memoria delle attivazioni",
    summary=(
        "Stima la memoria delle attivazioni che un modello linguistico conserva per il passaggio all'indietro:"
        " per campione, per micro-batch e per strato, con attenzione eager o FlashAttention, checkpointing e"
        " parallelismo tensoriale, di contesto e a pipeline."
    ),
    fields=(
        *(_shape(key) for key in ("layers", "hidden_size", "attention_heads", "kv_heads", "head_dim",
                                  "intermediate_size")),
        Field(id="mlp", label="Tipo di MLP", default=GATED, kind=Kind.CHOICE, group="Modello",
              options=(Option(GATED, "Con gate (SwiGLU/GeGLU, tre matrici)"),
                       Option(PLAIN, "Semplice (GELU, due matrici)")),
              help="Llama, Mistral, Qwen e Gemma usano l'MLP con gate; GPT-2, GPT-3, OPT e BLOOM quello semplice."),
        _shape("vocab_size", "Decide la memoria dei logit."),
        Field(id="qk_norm", label="Normalizzazione di query e key", default="", kind=Kind.FLAG, group="Modello",
              help="Qwen3 e Gemma 3 normalizzano ogni testa di query e key: quelle norme conservano Q e K."),
        Field(id="post_norms", label="Normalizzazioni anche dopo attenzione e MLP", default="", kind=Kind.FLAG,
              group="Modello", help="Gemma 2 e 3: quattro normalizzazioni per strato invece di due."),
        Field(id="softcap", label="Soft-capping di punteggi e logit", default="", kind=Kind.FLAG, group="Modello",
              help="Gemma 2 limita punteggi e logit con una tanh, che conserva la sua uscita."),
        Field(id="sinks", label="Sink dell'attenzione (gpt-oss)", default="", kind=Kind.FLAG, group="Modello",
              help="Un logit appreso per testa che entra nella softmax come colonna in più: con l'attenzione eager"
                   " la softmax conserva s × (s + 1) valori per testa."),
        Field(id="parallel_block", label="Attenzione e MLP in parallelo (Falcon)", default="", kind=Kind.FLAG,
              group="Modello", help="Una sola normalizzazione per strato, la cui uscita entra sia nell'attenzione"
                                    " sia nell'MLP."),
        Field(id="embed_norm", label="Normalizzazione dopo gli embedding (BLOOM)", default="", kind=Kind.FLAG,
              group="Modello", help="Una normalizzazione in più, sugli embedding dei token."),
        Field(id="relative_positions", label="Posizioni relative (T5)", default="", kind=Kind.FLAG, group="Modello",
              help="T5 conserva l'indice della sua posizione relativa per ogni coppia di token: 8 byte ciascuno."),
        _count("mel_bins", "Bande mel del front-end audio (Whisper)",
               "num_mel_bins: l'encoder di Whisper legge 2 frame audio per posizione con due convoluzioni; 0 per"
               " un modello di testo.", maximum=10_000),
        *(_shape(key) for key in ("experts", "experts_per_token", "shared_intermediate_size", "dense_layers",
                                  "dense_intermediate_size")),
        Field(id="experts_impl", label="Esperti in Transformers", default=EXPERT_LOOP, kind=Kind.CHOICE,
              group="Modello", options=(Option(EXPERT_LOOP, "Un esperto alla volta (Mixtral, Qwen)"),
                                        Option(EXPERT_SORTED, "Token ordinati per esperto (DeepSeek-V2)"),
                                        Option(EXPERT_FP32, "Uno alla volta, pesi in fp32 (DeepSeek-V3)"),
                                        Option(EXPERT_TOPK, "Softmax sui k scelti (gpt-oss)")),
              help="Come Transformers fa passare i token dagli esperti, che cambia quanto conservano: Mixtral e"
                   " Qwen raccolgono i token di ogni esperto e ne sommano l'uscita pesata; DeepSeek-V2 ordina le"
                   " copie dei token per esperto e pesa le uscite in fp32, con il router in fp32; DeepSeek-V3 fa"
                   " passare un esperto alla volta come Mixtral ma somma le uscite pesate in fp32; gpt-oss fa la"
                   " softmax del router solo sui k esperti scelti."),
        *(_shape(key, "Qui la dimensione di ogni testa è quella di query e chiave (qk_nope_head_dim +"
                      " qk_rope_head_dim)." if key == "kv_lora_rank" else "") for key in LATENT_FIELDS
          if key != "qk_nope_head_dim"),
        _shape("decoder_layers"),
        Field(id="sequence_length", label="Lunghezza delle sequenze", default="4096", unit="token",
              group="Addestramento", maximum=Decimal(MAX_SEQUENCE), example="4096",
              help="Token di ogni campione (s); in un modello encoder–decoder, quelli del decoder."),
        _count("encoder_sequence", "Lunghezza delle sequenze dell'encoder",
               "Solo encoder–decoder: i token (T5) o i frame audio (Whisper: 1500 per 30 s) che l'encoder legge.",
               group="Addestramento", maximum=MAX_SEQUENCE, unit="token"),
        Field(id="micro_batch", label="Micro-batch", default="1", unit="campioni", group="Addestramento",
              maximum=Decimal(100_000), help="Campioni per GPU in un passaggio in avanti (b)."),
        Field(id="precision", label="Precisione delle attivazioni", default="bf16", kind=Kind.CHOICE,
              group="Addestramento", options=(Option("bf16", "bf16 (2 byte)"), Option("fp16", "fp16 (2 byte)"),
                                             Option("fp32", "fp32 (4 byte)")),
              help="Byte di ogni valore conservato."),
        Field(id="loss_fp32", label="Logit in fp32 per la loss", default="on", kind=Kind.FLAG,
              group="Addestramento", help="Come fa Transformers, che converte i logit in fp32 prima della cross-entropy."),
        Field(id="norms", label="Normalizzazioni", default=LLAMA_NORM, kind=Kind.CHOICE, group="Addestramento",
              options=(Option(LLAMA_NORM, "In fp32, come LlamaRMSNorm"),
                       Option(GEMMA_NORM, "In fp32 anche l'uscita, come GemmaRMSNorm"),
                       Option(T5_NORM, "In fp32 con l'input, come T5LayerNorm"),
                       Option(FUSED_NORM, "Kernel fuso: solo l'input")),
              help="Quanto conserva ogni normalizzazione per valore: in bf16 6 byte (LlamaRMSNorm: Llama, Mistral,"
                   " Qwen, Phi), 8 (Gemma, T5) o 2 (un kernel fuso che conserva solo l'input: il LayerNorm di"
                   " Megatron, Liger)."),
        Field(id="activation_impl", label="Funzione di attivazione", default=FUSED_ACTIVATION, kind=Kind.CHOICE,
              group="Addestramento",
              options=(Option(FUSED_ACTIVATION, "SiLU o GELU in un'operazione sola"),
                       Option(RELU, "ReLU (conserva solo l'uscita: OPT, T5 1.0)"),
                       Option(GELU_NEW, "GELU tanh in Python (gelu_new)"),
                       Option(CLAMPED_SWIGLU, "SwiGLU limitata in Python (gpt-oss)")),
              help="SiLU o GELU in un'operazione sola conserva il suo input. La gelu_new di Transformers (GELU tanh"
                   " scritta in Python: GPT-2, Flan-T5) conserva tre tensori intermedi in più per ogni valore"
                   " dell'MLP, come la SwiGLU limitata di gpt-oss; la ReLU uno in meno."),
        Field(id="attention", label="Implementazione dell'attenzione", default=FLASH, kind=Kind.CHOICE,
              group="Addestramento",
              options=(Option(FLASH, "FlashAttention / SDPA (statistiche O(s))"),
                       Option(FLASH_TRANSFORMERS, "flash_attention_2 / _3 di Transformers"),
                       Option(EAGER, "Eager (conserva la matrice s × s)")),
              help="L'attenzione eager conserva i punteggi s × s di ogni testa; FlashAttention li ricalcola."
                   f" {PADDED_VALUES_HELP}"),
        Field(id="softmax_fp32", label="Softmax eager in fp32 (come Transformers)", default="on", kind=Kind.FLAG,
              group="Addestramento",
              help="Con l'attenzione eager Llama, Mistral, Qwen, Gemma e T5 calcolano la softmax in fp32 e la"
                   " riconvertono: si conservano entrambe le copie dei punteggi. GPT-2 e i kernel fusi (Megatron)"
                   " solo una."),
        Field(id="dropout", label="Dropout attivo", default="", kind=Kind.FLAG, group="Addestramento",
              help="Con il dropout si conservano anche le maschere (1 byte per valore)."),
        checkpointing_field("Risparmio di memoria"),
        Field(id="tensor_parallel", label="Parallelismo tensoriale", default="1", unit="GPU",
              group="Risparmio di memoria", maximum=Decimal(1024),
              help="GPU tra cui si dividono le matrici di ogni strato (t)."),
        Field(id="sequence_parallel", label="Parallelismo di sequenza", default="", kind=Kind.FLAG,
              group="Risparmio di memoria", help="Divide per t anche le normalizzazioni e il dropout."),
        Field(id="context_parallel", label="Parallelismo di contesto", default="1", unit="GPU",
              group="Risparmio di memoria", maximum=Decimal(1024),
              help="GPU tra cui si divide la sequenza (attenzione ad anello): ognuna tiene s/CP token."),
        Field(id="pipeline_parallel", label="Parallelismo a pipeline (stadi)", default="1", unit="GPU",
              group="Risparmio di memoria", maximum=Decimal(1024),
              help="Divide gli strati tra stadi: il primo tiene L/PP strati per i micro-batch in volo (PP con 1F1B),"
                   " l'ultimo anche i logit. I risultati sono quelli di una GPU del primo stadio."),
        Field(id="virtual_stages", label="Stadi virtuali per GPU (interleaved)", default="1",
              group="Risparmio di memoria", maximum=Decimal(64),
              help="Schema interleaved di Megatron-LM: v blocchi di strati per GPU; il primo stadio tiene"
                   " PP + (PP − 1)/v micro-batch in volo. 1: lo schema 1F1B."),
        Field(id="accumulation_steps", label="Micro-batch per passo (passi di accumulo)", default="", optional=True,
              group="Risparmio di memoria", maximum=Decimal(100_000),
              help="Con la pipeline: con meno micro-batch per passo che stadi, ne restano in volo meno. Vuoto:"
                   " la pipeline piena."),
    ),
    results=(
        Result("per_sample_gb", "Attivazioni per campione (A)", "GB",
               help="Da inserire nel calcolatore della memoria con accumulo del gradiente. Con la pipeline, per una"
                    " GPU del primo stadio, con i suoi micro-batch in volo."),
        Result("per_micro_batch_gb", "Attivazioni per micro-batch e per GPU", "GB",
               help="M = b · A: da inserire nel calcolatore della VRAM. Con la pipeline, il primo stadio."),
        Result("per_micro_batch_gib", "Le stesse in GiB", "GiB", primary=False),
        Result("stage_layers", "Strati per stadio della pipeline", primary=False,
               help="L/PP: quelli di una GPU del primo stadio (con stadi virtuali, di tutti i suoi blocchi)."),
        Result("in_flight", "Micro-batch in volo sul primo stadio", primary=False,
               help="Quanti micro-batch il primo stadio conserva al suo picco: min(PP, micro-batch per passo) con"
                    " 1F1B, PP + (PP − 1)/v con lo schema interleaved (Korthikanti et al., Megatron-LM)."),
        Result("last_stage_gb", "Ultimo stadio: i suoi strati e i logit", "GB", primary=False,
               help="Una GPU dell'ultimo stadio: i suoi strati per i micro-batch che tiene (uno con 1F1B), più"
                    " logit e loss."),
        Result("per_layer_mb", "Per strato, per micro-batch", "MB", primary=False,
               help="In un encoder–decoder, il più grande tra uno strato dell'encoder e uno del decoder (con la"
                    " cross-attention)."),
        Result("layers_gb", "Tutti gli strati", "GB", primary=False),
        Result("rebuilt_gb", "Strato ricostruito nel backward", "GB", primary=False,
               help="Con il checkpointing completo, per operazione o con offload: le attivazioni di uno strato, che"
                    " si aggiungono a quelle conservate durante il backward."),
        Result("logits_gb", "Logit e cross-entropy", "GB", primary=False,
               help="b · s · vocabolario valori (più gli input della normalizzazione finale e della testa):"
                    " grande con vocabolari da 128k–256k token. Con la pipeline stanno sull'ultimo stadio, non sul primo."),
        # The breakdown of the bar, in words too (the logits are the result above).
        *(Result(f"part_{key}_gb", label, "GB", primary=False) for key, label in COMPONENTS.items() if key != "logits"),
    ),
    compute=compute,
    paste=config_paster(),
    check=check,
    chart=chart,
    glance=("per_sample_gb", "per_micro_batch_gb"),
    fold=("Modello",),
    layout=(("Addestramento", ("sequence_length", "micro_batch", "attention", "checkpointing")),),
    feeds=(
        Feed("accumulo", "accumulo-del-gradiente", "Calcolatore della memoria con accumulo del gradiente, con A",
             {"activation_per_sample_gb": "per_sample_gb", "micro_batch": "micro_batch",
              "sequence_length": "sequence_length"}, {"activation_unit": "GB", "mode": "diretto"}),
        Feed("vram", "vram-addestramento-llm", "Calcolatore della VRAM, con la memoria delle attivazioni per GPU",
             {"activation_gb": "per_micro_batch_gb"}),
    ),
    presets=presets_for(ACTIVATIONS),
    examples={
        "predefinito": {},
        "eager": {"attention": EAGER},
        "eager_doppio": {"attention": EAGER, "sequence_length": "8192"},
        "flash_doppio": {"sequence_length": "8192"},
        "selettivo": {"attention": EAGER, "checkpointing": SELECTIVE},
        "completo": {"checkpointing": FULL},
        "micro_batch_4": {"micro_batch": "4"},
        "fp16_logit": {"loss_fp32": ""},
        # Mixtral 8x7B and Mistral 7B: the same attention, experts or one dense MLP of the same size.
        "mixtral": dict(preset("mixtral-8x7b").values),
        "mistral": dict(preset("mistral-7b").values),
        # Flan-T5 Large as Transformers trains it: eager attention (T5 has no SDPA path), dropout 0,1, targets of 128
        # tokens for inputs of 512.
        "flan_t5": {**preset("flan-t5-large").values, "sequence_length": "128", "attention": EAGER, "dropout": "on"},
        # GPT-3 175B as Korthikanti et al. train it (Table 3): h = 12288, a = 96, L = 96, s = 2048, t = 8.
        **{name: {**GPT3_175B, **extra} for name, extra in {
            "gpt3": {},
            "gpt3_sp": {"sequence_parallel": "on"},
            "gpt3_selettivo": {"checkpointing": SELECTIVE},
            "gpt3_sp_selettivo": {"sequence_parallel": "on", "checkpointing": SELECTIVE},
        }.items()},
    },
)
