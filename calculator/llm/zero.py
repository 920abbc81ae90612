"""ZeRO's sharding of model states over data-parallel GPUs (Rajbhandari et al., arXiv:1910.02054 §5): stage 1
shards the optimizer states, stage 2 also the gradients, stage 3 also the weights. FSDP's full sharding is stage 3."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class ModelStates:
    """Weights, gradients and optimizer states (master copy included), in any one unit."""

    weights: Decimal
    gradients: Decimal
    optimizer: Decimal

    @property
    def total(self) -> Decimal:
        return self.weights + self.gradients + self.optimizer

    def sharded(self, stage: int, gpus: int) -> ModelStates:
        """What one GPU keeps at this ZeRO stage over ``gpus`` data-parallel GPUs."""
        return ModelStates(self.weights / gpus if stage >= 3 else self.weights,
                           self.gradients / gpus if stage >= 2 else self.gradients,
                           self.optimizer / gpus if stage >= 1 else self.optimizer)
