"""Optimizer states: whole, quantised in blocks, or factored by the matrices' shapes; the recipes' bytes."""

from __future__ import annotations

from decimal import Decimal

import pytest

from calculator.llm.catalogue import model
from calculator.llm.optimizers import EIGHT_BIT_MOMENTS, RECIPES, SECOND_MOMENT, State, lora_state_bytes
from calculator.llm.zero import ModelStates

FACTORED = State("secondo momento fattorizzato", 4, factored=True)


@pytest.mark.parametrize(("state", "rows", "columns", "expected"), [
    # Shazeer and Stern, arXiv:1804.04235 §3: an n × m matrix keeps n + m accumulators instead of n·m.
    pytest.param(FACTORED, 4096, 11008, (4096 + 11008) * 4, id="adafactor-matrix"),
    pytest.param(FACTORED, 4096, 1, 4096 * 4, id="adafactor-vector-whole"),
    pytest.param(SECOND_MOMENT, 4096, 11008, 4096 * 11008 * 4, id="adamw-moment"),
    # bitsandbytes/optim/optimizer.py, Optimizer2State.init_state: block_wise states keep one uint8 per value and
    # an fp32 absmax per block of 256 values (the last block partial).
    pytest.param(EIGHT_BIT_MOMENTS[0], 1_000_000, 1, 1_000_000 + 3907 * 4, id="bnb-8bit-blocks"),
])
def test_state_bytes_for_one_tensor(state: State, rows: int, columns: int, expected: int) -> None:
    assert state.bytes_for(rows, columns) == expected


def test_non_integer_and_shape_dependent_bytes_per_parameter() -> None:
    assert EIGHT_BIT_MOMENTS[0].per_parameter == Decimal(1) + Decimal(4) / 256  # 1,015625 B
    assert FACTORED.per_parameter is None
    assert RECIPES["adafactor"].shape_dependent and RECIPES["adafactor"].optimizer is None


def test_adafactor_on_llama_2_7b_by_hand() -> None:
    """Per layer: q, k, v, o are 4096 × 4096 (8192 values each), gate, up and down 4096 × 11008 (15104 each);
    embeddings and head 32000 × 4096, untied; 65 norms of 4096 kept whole."""
    llama = model("llama-2-7b")
    matrices = llama.matrices()
    vectors = llama.parameters() - sum(r * c * n for r, c, n in matrices)
    assert vectors == 65 * 4096
    factored = (32 * (4 * 8192 + 3 * 15104) + 2 * (32000 + 4096) + vectors) * 4
    assert factored == 11_347_968
    params = llama.parameters()
    assert RECIPES["adafactor"].optimizer_bytes(params, matrices, vectors) == 4 * params + factored


def test_lora_training_state_reads_the_optimizer_table() -> None:
    assert lora_state_bytes() == 12  # fp32 gradient and AdamW's two fp32 moments


@pytest.mark.parametrize(("stage", "expected"), [(0, (2, 2, 12)), (1, (2, 2, 3)), (2, (2, Decimal("0.5"), 3)),
                                                 (3, (Decimal("0.5"), Decimal("0.5"), 3))])
def test_zero_stages_shard_in_order(stage: int, expected: tuple[Decimal, ...]) -> None:
    """ZeRO §5 on four GPUs: stage 1 the optimizer states, 2 also the gradients, 3 also the weights."""
    sharded = ModelStates(Decimal(2), Decimal(2), Decimal(12)).sharded(stage, 4)
    assert (sharded.weights, sharded.gradients, sharded.optimizer) == expected
