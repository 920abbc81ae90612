"""LoRA's trainable parameters, counted as PEFT counts them, from a plain description of the model and the setup.

Each adapted matrix W of shape d_out × d_in gains two factors, B (d_out × r) and A (r × d_in): r·(d_in + d_out)
trainable parameters (Hu et al., arXiv:2106.09685 §4.1). The attention projections are sized from the head
dimension: q_proj maps the hidden size to heads · head_dim, k_proj and v_proj to kv_heads · head_dim, o_proj back.
What PEFT adapts per architecture (fused projections, experts, encoder–decoders, embeddings, DoRA, heads in
``modules_to_save``, ``bias="lora_only"``/``"all"``) is told in the LoRA page's module docstring.
"""

from __future__ import annotations

from dataclasses import dataclass

from .architectures import FUSED_GATE_UP, FUSED_QKV, GATED, SEPARATE

ATTENTION = ("q_proj", "k_proj", "v_proj", "qkv_proj", "o_proj")
LATENT = ("q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj")  # multi-head latent attention (DeepSeek)
MLP = ("gate_proj", "up_proj", "gate_up_proj", "down_proj", "router")
EXTRA = ("embed_tokens", "lm_head")
MODULES = (*ATTENTION, *LATENT, *MLP, *EXTRA)
LINEAR = (*ATTENTION, *LATENT, *MLP)  # DoRA gives these a magnitude vector
QKV = frozenset({"q_proj", "k_proj", "v_proj", "qkv_proj"})
MLP_MATRICES = frozenset({"gate_proj", "up_proj", "gate_up_proj", "down_proj"})
# Which linear layers of a model carry a bias, and which biases PEFT trains (LoraConfig's bias).
NO_BIAS, QKV_BIAS, ALL_BIAS, ALL_BUT_K_BIAS = "none", "qkv", "all", "all_but_k"
TRAIN_NONE, TRAIN_LORA_ONLY, TRAIN_ALL = "none", "lora_only", "all"
# How a mixture of experts stores its experts and router in Transformers (4.57): as nn.Linear modules (Mixtral,
# Qwen MoE), experts as modules and the router as a bare parameter (DeepSeek), or both as parameters (gpt-oss).
# PEFT's target_modules="all-linear" takes only nn.Linear modules, so this decides what it adapts.
LINEAR_EXPERTS, PARAMETER_ROUTER, PARAMETER_EXPERTS = "linear", "router_parameter", "parameters"
SHARED_GATE = "shared_expert_gate"  # Qwen2-MoE's nn.Linear(hidden, 1) in front of the shared expert: no checkbox
# The shortcuts for target_modules: the boxes ticked by hand, PEFT's "all-linear", the attention only.
CHOSEN, ALL_LINEAR, ATTENTION_ONLY = "scelti", "all-linear", "attenzione"
# Classification heads in modules_to_save, by layout.
LINEAR_HEAD, LINEAR_BIAS_HEAD, DENSE_PROJ_HEAD = "linear", "linear_bias", "dense_proj"


@dataclass(frozen=True)
class LoraSetup:
    """A model's shape (an expert's MLP size for a mixture of experts) and what LoRA adapts in it."""

    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    rank: int
    targets: frozenset[str]
    dora: bool = False
    decoder_layers: int = 0
    experts: int = 0
    shared_intermediate: int = 0
    linear_bias: str = NO_BIAS
    train_bias: str = TRAIN_NONE
    model_biases: int = 0  # every bias of the model (for bias="all")
    num_labels: int = 0
    head_layout: str = LINEAR_HEAD
    dense_layers: int = 0  # a mixture of experts' layers with a dense MLP instead (of ``dense_intermediate``)
    dense_intermediate: int = 0
    latent: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)  # q_lora_rank, kv_lora_rank, rope, nope, v_head_dim


@dataclass(frozen=True)
class Layout:
    """What a model's blocks are made of, as far as LoRA's targets go."""

    attention: str = SEPARATE  # or FUSED_QKV
    mlp: str = GATED  # or FUSED_GATE_UP, PLAIN
    q_lora_rank: int = 0
    kv_lora_rank: int = 0  # > 0: multi-head latent attention
    experts: int = 0
    shared_intermediate: int = 0
    moe_modules: str = LINEAR_EXPERTS


def attention_modules(layout: Layout) -> tuple[str, ...]:
    """The attention's matrices of a block, by the LoRA page's names."""
    if layout.kv_lora_rank:
        query = ("q_a_proj", "q_b_proj") if layout.q_lora_rank else ("q_proj",)
        return (*query, "kv_a_proj_with_mqa", "kv_b_proj", "o_proj")
    return ("qkv_proj", "o_proj") if layout.attention == FUSED_QKV else ("q_proj", "k_proj", "v_proj", "o_proj")


def mlp_modules(layout: Layout) -> tuple[str, ...]:
    """The MLP's matrices (each expert's, for a mixture of experts), and the router where there are experts."""
    mlp = ("gate_up_proj", "down_proj") if layout.mlp == FUSED_GATE_UP else \
        ("gate_proj", "up_proj", "down_proj") if layout.mlp == GATED else ("up_proj", "down_proj")
    return (*mlp, "router") if layout.experts else mlp


def available(layout: Layout) -> frozenset[str]:
    """Every module the page can adapt that this model has (embeddings and head included)."""
    return frozenset((*attention_modules(layout), *mlp_modules(layout), *EXTRA))


def shortcut(layout: Layout, which: str) -> frozenset[str]:
    """The targets of a shortcut. ``ALL_LINEAR`` is what PEFT's target_modules="all-linear" adapts: every nn.Linear
    of the blocks, the output head (lm_head) excepted, so the router only where it is an nn.Linear, the experts only
    where they are modules, and Qwen2-MoE's shared-expert gate; ``ATTENTION_ONLY`` the attention's matrices."""
    attention = frozenset(attention_modules(layout))
    if which != ALL_LINEAR:
        return attention
    if layout.experts and layout.moe_modules == PARAMETER_EXPERTS:
        return attention
    mlp = set(mlp_modules(layout))
    if layout.experts and layout.moe_modules == PARAMETER_ROUTER:
        mlp.discard("router")
    if layout.experts and layout.moe_modules == LINEAR_EXPERTS and layout.shared_intermediate:
        mlp.add(SHARED_GATE)
    return attention | mlp


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


def latent_shapes(hidden: int, heads: int, latent: tuple[int, int, int, int, int]) -> dict[str, tuple[int, int]]:
    """(d_in, d_out) of latent attention's projections (q_proj when the query has no bottleneck)."""
    q_rank, kv_rank, rope, nope, value = latent
    qk = nope + rope
    query = {"q_a_proj": (hidden, q_rank), "q_b_proj": (q_rank, heads * qk)} if q_rank else \
        {"q_proj": (hidden, heads * qk)}
    return {**query, "kv_a_proj_with_mqa": (hidden, kv_rank + rope), "kv_b_proj": (kv_rank, heads * (nope + value)),
            "o_proj": (heads * value, hidden)}


def adapter(rank: int, d_in: int, d_out: int, dora: bool) -> int:
    return rank * (d_in + d_out) + (d_out if dora else 0)


def _table(setup: LoraSetup, size: int) -> dict[str, tuple[int, int]]:
    table = shapes(setup.hidden, size, setup.heads, setup.kv_heads, setup.head_dim)
    if setup.latent[1]:
        table = {name: table[name] for name in MLP_MATRICES} | latent_shapes(setup.hidden, setup.heads, setup.latent)
    return table


def _over_layers(setup: LoraSetup, attention: int, mlp: int) -> int:
    """Decoder-only: ``layers`` blocks. Encoder–decoder: the encoder's, then the decoder's with cross-attention."""
    return setup.layers * (attention + mlp) + setup.decoder_layers * (2 * attention + mlp)


def adapters(setup: LoraSetup) -> int:
    """Trainable parameters of the adapters (and DoRA's magnitudes), over every layer that has the targets."""
    rank, dora, chosen = setup.rank, setup.dora, setup.targets

    def matrices(size: int, names: frozenset[str]) -> int:
        table = _table(setup, size)
        return sum(adapter(rank, *table[name], dora) for name in names if name in table)

    attention = matrices(setup.intermediate, chosen & frozenset((*ATTENTION, *LATENT)))
    mlp_names = chosen & MLP_MATRICES
    mlp = matrices(setup.intermediate, mlp_names) * max(setup.experts, 1)
    if setup.experts:
        mlp += matrices(setup.shared_intermediate, mlp_names) if setup.shared_intermediate else 0
        mlp += adapter(rank, setup.hidden, setup.experts, dora) if "router" in chosen else 0
    if setup.experts and setup.shared_intermediate and SHARED_GATE in chosen:
        mlp += adapter(rank, setup.hidden, 1, dora)
    dense = setup.dense_layers if setup.experts else 0
    total = _over_layers(setup, attention, mlp) - dense * mlp
    total += dense * matrices(setup.dense_intermediate or setup.intermediate, mlp_names)
    return total + rank * (setup.vocab + setup.hidden) * len(chosen & frozenset(EXTRA))


def trained_biases(setup: LoraSetup) -> int:
    """Biases PEFT makes trainable: none, those of the adapted layers, or every bias of the model."""
    mode, where = setup.train_bias, setup.linear_bias
    if mode == TRAIN_ALL:
        return setup.model_biases
    if mode != TRAIN_LORA_ONLY or where == NO_BIAS:
        return 0
    chosen = (setup.targets & frozenset(LINEAR)) - {"router"}
    with_bias = chosen & QKV if where == QKV_BIAS else chosen - ({"k_proj"} if where == ALL_BUT_K_BIAS else set())
    table = _table(setup, setup.intermediate)
    attention = sum(table[name][1] for name in with_bias if name in ATTENTION)
    if "qkv_proj" in with_bias and where == ALL_BUT_K_BIAS:
        attention -= setup.kv_heads * setup.head_dim
    mlp = sum(table[name][1] for name in with_bias if name not in ATTENTION) * max(setup.experts, 1)
    return _over_layers(setup, attention, mlp)


def head(setup: LoraSetup) -> int:
    """Parameters of the classification head in modules_to_save (0 without one)."""
    labels, hidden = setup.num_labels, setup.hidden
    if not labels:
        return 0
    if setup.head_layout == LINEAR_HEAD:
        return hidden * labels
    if setup.head_layout == LINEAR_BIAS_HEAD:
        return hidden * labels + labels
    return hidden * hidden + hidden + hidden * labels + labels


def trainable(setup: LoraSetup) -> tuple[int, int]:
    """(new parameters: the adapters and the head's trained copy; all trainable, with the model's own biases)."""
    added = adapters(setup) + head(setup)
    return added, added + trained_biases(setup)
