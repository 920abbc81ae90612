"""Steps per epoch under each framework's rule, and GRPO's generations per prompt."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculator import respond
from calculator.pages.gradient_accumulation import DROP_LAST, ROUND_DOWN, ROUND_UP, steps_per_epoch

from ..support.golden import ACC, request

# (samples N, micro-batch b, accumulation a, GPUs g) → steps by rule. L = micro-batches per GPU: ceil(N / (b·g)),
# or floor with drop_last. Round up: Transformers' num_update_steps_per_epoch after huggingface/transformers#37923
# (len_dataloader // a + int(len_dataloader % a > 0)) and Lightning; round down: before it (len_dataloader // a,
# at least 1); drop_last: incomplete micro-batches and windows dropped.
RULES = [
    ((1000, 4, 8, 2), {ROUND_UP: 16, ROUND_DOWN: 15, DROP_LAST: 15}),  # L = 125 = 15·8 + 5
    ((1020, 4, 8, 2), {ROUND_UP: 16, ROUND_DOWN: 16, DROP_LAST: 15}),  # L = 128 padded, 127 whole
    ((1024, 4, 8, 2), {ROUND_UP: 16, ROUND_DOWN: 16, DROP_LAST: 16}),  # everything divides
    ((9, 2, 2, 1), {ROUND_UP: 3, ROUND_DOWN: 2, DROP_LAST: 2}),  # transformers#33455: 9 samples, b = 2, a = 2
    ((3, 1, 4, 1), {ROUND_UP: 1, ROUND_DOWN: 1, DROP_LAST: 0}),  # fewer micro-batches than one window
]


@pytest.mark.parametrize(("inputs", "expected"), RULES)
def test_steps_per_epoch_by_rule(inputs: tuple[int, int, int, int], expected: dict[str, int]) -> None:
    assert {rule: steps_per_epoch(*inputs, rule) for rule in expected} == expected
    samples, b, a, g = inputs
    for rule, steps in expected.items():
        answer: dict[str, Any] = respond(request(ACC, dataset_size=str(samples), micro_batch=str(b),
                                                 accumulation_steps=str(a), data_parallel_gpus=str(g),
                                                 steps_rule=rule))
        assert answer["results"]["steps_per_epoch"] == str(steps)


@given(st.integers(1, 10**7), st.integers(1, 64), st.integers(1, 64), st.integers(1, 16))
def test_rules_are_ordered_and_agree_when_everything_divides(samples: int, b: int, a: int, g: int) -> None:
    up, down, drop = (steps_per_epoch(samples, b, a, g, rule) for rule in (ROUND_UP, ROUND_DOWN, DROP_LAST))
    assert drop <= down <= up <= down + 1
    assert up == -(-samples // (b * a * g))  # rounding up twice is rounding the samples per step up once
    if samples % (b * a * g) == 0:
        assert up == down == drop == samples // (b * a * g)


def test_grpo_counts_completions() -> None:
    """TRL's GRPO: E = b·a·g completions, G per prompt, so E/G prompts per optimizer step."""
    answer: dict[str, Any] = respond(request(ACC, micro_batch="8", accumulation_steps="4", data_parallel_gpus="2",
                                             generations="8"))
    assert (answer["results"]["effective_batch"], answer["results"]["prompts_per_step"]) == ("64", "8")
    assert respond(request(ACC))["results"]["prompts_per_step"] == "—"  # type: ignore[index]


@pytest.mark.parametrize(("values", "message"), [
    ({"generations": "1"}, "Generazioni per prompt: GRPO ne chiede almeno 2 per confrontare le risposte."),
    ({"generations": "6"}, "Generazioni per prompt: il batch effettivo b · a · g = 32 deve essere un multiplo delle 6"
                           " generazioni (in TRL generation_batch_size % num_generations == 0): cambia il micro-batch,"
                           " i passi di accumulo o le GPU."),
    ({"generations": "6", "mode": "obiettivo", "target_effective_batch": "512"},
     "Generazioni per prompt: il batch effettivo desiderato (512) deve essere un multiplo delle 6 generazioni, perché"
     " ogni prompt porta tutte le sue risposte nello stesso batch."),
])
def test_grpo_groups_must_be_whole(values: dict[str, str], message: str) -> None:
    answer = respond(request(ACC, **values))
    assert answer["status"] == "invalid"
    assert answer["errors"] == {"generations": message}
