"""Activation memory: the bytes a transformer keeps for the backward pass, by component, per GPU.

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

from .architectures import GATED, Architecture

# How a family's norms keep their input, and its MLP activation (see ``norm_bytes`` and ``ACTIVATION_EXTRA``).
LLAMA_NORM, GEMMA_NORM, T5_NORM, FUSED_NORM = "llama", "gemma", "t5", "fuso"
FUSED_ACTIVATION, GELU_NEW, RELU, CLAMPED_SWIGLU = "fusa", "gelu_new", "relu", "swiglu_limitata"
# Attention: eager (the s × s scores kept), a fused kernel (SDPA, FlashAttention: statistics per row), or Transformers'
# own FlashAttention kernels (attn_implementation "flash_attention_2" or "_3"), which differ only for latent attention
# (``Shape.padded_values``).
EAGER, FLASH, FLASH_TRANSFORMERS = "eager", "flash", "flash_attention_2"
# How Transformers runs a mixture's experts (see ``mlp_bytes``): each expert gathers its tokens and adds its weighted
# output back with index_add_ (Mixtral, Qwen-MoE); or the token copies sorted by expert, the outputs put back in
# place and weighted in fp32 (DeepSeek-V2); or, with the routing softmax over the k chosen logits only, a loop over
# experts stored as 3-D parameters (gpt-oss); or one expert at a time with fp32 routing weights (DeepSeek-V3).
EXPERT_LOOP, EXPERT_SORTED, EXPERT_TOPK, EXPERT_FP32 = "ciclo", "ordinati", "softmax_k", "ciclo_fp32"
# Checkpointing, as frameworks name it: none; Megatron's selective recomputation (the attention scores only);
# Transformers' gradient_checkpointing (full: each layer's input kept, the layer rebuilt in backward); torchtitan's
# per-op selective policy; and the checkpointed inputs offloaded to CPU memory (torchtune's offload_activations).
NONE, SELECTIVE, FULL, SELECTIVE_OP, OFFLOAD = "nessuno", "selettivo", "completo", "selettivo_op", "offload"
REBUILT = (FULL, SELECTIVE_OP, OFFLOAD)  # modes that rebuild a whole layer during backward
IN_FLIGHT = 2  # offloaded layer inputs on the GPU at once: the one in use and the one being copied
# i-wide tensors an MLP activation keeps beyond a fused SiLU/GELU's: transformers' gelu_new, the tanh GELU written
# out in Python, also keeps tanh, x/2 and 1 + tanh; ReLU keeps only its output, which the next matrix keeps anyway;
# gpt-oss's SwiGLU, clamped and written out (gate and up read from one product), keeps the clamped gate, its sigmoid,
# their product and up + 1 besides the product and the next matrix's input.
ACTIVATION_EXTRA = {FUSED_ACTIVATION: 0, GELU_NEW: 3, RELU: -1, CLAMPED_SWIGLU: 3}
MAX_SEQUENCE = 1_048_576

# Components of the breakdown, in the order the page's bar shows them.
COMPONENTS = ("norms", "attention", "scores", "mlp", "masks", "input", "logits")


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
    experts_impl: str = EXPERT_LOOP  # how Transformers runs the experts (``mlp_bytes``)
    sinks: bool = False  # a learned sink logit per head, one more column in the eager softmax (gpt-oss)
    dense_layers: int = 0  # a mixture of experts' first layers with a dense MLP of ``dense_intermediate`` instead
    dense_intermediate: int = 0
    # Multi-head latent attention (DeepSeek-V2/V3), when kv_lora_rank is set: ``head_dim`` is each query's and key's
    # width (the part without RoPE plus ``rope_dim``), ``v_head_dim`` each value's; q_lora_rank 0: one q_proj.
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    rope_dim: int = 0
    v_head_dim: int = 0
    # Transformers' FlashAttention kernels take one head width: with latent attention it pads each value to the
    # key's width (``attention_bytes``).
    padded_values: bool = False


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
    # Latent attention's compressed query and key/value (q_a_proj's and kv_a_proj's outputs, without the rotary key):
    # each is normalised, and the norm's output is the input of q_b_proj or kv_b_proj.
    latent = shape.q_lora_rank + shape.kv_lora_rank
    replicated = {  # without sequence parallelism every tensor-parallel rank keeps these whole
        # what the norms keep of their input
        "norms": Decimal(norm_bytes(shape) * s * b * (norm_count * h + latent)),
        "attention": Decimal(p * s * b * (h + latent)),  # QKV's input (the first norm's output)
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
    # FlashAttention reads the grouped K and V as they are. Latent attention builds every head's key (its shared
    # rotary part copied to each) and value from the compressed vector: a key as wide as a query, a value (and so
    # the output) v_head_dim wide.
    kv_width = shape.kv_heads * shape.head_dim if shape.flash else q_width
    v_width = shape.heads * shape.v_head_dim if shape.kv_lora_rank else kv_width
    o_width = v_width if shape.kv_lora_rank else q_width
    if shape.flash and shape.padded_values and shape.kv_lora_rank and shape.v_head_dim < shape.head_dim:
        # Transformers pads every value to the key's width for its FlashAttention kernels: the kernel keeps the padded
        # values and its padded output, and o_proj's input is a copy of the output's first v_head_dim columns.
        v_width = shape.heads * shape.head_dim
        o_width = shape.heads * (shape.head_dim + shape.v_head_dim)
    # Q and the output (also out_proj's input) have one row per query, K and V one per key.
    attention = Decimal(p * b * (queries * (q_width + o_width) + keys * (kv_width + v_width)))
    if shape.flash:
        return Decimal(4 * queries * b * shape.heads), attention  # the softmax statistics, fp32 per row
    heads_terms = queries * b * shape.heads * keys  # a·s²·b
    scores = Decimal(p * heads_terms)  # softmax output
    if shape.softmax_fp32 and p < 4:
        scores += 4 * heads_terms  # the fp32 output the softmax keeps, besides its copy in the activations' precision
    if shape.softcap:
        scores += p * heads_terms  # the tanh of the capped scores
    if shape.sinks:  # the sink column of the softmax's output(s), and the int64 index of each row's maximum
        column = p + (4 if shape.softmax_fp32 and p < 4 else 0)
        scores += (column + 8) * queries * b * shape.heads
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

    Other families, measured by tools/measure_transformers.py. DeepSeek-V2's experts (``EXPERT_SORTED``) read the
    token copies sorted by expert (h values per chosen expert) and put their outputs back in place in fp32, where
    the routing weights multiply them (4·h + 4 bytes); the sort keeps two int64 indices per chosen expert. Its
    router computes in fp32: the input (4·h bytes per token), the probabilities (4·E), the chosen indices, and an
    fp32 copy of its weights per layer (4·E·h). Its shared experts have no gate. DeepSeek-V3's (``EXPERT_FP32``)
    gather each expert's tokens (h values, an int64 index), keep its output (h) and the fp32 weight, and add the
    weighted output in fp32 (4·h bytes); its router keeps, besides V2's, the normalising sum and the k weights.
    gpt-oss's (``EXPERT_TOPK``) keep what Mixtral's do and each token's int64 index; its router only the k chosen
    indices and their softmax.
    """
    tokens, p = shape.sequence * shape.micro_batch, shape.precision
    kept = (4 if shape.gated else 2) + shape.activation_extra  # i-wide tensors of one MLP
    if not shape.experts:
        return Decimal(0), Decimal(p * tokens * shape.intermediate * kept)
    k, h, e = shape.experts_per_token, shape.hidden, shape.experts
    shared_mlp = (4 + shape.activation_extra) * shape.shared_intermediate
    if shape.experts_impl == EXPERT_SORTED:
        routed = tokens * k * (p * (h + kept * shape.intermediate) + 4 * h + 4 + 16)
        router = tokens * (4 * h + 4 * e + 8 * k) + 4 * e * h
        return Decimal(router), Decimal(routed + p * tokens * shared_mlp)
    if shape.experts_impl == EXPERT_FP32:
        routed = tokens * k * (p * (2 * h + kept * shape.intermediate) + 4 * h + 12)
        router = tokens * (4 * h + 4 * e + 12 * k + 4) + 4 * e * h
        return Decimal(router), Decimal(routed + p * tokens * shared_mlp)
    routed = p * tokens * k * (3 * h + kept * shape.intermediate + 1)
    shared = p * tokens * (shared_mlp + h + 1) if shape.shared_intermediate else 0
    router = tokens * (4 * e + 28 * k + 4)
    if shape.experts_impl == EXPERT_TOPK:
        routed += 8 * tokens * k
        router = tokens * k * (8 + p)
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
    elif shape.checkpointing == SELECTIVE_OP:
        terms = op_terms(shape, terms["scores"], kept)
    elif shape.checkpointing in (FULL, OFFLOAD):
        terms = {key: Decimal(0) for key in terms}
        terms["norms"] = kept / (t if shape.sequence_parallel else 1)  # only the layer's input
    return terms


def op_terms(shape: Shape, scores: Decimal, kept: Decimal) -> dict[str, Decimal]:
    """torchtitan's per-op selective checkpointing (``_op_sac_save_list``): the layer's input, the attention's
    output and statistics, and the outputs of every other matrix product are kept; norms, activations and the
    rest are recomputed. Approximate: half of each layer's product outputs (the policy alternates)."""
    s, b, h, p, t = shape.sequence, shape.micro_batch, shape.hidden, shape.precision, shape.tensor_parallel
    q, kv = shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    inner = shape.intermediate * (shape.experts_per_token or 1) + shape.shared_intermediate
    products = (q + 2 * kv + h) + (2 if shape.gated else 1) * inner + h
    return {"norms": kept / (t if shape.sequence_parallel else 1),
            "attention": Decimal(p * s * b * (q + Decimal(products) / 2)) / t,
            "scores": scores, "mlp": Decimal(0), "masks": Decimal(0)}


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
    if shape.experts and shape.dense_layers:  # a mixture's first layers with a dense MLP (DeepSeek)
        dense = replace(shape, experts=0, experts_per_token=0, shared_intermediate=0,
                        intermediate=shape.dense_intermediate)
        return [(shape.dense_layers, layer_terms(dense)), (shape.layers - shape.dense_layers, layer_terms(shape))]
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
    if shape.kv_lora_rank:  # latent attention's rotary factors, complex64, computed once per forward pass
        terms["attention"] = Decimal(4 * shape.sequence * shape.rope_dim)
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
        on_gpu = min(count, IN_FLIGHT) if shape.checkpointing == OFFLOAD else count
        for key, value in terms.items():
            total[key] += value * on_gpu
    for key, value in model_terms(shape).items():
        total[key] += value
    total["logits"] = logits_bytes(shape)
    return total


def largest_layer(shape: Shape) -> Decimal:
    return max(sum(terms.values(), Decimal(0)) for _, terms in stack_terms(shape))


def rebuilt_layer(shape: Shape) -> Decimal:
    """What one layer rebuilt during backward adds to the peak: its activations as if nothing were checkpointed,
    for the modes that recompute whole layers (Transformers' gradient checkpointing, per-op, offload)."""
    if shape.checkpointing not in REBUILT:
        return Decimal(0)
    return largest_layer(replace(shape, checkpointing=NONE))



@dataclass(frozen=True)
class Traits:
    """How Transformers runs a family, where it changes what autograd keeps (measured by
    tools/measure_transformers.py): the norms' kernel, the MLP activation, the eager softmax's precision,
    Gemma 2's soft-capping, whether the loss upcasts the logits and how the experts run."""

    norm: str
    activation: str
    softmax_fp32: bool
    softcap: bool
    loss_fp32: bool
    experts: str = EXPERT_LOOP


def traits(entry: Architecture) -> Traits:
    """LayerNorm is one kernel; RMSNorm computes in fp32 (Gemma's and OLMo 2's multiply by the weight in fp32 and
    keep that fp32 input too, T5's keeps the input). gelu_new, the tanh GELU written out in Python, for GPT-2 and
    the gated T5s; ReLU for OPT and the first T5s; gpt-oss's clamped SwiGLU written out, with an fp32 norm like
    Gemma's. GPT-2, Whisper, Falcon and gpt-oss (with its sink column) compute the eager softmax in the activations'
    precision. T5 and Whisper compute the cross-entropy on the logits as they are."""
    family = entry.family
    norm = FUSED_NORM if entry.norm_bias else {"Gemma": GEMMA_NORM, "OLMo": GEMMA_NORM, "gpt-oss": GEMMA_NORM,
                                                "T5": T5_NORM}.get(family, LLAMA_NORM)
    if family == "GPT-2" or (family == "T5" and entry.mlp == GATED):
        activation = GELU_NEW
    else:
        activation = RELU if family in ("OPT", "T5") else CLAMPED_SWIGLU if family == "gpt-oss" else FUSED_ACTIVATION
    return Traits(norm=norm, activation=activation,
                  softmax_fp32=family not in ("GPT-2", "Whisper", "Falcon", "gpt-oss"),
                  softcap=family == "Gemma" and not entry.qk_norm,  # Gemma 2, not Gemma 3
                  loss_fp32=family not in ("T5", "Whisper"),
                  experts=EXPERT_FP32 if entry.sigmoid_router else
                  {"DeepSeek": EXPERT_SORTED, "gpt-oss": EXPERT_TOPK}.get(family, EXPERT_LOOP))
