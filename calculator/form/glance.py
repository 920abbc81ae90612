"""The answer at a glance: the tone of each result (a verdict's colour, a negative margin) and the one sentence
screen readers hear once typing pauses (the headline results and the verdict, not the whole list)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from .evaluate import Evaluation
from .model import BLANK, Calculator, Format, Outputs, Tone

CHART = "grafico"  # in Calculator.glance: a copy of the chart, its bars only


def tones(calc: Calculator, evaluation: Evaluation) -> dict[str, str]:
    """Result id → tone: what the calculator says of its verdict, and ``bad`` for any negative number."""
    if evaluation.status != "ok":
        return {}
    shown = {r.id for r in calc.results if r.in_mode(evaluation.mode)}
    out = {key: Tone.BAD.value for key, value in evaluation.outputs.items()
           if key in shown and isinstance(value, Decimal) and value < 0}
    if calc.tones:
        out.update({key: tone for key, tone in calc.tones(evaluation.outputs).items() if key in shown})
    return out


def items(calc: Calculator, mode: str) -> list[str]:
    """The glance's result ids that apply in ``mode`` (the chart's copy left out)."""
    return [key for key in calc.glance if key != CHART and calc.result(key).in_mode(mode)]


def announcement(calc: Calculator, evaluation: Evaluation) -> str:
    """What a screen reader hears after an edit: the message when there is one, else the glance's results."""
    if evaluation.message:
        return evaluation.message
    keys = items(calc, evaluation.mode) or [r.id for r in calc.results if r.primary and r.in_mode(evaluation.mode)
                                            and r.format is not Format.CODE][:2]
    parts = []
    for key in keys:
        result, text = calc.result(key), evaluation.results.get(key, "")
        if text in ("", BLANK):
            continue
        parts.append(text if result.format is Format.TEXT else f"{result.label}: {text}")
    return " ".join(part if part.endswith(".") else part + "." for part in parts)


def margin_tones(verdict: str, margin: str, *, told: str = "", none_fits: tuple[str, ...] = (),
                 also: tuple[str, ...] = ()) -> Callable[[Outputs], dict[str, str]]:
    """A verdict's tone from its margin's sign (or from the output ``told``, a Tone's value, when the compute knows
    better: a band at the limit); a count in ``none_fits`` that is 0 is bad; results in ``also`` (the advice) share
    the verdict's tone when it is not good."""
    def tone(outputs: Outputs) -> dict[str, str]:
        said, left = outputs.get(told), outputs.get(margin)
        if isinstance(said, str) and said in {t.value for t in Tone}:
            verdict_tone = said
        elif isinstance(left, Decimal):
            verdict_tone = (Tone.GOOD if left >= 0 else Tone.BAD).value
        else:
            return {}
        out = {verdict: verdict_tone}
        out.update({key: Tone.BAD.value for key in none_fits if outputs.get(key) == 0})
        if verdict_tone != Tone.GOOD.value:
            out.update(dict.fromkeys(also, verdict_tone))
        return out
    return tone
