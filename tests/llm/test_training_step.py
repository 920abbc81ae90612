"""The peak of a training step (``calculator/llm/training_step.py``): its terms by hand, and its properties."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculator.form.evaluate import evaluate
from calculator.llm import training_step as ts
from calculator.llm.catalogue import model
from calculator.llm.units import BYTES_PER_GIB
from calculator.pages import vram_step
from calculator.pages.presets import field_texts
from calculator.pages.vram import CALCULATOR


@pytest.mark.parametrize(("kind", "double", "expected"), [
    # QLoRA (arXiv:2305.14314 §3): 4 bit + an fp32 absmax per 64 weights = 4,5 bit; double quantisation:
    # 4 + 8/64 + 32/(64·256) = 4,127 bit.
    (ts.NF4, False, Decimal("0.5625")),
    (ts.NF4, True, Decimal("0.515869140625")),
    (ts.FP4, True, Decimal("0.515869140625")),
])
def test_quantised_bytes_per_weight(kind: str, double: bool, expected: Decimal) -> None:
    assert ts.quantisation(kind, double).bytes_per_weight() == expected


def test_loss_buffers_by_hand() -> None:
    """1000 tokens × 100 logits: bf16 logits 200 kB; Transformers adds the fp32 copy and log-softmax (8 B each
    logit) while the loss runs, backward holds 12 B per logit; chunked (8 chunks): each chunk's fp32 log-softmax
    stays (4 B) and one chunk is upcast at a time; compiled, the 16-bit chunks stay instead; fused, only a chunk."""
    def buffers(loss: str) -> tuple[Decimal, Decimal]:
        return ts.loss_buffers(ts.Activations(kept=Decimal(0), logits=Decimal(200_000), tokens_vocab=100_000, loss=loss))

    assert buffers(ts.STANDARD_LOSS) == (Decimal(1_000_000), Decimal(1_200_000))
    assert buffers(ts.CHUNKED_LOSS) == (Decimal(450_000), Decimal(500_000))
    assert buffers(ts.COMPILED_CHUNKED_LOSS) == (Decimal(300_000), Decimal(350_000))
    assert buffers(ts.FUSED_LOSS) == (Decimal(100_000), Decimal(150_000))


MODEL = ts.Model(parameters=1_000_000, matrices=800_000, largest_tensor=100_000, head=100_000, layers=4)
ACTS = ts.Activations(kept=Decimal(5_000_000), rebuilt=Decimal(0), logits=Decimal(200_000), tokens_vocab=100_000)


def _phases(training: ts.Training) -> dict[str, dict[str, Decimal]]:
    return {phase.name: phase.parts for phase in ts.step(MODEL, training, ACTS).phases}


def test_mixed_precision_adamw_by_hand() -> None:
    """The ZeRO paper's 16 B: 2 (weights) + 2 (gradients) + 12 (master, two moments), and the foreach step's
    copy of one fp32 state."""
    phases = _phases(ts.Training(trainable=1_000_000))
    step = phases["optimizer"]
    assert (step["weights"], step["gradients"], step["optimizer"]) == (2_000_000, 2_000_000, 12_000_000)
    assert step["temporaries"] == 4_000_000
    assert phases["forward"]["gradients"] == 0  # zero_grad(set_to_none=True) between steps
    assert phases["forward"]["loss"] == 1_000_000


def test_pure_bf16_and_8bit_states() -> None:
    bf16 = _phases(ts.Training(precision=ts.PURE_BF16, trainable=1_000_000))["optimizer"]
    assert bf16["optimizer"] == 4_000_000  # two bf16 moments, no master copy
    eight = _phases(ts.Training(precision=ts.PURE_BF16, optimizer="adamw_8bit", trainable=1_000_000))["optimizer"]
    assert eight["optimizer"] == 2 * 1_000_000 * (1 + Decimal(4) / 256)  # uint8 + an fp32 absmax per 256


def test_paged_states_are_outside_the_allocated_peak() -> None:
    result = ts.step(MODEL, ts.Training(precision=ts.PURE_BF16, optimizer="paged_adamw_8bit", trainable=1_000_000),
                     ACTS)
    assert all(phase.parts["optimizer"] == 0 for phase in result.phases)
    assert result.paged == 2 * 1_000_000 * (1 + Decimal(4) / 256)


def test_optimizer_in_backward_holds_one_gradient() -> None:
    phases = _phases(ts.Training(precision=ts.PURE_BF16, trainable=1_000_000, optimizer_in_backward=True))
    assert "optimizer" not in phases
    assert phases["backward"]["gradients"] <= 100_000 * 2  # at most the largest tensor's, in bf16


def test_zero_shards_by_stage() -> None:
    full = _phases(ts.Training(trainable=1_000_000, zero_stage=3, data_parallel=4))["optimizer"]
    assert full["weights"] >= Decimal(2_000_000) / 4
    assert full["gradients"] == Decimal(2_000_000) / 4 and full["optimizer"] == Decimal(12_000_000) / 4


def test_nvidia_smi_band_is_ordered_and_above_the_allocated_peak() -> None:
    low, expected, high = ts.shown(Decimal(10 * BYTES_PER_GIB), Decimal(0), 1)
    assert Decimal(10 * BYTES_PER_GIB) < low < expected < high


# Properties over the page itself, from catalogue models.
DENSE = ("llama-3.2-1b", "llama-3.1-8b", "qwen2.5-0.5b", "mistral-7b", "gemma-2-2b")


def _allocated(model_id: str, **fields: str) -> tuple[Decimal, dict[str, Decimal]]:
    texts = {f.id: f.default for f in CALCULATOR.fields}
    texts.update({k: v for k, v in field_texts(model(model_id)).items() if k in texts})
    texts.update({"convention": vram_step.STEP, **fields})
    evaluation = evaluate(CALCULATOR, texts)
    assert evaluation.status == "ok", evaluation.errors
    given_ = vram_step.read(evaluation.values)
    result = vram_step.evaluate_step(given_)
    return result.allocated, {phase.name: phase.total for phase in result.phases}


SETUP = st.fixed_dictionaries({
    "model": st.sampled_from(DENSE),
    "method": st.sampled_from([ts.FULL, ts.LORA, ts.DORA, ts.QLORA]),
    "precision_mode": st.sampled_from([ts.AUTOCAST, ts.PURE_BF16]),
    "checkpointing": st.sampled_from(["nessuno", "completo", "selettivo_op", "offload"]),
    "loss": st.sampled_from([ts.STANDARD_LOSS, ts.CHUNKED_LOSS, ts.FUSED_LOSS]),
    "step_optimizer": st.sampled_from(["adamw", "adamw_fused", "adamw_8bit", "sgd_momentum", "lion"]),
    "sequence_length": st.integers(1, 16_384), "micro_batch": st.integers(1, 16), "rank": st.integers(1, 256),
})


def _fields(setup: dict[str, object]) -> dict[str, str]:
    return {k: str(v) for k, v in setup.items() if k != "model"}


@settings(max_examples=40, deadline=None)
@given(SETUP, st.sampled_from(["sequence_length", "micro_batch", "rank"]))
def test_peak_grows_with_sequence_batch_and_rank(setup: dict[str, object], knob: str) -> None:
    fields = _fields(setup)
    before, _ = _allocated(str(setup["model"]), **fields)
    fields[knob] = str(int(fields[knob]) * 2)
    after, _ = _allocated(str(setup["model"]), **fields)
    assert after >= before


@settings(max_examples=40, deadline=None)
@given(SETUP)
def test_lora_never_costs_more_than_full_and_4bit_never_more_than_16bit(setup: dict[str, object]) -> None:
    """With adapters in the base's dtype. PEFT's fp32 adapters keep an fp32 copy of each adapted module's input,
    and with every linear layer adapted and no checkpointing that can exceed what full fine-tuning keeps
    (measured: llama1b-lora-r16-all in tests/data/step_record.json)."""
    fields = {**_fields(setup), "adapter_dtype": "base"}
    name = str(setup["model"])
    full, _ = _allocated(name, **{**fields, "method": ts.FULL})
    lora, _ = _allocated(name, **{**fields, "method": ts.LORA})
    qlora, _ = _allocated(name, **{**fields, "method": ts.QLORA})
    assert lora <= full and qlora <= lora


@settings(max_examples=30, deadline=None)
@given(SETUP)
def test_offload_never_needs_more_gpu_memory_and_each_phase_is_at_most_the_peak(setup: dict[str, object]) -> None:
    fields = _fields(setup)
    name = str(setup["model"])
    peak, phases = _allocated(name, **fields)
    assert all(total <= peak for total in phases.values()) and max(phases.values()) == peak
    kept, _ = _allocated(name, **{**fields, "checkpointing": "completo"})
    offloaded, _ = _allocated(name, **{**fields, "checkpointing": "offload"})
    assert offloaded <= kept
    on_gpu, _ = _allocated(name, **{**fields, "gpus": "2", "zero_stage": "3"})
    on_cpu, _ = _allocated(name, **{**fields, "gpus": "2", "zero_stage": "3", "offload_optimizer": "on",
                                    "offload_param": "on", "step_optimizer": "adamw"})
    assert on_cpu <= on_gpu


@settings(max_examples=40, deadline=None)
@given(SETUP, st.decimals(min_value=Decimal(4), max_value=Decimal(200), places=2))
def test_entra_only_when_the_whole_band_fits(setup: dict[str, object], card: Decimal) -> None:
    fields = {**_fields(setup), "gpu_memory_gb": str(card).replace(".", ",")}
    texts = {f.id: f.default for f in CALCULATOR.fields}
    texts.update({k: v for k, v in field_texts(model(str(setup["model"]))).items() if k in texts})
    evaluation = evaluate(CALCULATOR, {**texts, "convention": vram_step.STEP, **fields})
    given_ = vram_step.read(evaluation.values)
    low, _, high = vram_step.shown_of(given_, vram_step.evaluate_step(given_))
    verdict = str(evaluation.outputs["fit"])
    card_bytes = card * 10**9
    assert verdict.startswith("Entra") == (high <= card_bytes)
    assert verdict.startswith("Non entra") == (low > card_bytes)


@pytest.mark.parametrize(("which", "expected"), [
    # Llama 3.1 8B: 32 layers of q (4096²), k and v (4096 × 1024 each), o (4096²); of gate, up, down (4096 × 14336).
    ("attenzione", 32 * (4096 * 4096 * 2 + 4096 * 1024 * 2)),
    ("mlp", 32 * 3 * 4096 * 14336),
])
def test_training_only_some_modules(which: str, expected: int) -> None:
    texts = {f.id: f.default for f in CALCULATOR.fields}
    texts.update({k: v for k, v in field_texts(model("llama-3.1-8b")).items() if k in texts})
    full = evaluate(CALCULATOR, {**texts, "convention": vram_step.STEP})
    some = evaluate(CALCULATOR, {**texts, "convention": vram_step.STEP, "method": ts.MODULES_ONLY,
                                 "trainable_modules": which})
    assert some.outputs["trainable_parameters"] == expected
    assert some.outputs["peak_allocated_gib"] < full.outputs["peak_allocated_gib"]  # type: ignore[operator]


def test_advice_names_what_would_make_it_fit() -> None:
    texts = {f.id: f.default for f in CALCULATOR.fields}
    advice = str(evaluate(CALCULATOR, {**texts, "convention": vram_step.STEP}).outputs["advice"])
    for option in ("LoRA", "AdamW a 8 bit", "2 GPU con ZeRO-3", "ottimizzatore nel backward"):
        assert option in advice
