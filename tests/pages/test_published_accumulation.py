"""The accumulation page's steps per epoch against Trainer logs that others published.

Each case: the Trainer's settings and the "Total optimization steps" it logged. Without max_steps the Trainer
runs steps per epoch × epochs, so the page's steps per epoch times the epochs must give the logged total, under
the rule of the Transformers version that wrote the log.
"""

from __future__ import annotations

import pytest

from calculator.pages.gradient_accumulation import DROP_LAST, ROUND_DOWN, ROUND_UP

from ..support.golden import ACC
from ..support.outputs import output_number

PEFT = "huggingface/peft@5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40"

# (source, samples, micro-batch, accumulation, GPUs, GRPO generations, epochs, rule, logged total, other rules)
LOGS = [
    # ViT LoRA on Food-101: "Num examples = 4500, Num Epochs = 5, Instantaneous batch size per device = 128,
    # Gradient Accumulation steps = 4, Total optimization steps = 45". 36 micro-batches, the last one partial:
    # the Trainer keeps it (drop_last=False); dropping it would give 8 steps per epoch, 40 in all.
    (f"{PEFT}:examples/image_classification/image_classification_peft_lora.ipynb",
     4500, 128, 4, 1, "", 5, ROUND_UP, 45, {ROUND_DOWN: 45, DROP_LAST: 40}),
    # Flan-T5-large in int8: "Num examples = 2037, Num Epochs = 1, ... batch size per device = 8, Gradient
    # Accumulation steps = 1, Total optimization steps = 255" (2,037 / 8 = 254.6: the partial micro-batch counts).
    (f"{PEFT}:examples/int8_training/Finetune_flan_t5_large_bnb_peft.ipynb",
     2037, 8, 1, 1, "", 1, ROUND_UP, 255, {DROP_LAST: 254}),
    # Whisper large-v2 in int8: "Num examples = 3927, Num Epochs = 3, ... = 8, ... = 1, Total optimization
    # steps = 1473", 491 per epoch.
    (f"{PEFT}:examples/int8_training/peft_bnb_whisper_large_v2_training.ipynb",
     3927, 8, 1, 1, "", 3, ROUND_UP, 1473, {DROP_LAST: 1470}),
    # GRPO with TRL on 7 GPUs (March 2025, a Transformers before 4.52, which rounds down): "Num examples =
    # 5,498, Num Epochs = 1, Instantaneous batch size per device = 8, Total train batch size ... = 224, Gradient
    # Accumulation steps = 4, Total optimization steps = 196", num_generations = 8. TRL's sampler repeats each
    # prompt 8 times: 43,984 completions, 786 micro-batches per GPU, 786 // 4 = 196 (rounding up would be 197).
    ("https://github.com/huggingface/open-r1/issues/483", 5498, 8, 4, 7, "8", 1, ROUND_DOWN, 196, {ROUND_UP: 197}),
]


def steps(samples: int, b: int, a: int, g: int, generations: str, rule: str) -> int:
    count = output_number(ACC, "steps_per_epoch", dataset_size=str(samples), micro_batch=str(b),
                          accumulation_steps=str(a), data_parallel_gpus=str(g), generations=generations,
                          steps_rule=rule)
    assert count == int(count)
    return int(count)


@pytest.mark.parametrize(("source", "samples", "b", "a", "g", "generations", "epochs", "rule", "logged", "others"),
                         LOGS, ids=["vit-food101", "flan-t5-large", "whisper-large-v2", "open-r1-grpo"])
def test_the_trainer_logged_it(source: str, samples: int, b: int, a: int, g: int, generations: str, epochs: int,
                               rule: str, logged: int, others: dict[str, int]) -> None:
    assert steps(samples, b, a, g, generations, rule) * epochs == logged, source
    # The other rules, where they differ, would not have given the log: the case tells the rules apart.
    for other, total in others.items():
        assert steps(samples, b, a, g, generations, other) * epochs == total, (source, other)


def test_the_rules_name_the_transformers_versions() -> None:
    """Read in transformers/trainer.py of the PyPI wheels: 4.51.3 computes len_dataloader // accumulation, 4.52.0
    adds a step for a partial window (huggingface/transformers#37923)."""
    from calculator.pages.gradient_accumulation import STEP_RULES

    labels = {option.value: option.label for option in STEP_RULES}
    assert "Transformers 4.52 e successive" in labels[ROUND_UP]
    assert "Transformers fino alla 4.51" in labels[ROUND_DOWN]
