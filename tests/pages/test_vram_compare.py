"""The comparison of the «picco di un passo» convention (``calculator/pages/vram_compare.py``): configurations B, C, D
computed as the form would compute them alone, drawn on one scale, and their problems said beside their fields."""

from __future__ import annotations

from decimal import Decimal

from calculator.form.evaluate import evaluate
from calculator.llm.catalogue import model
from calculator.pages import vram_compare
from calculator.pages.presets import field_texts
from calculator.pages.vram import CALCULATOR

TEXTS = {f.id: f.default for f in CALCULATOR.fields}
EXAMPLE = {**TEXTS, **CALCULATOR.examples["passo_70b_confronto"]}


def test_each_configuration_is_what_the_form_computes_alone() -> None:
    both = evaluate(CALCULATOR, EXAMPLE)
    assert both.status == "ok", both.errors
    cleared = {vram_compare.field_id(x, k): "" for x in vram_compare.LETTERS
               for k in vram_compare.CHOICES + vram_compare.DEGREES}
    alone = {
        "A": evaluate(CALCULATOR, {**EXAMPLE, **cleared}),
        "B": evaluate(CALCULATOR, {**EXAMPLE, **cleared, "method": "lora", "gpus": "8"}),
        "C": evaluate(CALCULATOR, {**EXAMPLE, **cleared, "tensor_parallel": "8", "pipeline_parallel": "4",
                                   "zero_stage": "1", "checkpointing": "selettivo"}),
        "D": evaluate(CALCULATOR, {**EXAMPLE, **cleared, "step_optimizer": "adamw_8bit"}),
    }
    peaks = {letter: peak.total for letter, peak, _, _ in vram_compare.peaks(both.values)}
    for letter, evaluation in alone.items():
        expected = evaluation.outputs["peak_allocated_gib"]
        assert isinstance(expected, Decimal) and abs(peaks[letter] / 2**30 - expected) < Decimal("1e-9"), letter
    summary = str(both.outputs["comparison"])
    assert summary.startswith("A: picco ") and "; B (LoRA, 8 GPU): picco " in summary
    assert "; C (Selettivo di Megatron, ZeRO-1, TP 8, PP 4): picco " in summary


def test_no_comparison_without_a_configuration() -> None:
    plain = evaluate(CALCULATOR, {**TEXTS, "convention": "passo"})
    assert plain.outputs["comparison"] is None
    assert CALCULATOR.chart is not None and ">Avanti:" in CALCULATOR.chart(plain.values, plain.outputs)


def test_one_bar_per_configuration_on_one_scale() -> None:
    evaluation = evaluate(CALCULATOR, EXAMPLE)
    assert CALCULATOR.chart is not None
    svg = CALCULATOR.chart(evaluation.values, {})
    for name in ("A:", "B:", "C:", "D:"):
        assert f">{name}" in svg
    assert "Memoria della GPU" in svg


def test_a_configuration_that_does_not_divide_is_said_beside_its_field() -> None:
    evaluation = evaluate(CALCULATOR, {**EXAMPLE, "cfr_b_tensor_parallel": "3"})
    assert evaluation.status == "invalid"
    assert evaluation.errors["cfr_b_tensor_parallel"].startswith("Configurazione B: Parallelismo tensoriale: 3 GPU")


def _peaks_of(texts: dict[str, str]) -> dict[str, Decimal]:
    evaluation = evaluate(CALCULATOR, texts)
    assert evaluation.status == "ok", evaluation.errors
    return {letter: peak.total for letter, peak, _, _ in vram_compare.peaks(evaluation.values)}


def _alone(texts: dict[str, str]) -> Decimal:
    evaluation = evaluate(CALCULATOR, texts)
    assert evaluation.status == "ok", evaluation.errors
    value = evaluation.outputs["peak_allocated_gib"]
    assert isinstance(value, Decimal)
    return value


def test_a_configuration_may_change_the_sequence_and_the_context_parallel_degree() -> None:
    base = {**TEXTS, **CALCULATOR.examples["passo_70b_tabella"], "tensor_parallel": "8", "sequence_parallel": "on",
            "checkpointing": "nessuno"}
    texts = {**base, "cfr_b_sequence_length": "16384", "cfr_c_context_parallel": "2",
             "cfr_d_sequence_length": "16384", "cfr_d_context_parallel": "2"}
    peaks = _peaks_of(texts)
    expected = {"B": _alone({**base, "sequence_length": "16384"}), "C": _alone({**base, "context_parallel": "2"}),
                "D": _alone({**base, "sequence_length": "16384", "context_parallel": "2"})}
    for letter, value in expected.items():
        assert abs(peaks[letter] / 2**30 - value) < Decimal("1e-9"), letter
    assert peaks["B"] > peaks["A"] > peaks["C"]  # twice the tokens costs more; CP 2 halves each GPU's share
    summary = str(evaluate(CALCULATOR, texts).outputs["comparison"])
    assert "B (16.384 token): picco " in summary and "C (CP 2): picco " in summary
    assert "D (CP 2, 16.384 token): picco " in summary


def test_a_configuration_may_change_the_expert_parallel_degree() -> None:
    texts = {**TEXTS, **{k: v for k, v in field_texts(model("mixtral-8x7b")).items() if k in TEXTS},
             "convention": "passo", "gpus": "8", "zero_stage": "0", "checkpointing": "completo",
             "cfr_b_expert_parallel": "8"}
    peaks = _peaks_of(texts)
    cleared = {**texts, "cfr_b_expert_parallel": ""}
    assert abs(peaks["B"] / 2**30 - _alone({**cleared, "expert_parallel": "8"})) < Decimal("1e-9")
    assert peaks["B"] < peaks["A"] / 3
    assert "B (EP 8): picco " in str(evaluate(CALCULATOR, texts).outputs["comparison"])


def test_a_degree_the_model_cannot_take_is_said_beside_the_configuration_field() -> None:
    dense = evaluate(CALCULATOR, {**EXAMPLE, "cfr_b_expert_parallel": "2"})
    assert dense.errors["cfr_b_expert_parallel"].startswith("Configurazione B: Parallelismo degli esperti:")
    assert "non ha esperti" in dense.errors["cfr_b_expert_parallel"]
    odd = evaluate(CALCULATOR, {**EXAMPLE, "cfr_c_context_parallel": "2", "cfr_c_sequence_length": "8191"})
    assert odd.errors["cfr_c_context_parallel"].startswith("Configurazione C: Parallelismo di contesto: la sequenza")
