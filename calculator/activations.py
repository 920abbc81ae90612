"""Calcolatore della memoria delle attivazioni: where the A of the accumulation page comes from.

Bytes kept for the backward pass by each decoder layer, term by term, after
Korthikanti et al. 2022 (arXiv:2205.05198 §4): for a GPT-style layer in 16-bit
with dropout, s·b·h·(34 + 5·a·s/h). The terms are written for any shape, so that
grouped-query attention, gated MLPs, no dropout and FlashAttention follow from
the same list (see ``layer_terms``); tensor and sequence parallelism and
recomputation follow the paper's Table 2.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from .catalogue import (
    FUSED_ACTIVATION,
    FUSED_NORM,
    GATED,
    GELU_NEW,
    GEMMA_NORM,
    LLAMA_NORM,
    PLAIN,
    RELU,
    T5_NORM,
    preset,
)
from .model import (
    Calculator,
    Feed,
    Field,
    Kind,
    Option,
    Outputs,
    Result,
    Values,
    count_field,
    integer,
    number,
    size_field,
)
from .numbers import format_integer
from .svg import stacked_bar

GB = Decimal(10**9)
MB = Decimal(10**6)
GIB = Decimal(2**30)
PRECISION = {"bf16": 2, "fp16": 2, "fp32": 4}
EAGER, FLASH = "eager", "flash"
NONE, SELECTIVE, FULL = "nessuno", "selettivo", "completo"
# i-wide tensors an MLP activation keeps beyond a fused SiLU/GELU's: transformers' gelu_new, the tanh GELU written
# out in Python, also keeps tanh, x/2 and 1 + tanh; ReLU keeps only its output, which the next matrix keeps anyway.
ACTIVATION_EXTRA = {FUSED_ACTIVATION: 0, GELU_NEW: 3, RELU: -1}
MAX_SEQUENCE = 1_048_576

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
    norm: str  # how the norms keep their input: a fused kernel, or computing in fp32 as transformers' (norm_bytes)
    tensor_parallel: int
    sequence_parallel: bool
    checkpointing: str
    experts: int = 0  # a mixture of experts: experts per layer (0: a dense MLP), intermediate = each expert's
    experts_per_token: int = 0
    shared_intermediate: int = 0  # a shared expert beside the routed ones, with its sigmoid gate (Qwen-MoE)
    decoder_layers: int = 0  # encoder–decoder: ``layers`` are the encoder's, ``sequence`` the decoder's
    encoder_sequence: int = 0
    softmax_fp32: bool = False  # eager attention's softmax computed in fp32, then cast back (as transformers)
    activation_extra: int = 0  # i-wide tensors kept beyond a fused SiLU/GELU's (gelu_new: 3 more; ReLU: 1 fewer)
    qk_norm: bool = False  # a norm on each query and key head (Qwen3, Gemma 3)
    post_norms: bool = False  # norms after attention and after the MLP too (Gemma 2 and 3)
    softcap: bool = False  # tanh soft-capping of the attention scores and of the logits (Gemma 2)
    relative_positions: bool = False  # T5's relative-position buckets: int64 indices per query–key pair, per stack
    mel_bins: int = 0  # a speech encoder's front-end: two convolutions over 2·s_enc frames of mel features (Whisper)
    parallel_block: bool = False  # attention and MLP side by side on one norm's output (Falcon)
    embed_norm: bool = False  # a norm right after the embeddings (BLOOM)


def layer_terms(shape: Shape) -> dict[str, Decimal]:
    """Bytes one layer keeps for backward, by component, per GPU (Korthikanti et al. §4.1, generalised).

    With h = heads · head_dim, kv_heads = heads, a plain MLP of 4h, 2-byte activations and dropout:
    norms 4sbh, attention 10sbh, masks 2sbh + a·s²·b, scores 4·a·s²·b, MLP 16sbh: the paper's 34sbh + 5as²b.
    A mixture of experts changes the MLP only (``mlp_bytes``).
    """
    s, b, h, p = shape.sequence, shape.micro_batch, shape.hidden, shape.precision
    sbh = s * b * h
    scores, attention = attention_bytes(shape, s, s)
    mlp_whole, mlp_part = mlp_bytes(shape)
    # The two norms before attention and MLP (and after them, in Gemma); a query/key norm keeps Q and K too.
    norm_count = 1 if shape.parallel_block else 4 if shape.post_norms else 2
    qk = shape.heads * shape.head_dim + shape.kv_heads * shape.head_dim if shape.qk_norm else 0
    replicated = {  # without sequence parallelism every tensor-parallel rank keeps these whole
        "norms": Decimal(norm_count * norm_bytes(shape) * sbh),  # what the norms keep of their input
        "attention": Decimal(p * sbh),  # QKV's input (the first norm's output)
        # The MLP's input (the second norm's output; in a parallel block, the attention's), and a router's.
        "mlp": Decimal(0 if shape.parallel_block else p * sbh) + mlp_whole,
        "masks": Decimal(2 * sbh if shape.dropout else 0),  # after attention and after the MLP, 1 byte each
    }
    divided = {"attention": attention, "scores": scores, "mlp": mlp_part,
               "norms": Decimal(norm_bytes(shape) * s * b * qk)}
    return _per_gpu(shape, replicated, divided, kept=Decimal(p * sbh))


def attention_bytes(shape: Shape, queries: int, keys: int) -> tuple[Decimal, Decimal]:
    """Scores and projections of one attention block: (scores, attention). ``queries`` and ``keys`` are the
    sequence lengths the queries and the keys come from (equal but in cross-attention)."""
    b, p = shape.micro_batch, shape.precision
    q_width = shape.heads * shape.head_dim
    # Eager attention repeats K and V to every query head before the product (as transformers' repeat_kv);
    # FlashAttention reads the grouped K and V as they are.
    kv_width = shape.kv_heads * shape.head_dim if shape.flash else q_width
    # Q and the output (also out_proj's input) have one row per query, K and V one per key.
    attention = Decimal(p * b * (2 * queries * q_width + 2 * keys * kv_width))
    if shape.flash:
        return Decimal(4 * queries * b * shape.heads), attention  # the softmax statistics, fp32 per row
    heads_terms = queries * b * shape.heads * keys  # a·s²·b
    scores = Decimal(p * heads_terms)  # softmax output
    if shape.softmax_fp32 and p < 4:
        scores += 4 * heads_terms  # the fp32 output the softmax keeps, besides its copy in the activations' precision
    if shape.softcap:
        scores += p * heads_terms  # the tanh of the capped scores
    if shape.dropout:
        scores += heads_terms + p * heads_terms  # its dropout mask, and its output (what multiplies V)
    return scores, attention


def mlp_bytes(shape: Shape) -> tuple[Decimal, Decimal]:
    """What the MLP keeps besides its input: (kept whole by every tensor-parallel rank, divided among them).

    Dense: the up (and gate) outputs and the activation, 2·i or 4·i values per token. A mixture of experts, as
    transformers runs it (each expert gathers its tokens, and its weighted output is added back with index_add_):
    per token and chosen expert a copy of the input, the expert's MLP (as a dense one), its output and the weighted
    output (3·h + 4·i values when gated) and the routing weight; the router keeps its fp32 probabilities
    (4·E bytes per token), the normalised top-k weights and the chosen indices (int64). A shared expert is a
    dense gated MLP of its own, with its sigmoid gate and its gated output (4·i_shared + h + 1 values per token).
    Measured in tools/measure_activations.py.
    """
    tokens, p = shape.sequence * shape.micro_batch, shape.precision
    kept = (4 if shape.gated else 2) + shape.activation_extra  # i-wide tensors of one MLP
    if not shape.experts:
        return Decimal(0), Decimal(p * tokens * shape.intermediate * kept)
    k, h = shape.experts_per_token, shape.hidden
    routed = p * tokens * k * (3 * h + kept * shape.intermediate + 1)
    shared = p * tokens * ((4 + shape.activation_extra) * shape.shared_intermediate + h + 1) \
        if shape.shared_intermediate else 0
    router = tokens * (4 * shape.experts + 28 * k + 4)
    return Decimal(router), Decimal(routed + shared)


def cross_attention_terms(shape: Shape) -> dict[str, Decimal]:
    """What a decoder layer's cross-attention block adds: queries from the decoder's s tokens, keys and values
    from the encoder's output (its s_enc rows are kept once for the whole model: ``model_terms``)."""
    s, b, h, p = shape.sequence, shape.micro_batch, shape.hidden, shape.precision
    sbh = s * b * h
    scores, attention = attention_bytes(shape, s, shape.encoder_sequence)
    replicated = {
        "norms": Decimal(norm_bytes(shape) * sbh),  # the block's norm
        "attention": Decimal(p * sbh),  # the query projection's input
        "masks": Decimal(sbh if shape.dropout else 0),
    }
    return _per_gpu(shape, replicated, {"attention": attention, "scores": scores}, kept=Decimal(0))


def _per_gpu(shape: Shape, replicated: dict[str, Decimal], divided: dict[str, Decimal],
             kept: Decimal) -> dict[str, Decimal]:
    """Split over t tensor-parallel ranks (what is replicated too, with sequence parallelism), then drop what
    recomputation recomputes: selective, the eager scores; full, all but the block's input (``kept``)."""
    t = shape.tensor_parallel
    terms = {}
    for key in ("norms", "attention", "scores", "mlp", "masks"):
        whole = replicated.get(key, Decimal(0))
        part = divided.get(key, Decimal(0))
        terms[key] = (whole + part) / t if shape.sequence_parallel else whole + part / t
    if shape.checkpointing == SELECTIVE:
        terms["scores"] = Decimal(0) if not shape.flash else terms["scores"]
    elif shape.checkpointing == FULL:
        terms = {key: Decimal(0) for key in terms}
        terms["norms"] = kept / (t if shape.sequence_parallel else 1)  # only the layer's input
    return terms


def norm_bytes(shape: Shape) -> int:
    """Bytes a norm keeps per value of its input: the input itself (a fused kernel: LayerNorm, Megatron, Liger),
    or, computing in fp32 as transformers does, an fp32 copy of it and then the normalised values before the
    weight, in the activations' precision (LlamaRMSNorm), in fp32 (GemmaRMSNorm), or with the input too
    (T5LayerNorm, which multiplies the input itself by the fp32 scale). Measured in tools/measure_activations.py."""
    p = shape.precision
    return {FUSED_NORM: p, LLAMA_NORM: 4 + p, GEMMA_NORM: 4 + 4, T5_NORM: 4 + 2 * p}[shape.norm]


def logits_bytes(shape: Shape) -> Decimal:
    """The model's output: the final norm's and the head's inputs, and the cross-entropy's input kept for
    its backward, b·s·vocabulary logits (vocab-parallel over t)."""
    s, b = shape.sequence, shape.micro_batch
    head = Decimal((norm_bytes(shape) + shape.precision) * s * b * shape.hidden)
    capped = shape.precision * s * b * shape.vocab if shape.softcap else 0  # the tanh of the capped logits
    return head + Decimal(shape.loss_precision * s * b * shape.vocab + capped) / shape.tensor_parallel


def encoder_shape(shape: Shape) -> Shape:
    return replace(shape, sequence=shape.encoder_sequence)


def stack_terms(shape: Shape) -> list[tuple[int, dict[str, Decimal]]]:
    """(how many, terms of one) for each kind of layer: the decoder-only model's layers; or the encoder's
    layers at s_enc and the decoder's, with their cross-attention, at s."""
    if not shape.decoder_layers:
        return [(shape.layers, layer_terms(shape))]
    decoder = layer_terms(shape)
    cross = cross_attention_terms(shape)
    return [(shape.layers, layer_terms(encoder_shape(shape))),
            (shape.decoder_layers, {key: decoder[key] + cross[key] for key in decoder})]


def model_terms(shape: Shape) -> dict[str, Decimal]:
    """Kept once for the model. An encoder–decoder's final encoder norm keeps its input, and its output is the
    input of every cross-attention's key and value projections. T5 keeps its relative-position buckets, one
    int64 per query–key pair of each stack. Whisper's front-end keeps the mel features (2·s_enc frames), the first
    convolution's output and its GELU, and the second's output (2·mel·s_enc + 5·h·s_enc values)."""
    terms: dict[str, Decimal] = {}
    split = shape.tensor_parallel if shape.sequence_parallel else 1
    if shape.embed_norm:
        terms["norms"] = Decimal(norm_bytes(shape) * shape.sequence * shape.micro_batch * shape.hidden) / split
    if shape.relative_positions:
        pairs = shape.sequence ** 2 + (shape.encoder_sequence ** 2 if shape.decoder_layers else 0)
        terms["scores"] = Decimal(8 * pairs)
    if not shape.decoder_layers:
        return terms
    source, b, h, p = shape.encoder_sequence, shape.micro_batch, shape.hidden, shape.precision
    terms["norms"] = terms.get("norms", Decimal(0)) + Decimal(norm_bytes(shape) * source * b * h) / split
    terms["attention"] = Decimal(p * source * b * h) / split
    if shape.mel_bins:
        terms["input"] = Decimal(p * b * source * (2 * shape.mel_bins + 5 * h))
    return terms


def estimate(shape: Shape) -> dict[str, Decimal]:
    """Bytes for the whole model per GPU, by component (layers × layer terms, plus the logits)."""
    total = {key: Decimal(0) for key in COMPONENTS}
    for count, terms in stack_terms(shape):
        for key, value in terms.items():
            total[key] += value * count
    for key, value in model_terms(shape).items():
        total[key] += value
    total["logits"] = logits_bytes(shape)
    return total


def largest_layer(shape: Shape) -> Decimal:
    return max(sum(terms.values(), Decimal(0)) for _, terms in stack_terms(shape))


def shape_of(values: Values) -> Shape:
    return Shape(
        layers=integer(values, "layers"), hidden=integer(values, "hidden_size"),
        heads=integer(values, "attention_heads"), kv_heads=integer(values, "kv_heads"),
        head_dim=integer(values, "head_dim"), intermediate=integer(values, "intermediate_size"),
        gated=values["mlp"] == GATED, vocab=integer(values, "vocab_size"),
        sequence=integer(values, "sequence_length"), micro_batch=integer(values, "micro_batch"),
        precision=PRECISION[str(values["precision"])], loss_precision=4 if values["loss_fp32"] is True else
        PRECISION[str(values["precision"])],
        flash=values["attention"] == FLASH, dropout=values["dropout"] is True, norm=str(values["norms"]),
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
    )


def compute(values: Values) -> Outputs:
    """Activations per sample (A), per micro-batch (M = b·A), per layer, and by component."""
    shape = shape_of(values)
    parts = estimate(shape)
    total = sum(parts.values(), Decimal(0))
    per_layer = largest_layer(shape)
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
    if any(integer(values, key) % t for key in ("hidden_size", "intermediate_size", "shared_intermediate_size")):
        errors.setdefault("tensor_parallel", "Parallelismo tensoriale: deve dividere la dimensione nascosta e quella"
                                             " intermedia.")
    errors.update(check_experts(values))
    errors.update(check_encoder(values))
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
    return stacked_bar("Attivazioni per micro-batch e per GPU, per componente", parts, "GB")


GPT3_175B = {
    "layers": "96", "hidden_size": "12288", "attention_heads": "96", "kv_heads": "96", "head_dim": "128",
    "intermediate_size": "49152", "mlp": PLAIN, "vocab_size": "51200", "sequence_length": "2048",
    "micro_batch": "1", "precision": "fp16", "attention": EAGER, "dropout": "on", "tensor_parallel": "8",
    "norms": FUSED_NORM, "softmax_fp32": "",
}


def _size(field_id: str, label: str, default: str, help_text: str, maximum: int = 1_000_000) -> Field:
    return size_field(field_id, label, default, help_text, "Modello", maximum)


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
        _size("intermediate_size", "Dimensione intermedia (MLP)", "14336",
              "intermediate_size; in un modello a esperti, quella di ogni esperto (moe_intermediate_size)."),
        Field(id="mlp", label="Tipo di MLP", default=GATED, kind=Kind.CHOICE, group="Modello",
              options=(Option(GATED, "Con gate (SwiGLU/GeGLU, tre matrici)"),
                       Option(PLAIN, "Semplice (GELU, due matrici)")),
              help="Llama, Mistral, Qwen e Gemma usano l'MLP con gate; GPT-2, GPT-3, OPT e BLOOM quello semplice."),
        _size("vocab_size", "Vocabolario", "128256", "vocab_size: decide la memoria dei logit.", 10_000_000),
        Field(id="qk_norm", label="Normalizzazione di query e key", default="", kind=Kind.FLAG, group="Modello",
              help="Qwen3 e Gemma 3 normalizzano ogni testa di query e key: quelle norme conservano Q e K."),
        Field(id="post_norms", label="Normalizzazioni anche dopo attenzione e MLP", default="", kind=Kind.FLAG,
              group="Modello", help="Gemma 2 e 3: quattro normalizzazioni per strato invece di due."),
        Field(id="softcap", label="Soft-capping di punteggi e logit", default="", kind=Kind.FLAG, group="Modello",
              help="Gemma 2 limita punteggi e logit con una tanh, che conserva la sua uscita."),
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
        _count("experts", "Esperti per strato (MoE)", "num_local_experts o num_experts; 0 per un modello denso."),
        _count("experts_per_token", "Esperti attivi per token",
               "num_experts_per_tok (k): ogni token passa da k esperti, e ognuno conserva la sua parte."),
        _count("shared_intermediate_size", "Esperto condiviso: dimensione intermedia",
               "shared_expert_intermediate_size (Qwen-MoE): un MLP che vede tutti i token; 0 se non c'è."),
        _count("decoder_layers", "Strati del decoder (encoder–decoder)",
               "T5 e Whisper: num_decoder_layers. Con un valore, il numero di strati sopra è quello dell'encoder;"
               " 0 per i modelli solo decoder.", maximum=10_000),
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
              options=(Option(LLAMA_NORM, "In fp32, come LlamaRMSNorm (Llama, Mistral, Qwen, Phi)"),
                       Option(GEMMA_NORM, "In fp32 anche l'uscita, come GemmaRMSNorm"),
                       Option(T5_NORM, "In fp32 con l'input, come T5LayerNorm"),
                       Option(FUSED_NORM, "Kernel fuso: solo l'input (LayerNorm, Megatron, Liger)")),
              help="Quanto conserva ogni normalizzazione per valore: in bf16 6 byte (Llama), 8 (Gemma, T5) o 2."),
        Field(id="activation_impl", label="Funzione di attivazione", default=FUSED_ACTIVATION, kind=Kind.CHOICE,
              group="Addestramento",
              options=(Option(FUSED_ACTIVATION, "SiLU o GELU in un'operazione sola (conserva il suo input)"),
                       Option(RELU, "ReLU (conserva solo l'uscita: OPT, T5 1.0)"),
                       Option(GELU_NEW, "GELU tanh scritta in Python (gelu_new: GPT-2, Flan-T5)")),
              help="La gelu_new di Transformers conserva tre tensori intermedi in più per ogni valore dell'MLP;"
                   " la ReLU uno in meno."),
        Field(id="attention", label="Implementazione dell'attenzione", default=FLASH, kind=Kind.CHOICE,
              group="Addestramento",
              options=(Option(FLASH, "FlashAttention / SDPA (statistiche O(s))"),
                       Option(EAGER, "Eager (conserva la matrice s × s)")),
              help="L'attenzione eager conserva i punteggi s × s di ogni testa; FlashAttention li ricalcola."),
        Field(id="softmax_fp32", label="Softmax eager in fp32 (come Transformers)", default="on", kind=Kind.FLAG,
              group="Addestramento",
              help="Con l'attenzione eager Llama, Mistral, Qwen, Gemma e T5 calcolano la softmax in fp32 e la"
                   " riconvertono: si conservano entrambe le copie dei punteggi. GPT-2 e i kernel fusi (Megatron)"
                   " solo una."),
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
        Result("per_layer_mb", "Per strato, per micro-batch", "MB", primary=False,
               help="In un encoder–decoder, il più grande tra uno strato dell'encoder e uno del decoder (con la"
                    " cross-attention)."),
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
                                       "gemma-2-2b", "gpt2", "mixtral-8x7b", "qwen3-30b-a3b", "qwen1.5-moe-a2.7b",
                                       "flan-t5-large", "whisper-small")),
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
