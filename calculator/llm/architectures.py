"""A transformer's shape as its ``config.json`` describes it, and the counting of its weights.

``parameters()`` counts the weights from the architecture alone (embeddings,
attention, MLP, norms, biases, head, tied or not); tests check it against the
count each publisher states. The models themselves are in ``catalogue``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

GATED = "gated"  # SwiGLU/GeGLU: gate_proj, up_proj, down_proj
PLAIN = "plain"  # two matrices with GELU between them (GPT-2, GPT-3, OPT, BLOOM…)
FUSED_GATE_UP = "gate_up"  # gated, with gate and up in one matrix (Phi-3's gate_up_proj)
SEPARATE, FUSED_QKV = "separate", "fused"  # query, key and value in three matrices, or in one


@dataclass(frozen=True)
class Architecture:
    """A transformer as its config describes it: decoder-only, or encoder–decoder when ``decoder_layers``
    is set (then ``layers`` counts the encoder's, and each decoder layer adds cross-attention).

    ``head_dim`` is the config's own where it sets one (Gemma, Qwen3, T5's d_kv…), else hidden / heads.
    ``qkv_bias``/``bias``: biases on the query/key/value projections only, or on every linear layer
    (``k_bias=False``: all but the key projection, as in Whisper). ``qk_norm``: a norm of size head_dim on
    queries and keys (Qwen3, Gemma 3). ``norm_bias``: LayerNorm (with a bias) rather than RMSNorm.
    ``fused_qkv``/``fused_gate_up``: the names of fused projections (one matrix for query, key and value;
    one for gate and up), which LoRA adapts as one matrix. Mixture of experts: ``experts`` MLPs of size
    ``expert_intermediate`` per layer, ``experts_per_token`` of them used per token, a router
    (hidden × experts) and optionally shared experts of total size ``shared_intermediate``. A mixture of experts
    may keep a dense MLP (of size ``intermediate``) in some layers: the first ``dense_layers`` (DeepSeek's
    first_k_dense_replace), and all but every ``moe_every``-th layer (Llama 4's interleave_moe_layer_step).
    ``bias`` on a mixture of experts also gives each expert's matrices and the router a bias (gpt-oss).

    Multi-head latent attention (DeepSeek-V2/V3, when ``kv_lora_rank`` is set): the keys and values come from one
    compressed vector of ``kv_lora_rank`` values plus a shared rotary key of ``rope_dim`` (kv_a_proj_with_mqa,
    normalised, then kv_b_proj to every head's ``nope_dim`` key part and ``v_head_dim`` value); the queries through
    a ``q_lora_rank`` bottleneck (q_a_proj, a norm, q_b_proj) when it is set, else one q_proj; each head's query
    and key are nope_dim + rope_dim wide. ``sinks``: one learned logit per head and layer (gpt-oss).
    """

    id: str
    label: str
    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    vocab: int
    source: str
    family: str = ""
    head_dim: int = 0
    mlp: str = GATED
    tied: bool = False
    qkv_bias: bool = False
    bias: bool = False
    k_bias: bool = True
    norm_bias: bool = False
    qk_norm: bool = False
    qk_norm_full: bool = False  # the query and key norms span the whole projections, not one head (OLMo 2, OLMoE)
    norms_per_layer: int = 2  # Gemma 2/3 also normalise after attention and after the MLP: 4; Falcon: 1
    final_norm: bool = True
    embed_norm: bool = False  # a norm right after the embeddings (BLOOM)
    embed_proj: int = 0  # embeddings of another size, projected in and out (OPT-350m's word_embed_proj_dim)
    positions: int = 0  # learned position embeddings (GPT-2, OPT, Whisper's decoder), if any
    fused_qkv: str = ""
    fused_gate_up: str = ""
    experts: int = 0
    experts_per_token: int = 0
    expert_intermediate: int = 0
    shared_intermediate: int = 0
    shared_gate: bool = False
    dense_layers: int = 0  # a mixture of experts whose first layers keep a dense MLP (first_k_dense_replace)
    moe_every: int = 1  # only every n-th layer has experts, the others a dense MLP (interleave_moe_layer_step)
    q_lora_rank: int = 0  # multi-head latent attention (see the docstring); 0: a plain query projection
    kv_lora_rank: int = 0  # 0: no latent attention
    rope_dim: int = 0  # qk_rope_head_dim
    nope_dim: int = 0  # qk_nope_head_dim
    v_head_dim: int = 0
    sinks: bool = False  # a learned sink logit per head in each layer (gpt-oss)
    sigmoid_router: bool = False  # DeepSeek-V3's router: sigmoid scores over groups of experts (no weight of its own)
    sliding_window: int = 0  # tokens a sliding-window layer attends to (0: every layer attends to all)
    sliding_layers: int = 0  # how many layers use the sliding window
    decoder_layers: int = 0
    relative_buckets: int = 0  # T5's relative attention bias, in the first layer of each stack
    encoder_positions: int = 0  # Whisper's encoder position table (a parameter, though fixed)
    mel_bins: int = 0  # a speech encoder's two convolutions over log-mel features (Whisper)
    stated_parameters: int = 0  # as the publisher states it (model card, safetensors metadata or PEFT's printout)
    stated_rounding: int = 1  # the publisher states the count rounded to this (10**7: "116.83B")
    stated_source: str = ""  # where the stated count comes from, when not the config's page
    offered: tuple[str, ...] = ()  # the pages that offer it as a preset (``catalogue.VRAM``…)

    @property
    def dim(self) -> int:
        """The head dimension actually used (a query's and a key's, in latent attention)."""
        if self.mla:
            return self.nope_dim + self.rope_dim
        return self.head_dim or self.hidden // self.heads

    @property
    def mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def moe_layers(self) -> int:
        """Layers with experts (all of them, for a mixture of experts without dense layers)."""
        if not self.moe:
            return 0
        return sum(1 for i in range(self.dense_layers, self.layers) if (i + 1) % self.moe_every == 0)

    def mla_matrices(self) -> dict[str, tuple[int, int]]:
        """(d_in, d_out) of each projection of latent attention, as Transformers names them."""
        h, heads, qk = self.hidden, self.heads, self.nope_dim + self.rope_dim
        query = ({"q_a_proj": (h, self.q_lora_rank), "q_b_proj": (self.q_lora_rank, heads * qk)}
                 if self.q_lora_rank else {"q_proj": (h, heads * qk)})
        return {**query, "kv_a_proj_with_mqa": (h, self.kv_lora_rank + self.rope_dim),
                "kv_b_proj": (self.kv_lora_rank, heads * (self.nope_dim + self.v_head_dim)),
                "o_proj": (heads * self.v_head_dim, h)}

    def agrees_with_publisher(self, count: int) -> bool:
        """Whether ``count`` is the publisher's, to the digits the publisher states."""
        unit = self.stated_rounding
        return (count + unit // 2) // unit * unit == self.stated_parameters

    @property
    def encoder_decoder(self) -> bool:
        return self.decoder_layers > 0

    @property
    def moe(self) -> bool:
        return self.experts > 0

    def attention_biases(self) -> int:
        if self.mla:  # attention_bias: on the two down-projections and the output, as Transformers builds them
            table = self.mla_matrices()
            return sum(table[name][1] for name in ("q_a_proj", "kv_a_proj_with_mqa", "o_proj") if name in table) \
                if self.bias else 0
        q, kv = self.heads * self.dim, self.kv_heads * self.dim
        if self.bias:
            return q + (kv if self.k_bias else 0) + kv + self.hidden
        return q + 2 * kv if self.qkv_bias else 0

    def attention(self) -> int:
        """Query, key, value and output projections (with their biases and q/k norms)."""
        sinks = self.heads if self.sinks else 0
        if self.mla:  # the two bottlenecks are normalised
            weights = sum(d_in * d_out for d_in, d_out in self.mla_matrices().values())
            return weights + self.q_lora_rank + self.kv_lora_rank + self.attention_biases() + sinks
        h, d = self.hidden, self.dim
        q, kv = self.heads * d, self.kv_heads * d
        norms = q + kv if self.qk_norm_full else 2 * d if self.qk_norm else 0
        return h * q + 2 * h * kv + q * h + self.attention_biases() + norms + sinks

    def mlp_biases(self, inner: int) -> int:
        return (2 * inner if self.mlp == GATED else inner) + self.hidden if self.bias else 0

    def dense_mlp(self, inner: int) -> int:
        return (3 if self.mlp == GATED else 2) * self.hidden * inner + self.mlp_biases(inner)

    def _block(self, mlp: Callable[[int], int]) -> int:
        """The layer's MLP as ``mlp`` counts it (weights or biases): dense, or the experts and shared experts."""
        if not self.moe:
            return mlp(self.intermediate)
        return self.experts * mlp(self.expert_intermediate) + (mlp(self.shared_intermediate)
                                                               if self.shared_intermediate else 0)

    def mlp_block(self) -> int:
        """One MoE layer's MLP (the experts with their router and shared experts), or a dense layer's."""
        if not self.moe:
            return self._block(self.dense_mlp)
        router = (self.hidden + (1 if self.bias else 0)) * self.experts + (self.hidden if self.shared_gate else 0)
        return self._block(self.dense_mlp) + router


    @property
    def norm(self) -> int:
        return 2 * self.hidden if self.norm_bias else self.hidden

    def _stacks(self, attention: int, block: int, norm: int, dense: int = 0) -> int:
        """Every layer of the encoder (or the only stack) and of the decoder (with cross-attention), and each
        stack's final norm, from one layer's attention, MLP (``dense``: a dense layer's, in a mixture of experts
        with dense layers) and norm."""
        with_block = self.moe_layers if self.moe else self.layers
        total = self.layers * (attention + self.norms_per_layer * norm) + with_block * block
        total += (self.layers - with_block) * dense
        total += self.decoder_layers * (2 * attention + block + (self.norms_per_layer + 1) * norm)
        return total + self.stacks * (norm if self.final_norm else 0)

    @property
    def stacks(self) -> int:
        return 2 if self.encoder_decoder else 1

    def biases(self) -> int:
        """Every bias of the model, norms' included (what PEFT's bias="all" trains)."""
        h = self.hidden
        norm = h if self.norm_bias else 0
        router = self.experts if self.bias else 0
        total = self._stacks(self.attention_biases(), self._block(self.mlp_biases) + router, norm,
                             self.mlp_biases(self.intermediate))
        return total + (norm if self.embed_norm else 0) + (2 * h if self.mel_bins else 0)

    def largest_layer(self) -> int:
        """Parameters of the largest single module (what ZeRO-3 gathers whole on each GPU): usually the
        embedding, else the widest projection or one expert's matrix."""
        h, width = self.hidden, self.embed_proj or self.hidden
        inner = self.expert_intermediate if self.moe else self.intermediate
        if self.moe and self.moe_layers < self.layers:
            inner = max(inner, self.intermediate)
        q, kv = self.heads * self.dim, self.kv_heads * self.dim
        candidates = [self.vocab * width, h * inner * (2 if self.fused_gate_up else 1),
                      h * (q + 2 * kv) if self.fused_qkv else h * q]
        candidates += [d_in * d_out for d_in, d_out in self.mla_matrices().values()] if self.mla else []
        return max(candidates)

    def matrices(self) -> list[tuple[int, int, int]]:
        """Every weight matrix of the layers and the embeddings as (rows, columns, how many): what a factored
        optimizer state is sized from. Fused projections are one matrix; everything else is a vector or small."""
        h, d = self.hidden, self.dim
        q, kv = self.heads * d, self.kv_heads * d
        attention = [(h, q + 2 * kv, 1)] if self.fused_qkv else [(h, q, 1), (h, kv, 2)]
        attention.append((q, h, 1))
        if self.mla:
            attention = [(d_in, d_out, 1) for d_in, d_out in self.mla_matrices().values()]

        def mlp(inner: int) -> list[tuple[int, int, int]]:
            if self.mlp != GATED:
                return [(h, inner, 1), (inner, h, 1)]
            up = [(h, 2 * inner, 1)] if self.fused_gate_up else [(h, inner, 2)]
            return [*up, (inner, h, 1)]

        if self.moe:
            block = [(rows, cols, n * self.experts) for rows, cols, n in mlp(self.expert_intermediate)]
            block += mlp(self.shared_intermediate) if self.shared_intermediate else []
            block.append((h, self.experts, 1))
        else:
            block = mlp(self.intermediate)
        with_block = self.moe_layers if self.moe else self.layers
        out = [(rows, cols, n * self.layers) for rows, cols, n in attention]
        out += [(rows, cols, n * with_block) for rows, cols, n in block]
        if with_block < self.layers:
            out += [(rows, cols, n * (self.layers - with_block)) for rows, cols, n in mlp(self.intermediate)]
        if self.decoder_layers:
            out += [(rows, cols, n * self.decoder_layers) for rows, cols, n in attention * 2 + block]
        width = self.embed_proj or h
        return [*out, (self.vocab, width, 1 if self.tied else 2)]

    def input_embedding(self) -> int:
        """The token embedding table: a lookup, not a product (training-compute conventions leave it out)."""
        return self.vocab * (self.embed_proj or self.hidden)

    def active_parameters(self) -> int:
        """The parameters one token goes through: all of a dense model; for a mixture of experts, only the
        ``experts_per_token`` experts its router picks in each layer."""
        if not self.moe:
            return self.parameters()
        idle = (self.experts - self.experts_per_token) * self.dense_mlp(self.expert_intermediate)
        return self.parameters() - self.moe_layers * idle

    def parameters(self) -> int:
        """Every weight of the model, from its shape."""
        h = self.hidden
        width = self.embed_proj or h
        total = self.vocab * width + (2 * h * self.embed_proj if self.embed_proj else 0)
        total += (self.positions + self.encoder_positions) * h + (self.norm if self.embed_norm else 0)
        if self.mel_bins:
            total += self.mel_bins * h * 3 + h + h * h * 3 + h
        total += self._stacks(self.attention(), self.mlp_block(), self.norm, self.dense_mlp(self.intermediate))
        total += self.stacks * self.relative_buckets * self.heads
        return total + (0 if self.tied else self.vocab * width)
