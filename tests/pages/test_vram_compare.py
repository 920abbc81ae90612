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


def test_the_article_figures_restate_the_module() -> None:
    """Each bar is the phase with the most activations of the step the form computes for that layout, by component,
    and its marker the step's peak; the SVG says every number in its description."""
    from calculator.form.numbers import format_decimal
    from calculator.pages.vram import expert_figure, parallel_figure
    from calculator.pages.vram_step import evaluate_step, read

    for example, layouts, drawn in (("passo_70b_tabella", vram_compare.LAYOUTS, parallel_figure()),
                                    ("passo_moe_figura", vram_compare.MOE_LAYOUTS, expert_figure())):
        values = evaluate(CALCULATOR, {**TEXTS, **CALCULATOR.examples[example]}).values
        rows = vram_compare.layout_rows(values, layouts)
        assert [name for name, _, _ in rows] == [name for name, _ in layouts]
        for (name, parts, peak), (_, change) in zip(rows, layouts, strict=True):
            config = {**values, **{k: v if isinstance(v, (str, bool)) else Decimal(v) for k, v in change.items()}}
            step = evaluate_step(read(config))
            kept = max(step.phases, key=lambda phase: phase.parts["activations"] + phase.parts["loss"])
            assert parts == [kept.parts[key] / 2**30 for key in vram_compare.COMPONENTS]
            assert peak == step.allocated / 2**30 >= sum(parts)
            assert f">{name}: {format_decimal(sum(parts))} GiB</text>" in drawn
            assert f"{name}: pesi {format_decimal(parts[0])} GiB, gradienti {format_decimal(parts[1])} GiB" in drawn
            assert f"picco del passo (con il passo dell&#x27;ottimizzatore) {format_decimal(peak)} GiB" in drawn
        assert drawn.count('role="img"') == 1 and drawn.count("<svg") == 1 and "{{" not in drawn and "[[" not in drawn
        assert "GiB per GPU" in drawn and '<ul class="calc-legend"' in drawn


def test_the_figure_shows_what_each_parallelism_divides() -> None:
    values = evaluate(CALCULATOR, {**TEXTS, **CALCULATOR.examples["passo_70b_tabella"]}).values
    rows = {name: parts for name, parts, _ in vram_compare.layout_rows(values, vram_compare.LAYOUTS)}
    weights, activations, loss = 0, 3, 4
    assert rows["TP 8, FSDP"][activations] < rows["FSDP"][activations] / 5  # TP (with SP) divides the activations
    assert abs(rows["TP 8, CP 2, FSDP"][loss] * 2 - rows["TP 8, FSDP"][loss]) < Decimal("0.01")  # CP halves the logits
    assert rows["TP 4, PP 4, ZeRO-1"][loss] == 0  # the first stage holds no logits
    assert rows["Lo stesso, interleaved"][activations] > rows["TP 4, PP 4, ZeRO-1"][activations]
    assert rows["TP 4, PP 4, ZeRO-1"][weights] > rows["FSDP"][weights]  # ZeRO-1 keeps a stage's weights whole
    moe = evaluate(CALCULATOR, {**TEXTS, **CALCULATOR.examples["passo_moe_figura"]}).values
    experts = {name: parts for name, parts, _ in vram_compare.layout_rows(moe, vram_compare.MOE_LAYOUTS)}
    assert experts["EP 8, ZeRO-1"][weights] < experts["ZeRO-1"][weights] / 5
    for mine, theirs in zip(experts["EP 8, FSDP"], experts["FSDP"], strict=True):  # FSDP already divides every state
        assert abs(mine - theirs) < Decimal("1e-6")  # over the 32 GPUs: EP changes the communication, not the memory
