"""The inverse questions of the «picco di un passo» convention (``calculator/pages/vram_inverse.py``): each answer
fits, and is tight: one GPU fewer (in any layout searched), the next smaller card, one token (or one 2·CP block)
longer, the next larger model does not fit."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from calculator.form.evaluate import evaluate
from calculator.form.model import Value
from calculator.llm import parallelism as par
from calculator.llm.catalogue import model
from calculator.llm.gpus import GPUS
from calculator.pages import vram_inverse as inv
from calculator.pages import vram_step
from calculator.pages.presets import field_texts
from calculator.pages.vram import CALCULATOR


def _values(model_id: str, **fields: str) -> dict[str, Value]:
    texts = {f.id: f.default for f in CALCULATOR.fields}
    texts.update({k: v for k, v in field_texts(model(model_id)).items() if k in texts})
    evaluation = evaluate(CALCULATOR, {**texts, "convention": vram_step.STEP, **fields})
    assert evaluation.status == "ok", evaluation.errors
    return dict(evaluation.values)


SETUP = st.fixed_dictionaries({
    "model": st.sampled_from(["llama-3.2-1b", "qwen2.5-0.5b", "llama-3.2-3b"]),
    "gpu_memory_gb": st.sampled_from(["8", "12", "16", "25,769804"]),
    "sequence_length": st.sampled_from(["2048", "4096", "8192"]),
    "checkpointing": st.sampled_from(["nessuno", "completo"]),
    "zero_stage": st.sampled_from(["0", "1", "3"]),
})


def _setup(setup: dict[str, str]) -> dict[str, Value]:
    return _values(setup["model"], **{k: v for k, v in setup.items() if k != "model"})


@settings(max_examples=8, deadline=None)
@given(SETUP)
def test_fewest_gpus_fits_and_no_layout_with_fewer_does(setup: dict[str, str]) -> None:
    values = _setup(setup)
    _, best = inv.fewest_gpus(values)
    if best is None:
        return
    layout: dict[str, Value] = {"tensor_parallel": Decimal(best.tensor), "pipeline_parallel": Decimal(best.pipeline),
              "gpus": Decimal(best.gpus), "zero_stage": str(best.stage)}
    assert inv.fits({**values, **layout})
    layers = int(str(values["layers"]))
    for tensor in inv.TENSOR_CHOICES:
        for pipeline in par.divisors(layers, inv.MAX_STAGES):
            for gpus in range(tensor * pipeline, best.gpus, tensor * pipeline):
                smaller = {**values, "tensor_parallel": Decimal(tensor), "pipeline_parallel": Decimal(pipeline),
                           "gpus": Decimal(gpus), "zero_stage": "3"}
                assert not (inv.valid(smaller) and inv.fits(smaller)), (tensor, pipeline, gpus)


@settings(max_examples=8, deadline=None)
@given(SETUP)
def test_smallest_card_fits_and_the_next_smaller_does_not(setup: dict[str, str]) -> None:
    values = _setup(setup)
    answer = inv.smallest_card(values)
    cards = sorted(GPUS, key=lambda gpu: gpu.stated_gib)
    fitting = [gpu for gpu in cards if answer.startswith(f"Su una GPU sola entra a partire dalla {gpu.label} ")]
    single = {**values, "gpus": Decimal(1), "tensor_parallel": Decimal(1)}
    if not fitting:
        assert answer.startswith("Nessuna") and not any(
            inv.fits({**single, "gpu_memory_gb": gpu.memory_gb}) for gpu in cards)
        return
    card = fitting[0]
    assert inv.fits({**single, "gpu_memory_gb": card.memory_gb})
    for gpu in cards[:cards.index(card)]:
        assert not inv.fits({**single, "gpu_memory_gb": gpu.memory_gb}), gpu.label


@settings(max_examples=10, deadline=None)
@given(SETUP, st.sampled_from([1, 2]))
def test_longest_sequence_fits_and_one_block_more_does_not(setup: dict[str, str], context: int) -> None:
    values = {**_setup(setup), "context_parallel": Decimal(context), "gpus": Decimal(context)}
    longest = inv.longest_sequence(values)
    unit = 2 * context if context > 1 else 1
    if longest is None:
        assert not inv.fits({**values, "sequence_length": Decimal(unit)})
        return
    assert longest % unit == 0
    assert inv.fits({**values, "sequence_length": Decimal(longest)})
    assert not inv.fits({**values, "sequence_length": Decimal(longest + unit)})


def test_largest_model_fits_and_no_larger_model_does() -> None:
    values = _values("llama-3.1-8b", gpus="8", zero_stage="3", checkpointing="completo", sequence_length="4096")
    answer = inv.largest_model(values, inv.catalogue(CALCULATOR.fields))
    models = inv.catalogue(CALCULATOR.fields)
    label = next(name for name, _ in models if answer.startswith(f"{name} ("))
    size = next(Decimal(str(fields["parameters_billion"])) for name, fields in models if name == label)
    assert inv.fits({**values, **dict(models)[label]})
    for name, fields in models:
        candidate = {**values, **fields}
        if Decimal(str(fields["parameters_billion"])) > size and inv.valid(candidate):
            assert not inv.fits(candidate), name


def test_the_seventy_billion_question() -> None:
    """Llama 3.1 70B, full fine-tuning, H100 80GB, 8192 tokens: the answer names the GPUs and the layout."""
    values = _values("llama-3.1-70b", sequence_length="8192", zero_stage="3", inverse="on")
    text, best = inv.fewest_gpus(values)
    assert best is not None and text.startswith(f"Servono almeno {best.gpus} GPU da 85,9 GB: TP {best.tensor} ×")
    assert f"Con {best.gpus - 1} o meno nessuna disposizione provata entra" in text


def test_answers_only_when_asked() -> None:
    texts = {f.id: f.default for f in CALCULATOR.fields}
    quiet = evaluate(CALCULATOR, {**texts, "convention": vram_step.STEP})
    asked = evaluate(CALCULATOR, {**texts, "convention": vram_step.STEP, "inverse": "on"})
    assert quiet.outputs["min_gpus"] is None and str(asked.outputs["min_gpus"]).startswith("Servono almeno")
    assert str(asked.outputs["min_card"]).startswith("Su una GPU sola entra a partire dalla")
    assert asked.outputs["max_sequence"] is None  # Llama 2 7B's states alone exceed one H100 80GB
