"""The small models of tools/measure_transformers.py, and the activation page's answer for each (no PyTorch).

Shared by that script and tests/llm/test_transformers_activations.py, which compares the page with the figures the
script recorded.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from calculator import CALCULATORS
from calculator.form.evaluate import evaluate
from calculator.llm.activation_memory import EAGER
from calculator.llm.catalogue import Architecture
from calculator.pages.presets import field_texts

FOUR_H = ("BLOOM", "Falcon")  # their configs fix the MLP at 4 × hidden
BATCH, DECODER, ENCODER = 2, 128, 192  # samples, tokens (of the decoder) and an encoder–decoder's input positions


def tiny(entry: Architecture) -> Architecture:
    """The entry shrunk: 2 layers (and 2 decoder layers), hidden 256, 4 heads with its key/value grouping, an
    explicit head size where the config sets one, experts and vocabulary small, latent attention's ranks and head
    parts small, at most one dense layer before the experts and a sliding window (where the model has one) of half
    the measured sequence; every other feature kept."""
    kv = 4 if entry.kv_heads == entry.heads else 1 if entry.kv_heads == 1 else 2
    latent = dict(q_lora_rank=96 if entry.q_lora_rank else 0, kv_lora_rank=128, rope_dim=32, nope_dim=64,
                  v_head_dim=64) if entry.mla else {}
    dense = 512 if entry.dense_layers else 128  # a mixture's dense first layers (DeepSeek) keep their own size
    return replace(entry, layers=2, hidden=256, heads=4, kv_heads=kv, head_dim=64 if entry.head_dim else 0,
                   intermediate=dense if entry.experts else 1024 if entry.family in FOUR_H else 512, vocab=1024,
                   dense_layers=min(entry.dense_layers, 1), **latent,  # type: ignore[arg-type]
                   sliding_window=64 if entry.sliding_window else 0,  # shorter than the measured sequence
                   experts=min(entry.experts, 8),
                   experts_per_token=min(entry.experts_per_token, 2),
                   expert_intermediate=128 if entry.experts else 0,
                   shared_intermediate=256 if entry.shared_intermediate else 0,
                   decoder_layers=2 if entry.decoder_layers else 0, positions=512 if entry.positions else 0,
                   encoder_positions=ENCODER if entry.encoder_positions else 0,
                   embed_proj=128 if entry.embed_proj else 0)


def page_bytes(entry: Architecture, sequence: int = DECODER, attention: str = EAGER) -> int:
    """The activation page's bytes per micro-batch for the entry, no dropout, ``sequence`` tokens, ``attention``
    (the page's choice: eager by default)."""
    calc = CALCULATORS["memoria-attivazioni"]
    values = {**calc.defaults, **field_texts(entry), "sequence_length": str(sequence), "micro_batch": str(BATCH),
              "attention": attention, "dropout": ""}
    if entry.decoder_layers:
        values["encoder_sequence"] = str(ENCODER)
    evaluation = evaluate(calc, values)
    if evaluation.errors:
        raise ValueError(f"{entry.id}: {evaluation.errors}")
    per_micro_batch = evaluation.outputs["per_micro_batch_gb"]
    if not isinstance(per_micro_batch, Decimal):
        raise ValueError(f"{entry.id}: no activation memory ({per_micro_batch!r})")
    return int(per_micro_batch * 10**9)
