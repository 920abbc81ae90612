"""Training compute, time and cost: FLOPs per token, model and hardware FLOPs, utilisation, and what a run takes.

Per token and per matrix parameter a training step does 2 FLOPs forward and 4 backward (gradients of the
activations and of the weights): 6·N (Kaplan et al. 2020, arXiv:2001.08361 §2.1). Attention's products of queries
with keys and of scores with values add, per token, 12·L·H·Q·T (forward 4, backward 8; L layers, H heads of size Q,
T tokens of context: Chowdhery et al. 2022, PaLM, arXiv:2204.02311 appendix B), values as wide as keys; where
they are narrower (latent attention: DeepSeek-V3's keys 192 wide, its values 128), 6·L·H·(Q + V)·T. A frozen base
(LoRA, QLoRA) computes no weight gradients for its N parameters: 4·N, plus 6 per adapter parameter. Full
recomputation repeats the forward pass: hardware FLOPs grow by 2·N (+ a third of the attention's), model FLOPs do
not (MFU counts model FLOPs, HFU hardware FLOPs). N counts the parameters that multiply: the input embedding
table is a lookup, not a product.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

SECONDS_PER_HOUR = 3600


@dataclass(frozen=True)
class Workload:
    """What one token of training costs: the parameters it multiplies and its attention."""

    parameters: int  # N that multiply (the active ones, for a mixture of experts)
    layers: int = 0
    attention_width: int = 0  # H·Q: heads × head dimension (of queries and keys)
    context: int = 0  # T: tokens of context the attention of a token covers
    value_width: int = 0  # H·V: heads × the values' head dimension (0: as wide as the keys)
    attention: bool = True  # count PaLM's attention term
    window: int = 0  # a sliding window: its layers cover min(T, window) tokens (0: none)
    window_layers: int = 0  # how many of the layers attend through the window
    frozen_base: bool = False  # LoRA/QLoRA: no weight gradients for the N parameters
    adapters: int = 0  # trainable adapter parameters, when the base is frozen
    recompute: bool = False  # full activation checkpointing: one more forward pass

    @property
    def attention_flops(self) -> int:
        """Forward + backward of QKᵀ (width H·Q) and of the scores times V (width H·V), per token; a layer with a
        sliding window covers at most its window (as the kernels that skip the masked blocks compute it)."""
        if not self.attention:
            return 0
        windowed = min(self.window_layers, self.layers) if self.window else 0
        covered = (self.layers - windowed) * self.context + windowed * min(self.context, self.window)
        return 6 * (self.attention_width + (self.value_width or self.attention_width)) * covered

    def model_flops_per_token(self) -> int:
        if self.frozen_base:
            return 4 * self.parameters + 6 * self.adapters + self.attention_flops
        return 6 * self.parameters + self.attention_flops

    def hardware_flops_per_token(self) -> int:
        """Model FLOPs plus what recomputation repeats (one forward of everything)."""
        extra = 2 * (self.parameters + self.adapters) + self.attention_flops // 3 if self.recompute else 0
        return self.model_flops_per_token() + extra


def tokens_per_second(mfu: Decimal, peak_flops: Decimal, flops_per_token: int) -> Decimal:
    """Tokens per second per GPU at this model FLOPs utilisation (a fraction) of the GPU's peak (FLOP/s)."""
    return mfu * peak_flops / flops_per_token


def utilisation(tokens_per_s: Decimal, peak_flops: Decimal, flops_per_token: int) -> Decimal:
    """The model FLOPs utilisation (a fraction) of a measured throughput per GPU: the inverse of the above."""
    return tokens_per_s * flops_per_token / peak_flops


def training_seconds(total_flops: Decimal, gpus: int, peak_flops: Decimal, mfu: Decimal) -> Decimal:
    """Wall-clock seconds at a steady utilisation (no restarts, evaluation or failures)."""
    return total_flops / (gpus * peak_flops * mfu)


def gpus_for(total_flops: Decimal, seconds: Decimal, peak_flops: Decimal, mfu: Decimal) -> int:
    """The fewest GPUs that finish within ``seconds`` at this utilisation."""
    return int((total_flops / (seconds * peak_flops * mfu)).to_integral_value(rounding=ROUND_CEILING))
