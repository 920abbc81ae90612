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
    (hidden × experts) and optionally shared experts of total size ``shared_intermediate``.
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
    decoder_layers: int = 0
    relative_buckets: int = 0  # T5's relative attention bias, in the first layer of each stack
    encoder_positions: int = 0  # Whisper's encoder position table (a parameter, though fixed)
    mel_bins: int = 0  # a speech encoder's two convolutions over log-mel features (Whisper)
    stated_parameters: int = 0  # as the publisher states it (model card, safetensors metadata or PEFT's printout)
    stated_source: str = ""  # where the stated count comes from, when not the config's page
    offered: tuple[str, ...] = ()  # the pages that offer it as a preset (``catalogue.VRAM``…)

    @property
    def dim(self) -> int:
        """The head dimension actually used."""
        return self.head_dim or self.hidden // self.heads

    @property
    def encoder_decoder(self) -> bool:
        return self.decoder_layers > 0

    @property
    def moe(self) -> bool:
        return self.experts > 0

    def attention_biases(self) -> int:
        q, kv = self.heads * self.dim, self.kv_heads * self.dim
        if self.bias:
            return q + (kv if self.k_bias else 0) + kv + self.hidden
        return q + 2 * kv if self.qkv_bias else 0

    def attention(self) -> int:
        """Query, key, value and output projections (with their biases and q/k norms)."""
        h, d = self.hidden, self.dim
        q, kv = self.heads * d, self.kv_heads * d
        norms = q + kv if self.qk_norm_full else 2 * d if self.qk_norm else 0
        return h * q + 2 * h * kv + q * h + self.attention_biases() + norms

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
        """The layer's MLP: dense, or the experts with their router and shared experts."""
        if not self.moe:
            return self._block(self.dense_mlp)
        router = self.hidden * self.experts + (self.hidden if self.shared_gate else 0)
        return self._block(self.dense_mlp) + router

    @property
    def norm(self) -> int:
        return 2 * self.hidden if self.norm_bias else self.hidden

    def _stacks(self, attention: int, block: int, norm: int) -> int:
        """Every layer of the encoder (or the only stack) and of the decoder (with cross-attention), and each
        stack's final norm, from one layer's attention, MLP and norm."""
        total = self.layers * (attention + block + self.norms_per_layer * norm)
        total += self.decoder_layers * (2 * attention + block + (self.norms_per_layer + 1) * norm)
        return total + self.stacks * (norm if self.final_norm else 0)

    @property
    def stacks(self) -> int:
        return 2 if self.encoder_decoder else 1

    def biases(self) -> int:
        """Every bias of the model, norms' included (what PEFT's bias="all" trains)."""
        h = self.hidden
        norm = h if self.norm_bias else 0
        total = self._stacks(self.attention_biases(), self._block(self.mlp_biases), norm)
        return total + (norm if self.embed_norm else 0) + (2 * h if self.mel_bins else 0)

    def largest_layer(self) -> int:
        """Parameters of the largest single module (what ZeRO-3 gathers whole on each GPU): usually the
        embedding, else the widest projection or one expert's matrix."""
        h, width = self.hidden, self.embed_proj or self.hidden
        inner = self.expert_intermediate if self.moe else self.intermediate
        q, kv = self.heads * self.dim, self.kv_heads * self.dim
        candidates = [self.vocab * width, h * inner * (2 if self.fused_gate_up else 1),
                      h * (q + 2 * kv) if self.fused_qkv else h * q]
        return max(candidates)

    def matrices(self) -> list[tuple[int, int, int]]:
        """Every weight matrix of the layers and the embeddings as (rows, columns, how many): what a factored
        optimizer state is sized from. Fused projections are one matrix; everything else is a vector or small."""
        h, d = self.hidden, self.dim
        q, kv = self.heads * d, self.kv_heads * d
        attention = [(h, q + 2 * kv, 1)] if self.fused_qkv else [(h, q, 1), (h, kv, 2)]
        attention.append((q, h, 1))

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
        out = [(rows, cols, n * self.layers) for rows, cols, n in attention + block]
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
        return self.parameters() - (self.layers + self.decoder_layers) * idle

    def parameters(self) -> int:
        """Every weight of the model, from its shape."""
        h = self.hidden
        width = self.embed_proj or h
        total = self.vocab * width + (2 * h * self.embed_proj if self.embed_proj else 0)
        total += (self.positions + self.encoder_positions) * h + (self.norm if self.embed_norm else 0)
        if self.mel_bins:
            total += self.mel_bins * h * 3 + h + h * h * 3 + h
        total += self._stacks(self.attention(), self.mlp_block(), self.norm)
        total += self.stacks * self.relative_buckets * self.heads
        return total + (0 if self.tied else self.vocab * width)
