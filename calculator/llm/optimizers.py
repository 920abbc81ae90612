"""What training keeps per parameter besides the activations: weights, gradients, the fp32 master copy and each
optimizer state, described so that states that are not whole bytes per parameter can be counted.

A state is a tensor of ``bytes_per_value`` per value, kept for every parameter tensor: whole (AdamW's moments),
quantised in blocks with a scale per block (bitsandbytes' 8-bit states and their absmax constants), or factored
into one value per row and per column of each matrix (Adafactor's second moment; vectors keep it whole).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class State:
    """One tensor an optimizer keeps for each parameter tensor."""

    name: str
    bytes_per_value: int
    factored: bool = False  # rows + columns values per matrix, instead of rows × columns
    block: int = 0  # quantised in blocks of this many values…
    scale_bytes: int = 0  # …each with a scale of these bytes

    def bytes_for(self, rows: int, columns: int = 1) -> Decimal:
        """Bytes this state keeps for one parameter tensor of rows × columns (a vector: columns = 1)."""
        values = rows + columns if self.factored and columns > 1 and rows > 1 else rows * columns
        scales = -(-values // self.block) * self.scale_bytes if self.block else 0
        return Decimal(values * self.bytes_per_value + scales)

    @property
    def per_parameter(self) -> Decimal | None:
        """Bytes per parameter when they do not depend on the shapes (None for a factored state)."""
        if self.factored:
            return None
        return Decimal(self.bytes_per_value) + (Decimal(self.scale_bytes) / self.block if self.block else 0)


@dataclass(frozen=True)
class Recipe:
    """One optimizer and precision: bytes of the weights, of the fp32 master copy and of each state, and sources."""

    label: str
    weights: int
    master: int  # the fp32 copy that mixed precision updates (0 when the weights are that copy)
    states: tuple[State, ...]
    source: str
    full_fp32: bool = False  # then gradients are fp32 too, whatever the choice

    def gradients(self, precision: str) -> int:
        return 4 if self.full_fp32 or precision == "32" else 2

    @property
    def shape_dependent(self) -> bool:
        return any(state.per_parameter is None for state in self.states)

    @property
    def optimizer(self) -> Decimal | None:
        """Master copy and states, bytes per parameter; None when a state depends on the matrices' shapes."""
        if self.shape_dependent:
            return None
        return Decimal(self.master) + sum((state.per_parameter or Decimal(0) for state in self.states), Decimal(0))

    def optimizer_bytes(self, parameters: int, matrices: Iterable[tuple[int, int, int]] = (), vectors: int = 0) -> Decimal:
        """Master copy and states for ``parameters`` parameters; a shape-dependent state is sized from the model's
        ``matrices`` (rows, columns, how many) and its ``vectors`` (norms and biases: their values)."""
        if not self.shape_dependent:
            return parameters * (self.optimizer or Decimal(0))
        shapes = list(matrices)
        total = Decimal(self.master * parameters)
        for state in self.states:
            total += sum((state.bytes_for(rows, columns) * count for rows, columns, count in shapes), Decimal(0))
            total += state.bytes_for(vectors) if vectors else 0
        return total


FIRST_MOMENT, SECOND_MOMENT = State("primo momento", 4), State("secondo momento", 4)
ADAMW_STATES = (FIRST_MOMENT, SECOND_MOMENT)
# bitsandbytes' blockwise 8-bit states: one byte per value and an fp32 absmax per block of 256 values
# (bitsandbytes/optim/optimizer.py, Optimizer8bit.init_state).
BNB_BLOCK = 256
EIGHT_BIT_MOMENTS = (State("primo momento a 8 bit", 1, block=BNB_BLOCK, scale_bytes=4),
                     State("secondo momento a 8 bit", 1, block=BNB_BLOCK, scale_bytes=4))

RECIPES: dict[str, Recipe] = {
    "adamw_mixed": Recipe(
        "AdamW in precisione mista", 2, 4, ADAMW_STATES,
        "ZeRO, arXiv:1910.02054 §3.1: pesi fp16/bf16, copia master fp32, primo e secondo momento",
    ),
    "adamw_8bit": Recipe(
        "AdamW a 8 bit in precisione mista", 2, 4,
        (State("primo momento a 8 bit", 1), State("secondo momento a 8 bit", 1)),
        "EleutherAI, «Transformer Math 101»: copia fp32 (4 B) e due momenti a 8 bit (2 B)",
    ),
    "sgd_momentum": Recipe(
        "SGD con momento in precisione mista", 2, 4, (State("momento", 4),),
        "EleutherAI, «Transformer Math 101»: copia fp32 (4 B) e momento fp32 (4 B)",
    ),
    "adamw_fp32": Recipe(
        "AdamW in fp32 pieno", 4, 0, ADAMW_STATES,
        "EleutherAI, «Transformer Math 101»: pesi e gradienti fp32, due momenti fp32", full_fp32=True,
    ),
    "adafactor": Recipe(
        "Adafactor in precisione mista", 2, 4, (State("secondo momento fattorizzato", 4, factored=True),),
        "Shazeer e Stern, arXiv:1804.04235 §3: secondo momento di ogni matrice come una riga e una colonna, senza"
        " primo momento (beta1=None, il default di Transformers); copia master fp32",
    ),
}

# What LoRA's adapters keep while training: an fp32 gradient and AdamW's two moments, no master copy (the adapters
# are fp32 already).
LORA_GRADIENT_BYTES = 4


def lora_state_bytes() -> Decimal:
    """Bytes per trainable adapter parameter: its fp32 gradient and AdamW's moments."""
    return LORA_GRADIENT_BYTES + sum((state.per_parameter or Decimal(0) for state in ADAMW_STATES), Decimal(0))
