"""HTML of a calculator, rendered at build time with its default results.

The browser script only swaps texts inside this markup, so everything the page
shows without JavaScript comes from here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape

from .evaluate import Evaluation, evaluate
from .model import Calculator, Field, Kind

NOSCRIPT = (
    "JavaScript è disattivato: i risultati qui sotto valgono per i valori predefiniti."
    " Attivalo per ricalcolare mentre scrivi."
)
# Engine states the page script can show; it only unhides the one that applies.
ENGINE_MESSAGES = {
    "loading": "Il motore di calcolo si sta avviando: i risultati si aggiorneranno tra un attimo.",
    "failed": (
        "Il motore di calcolo non è disponibile: i risultati mostrati sono quelli dell'ultimo calcolo riuscito"
        " o, se non ce n'è stato nessuno, dei valori predefiniti."
    ),
    "file": (
        "Aperta direttamente dal disco, la pagina non può avviare il motore di calcolo: i risultati mostrati"
        " valgono per i valori predefiniti. Per usarla offline avvia un server locale (scripts/serve, oppure"
        " python3 -m http.server nella cartella site/) e apri http://127.0.0.1:8000."
    ),
}
RETRY = "Riprova"


def render(calc: Calculator, texts: Mapping[str, str] | None = None) -> str:
    """The calculator's form and results, filled in for ``texts`` (defaults if None)."""
    values = {**calc.defaults, **(texts or {})}
    evaluation = evaluate(calc, values)
    parts = [
        f'<form class="calc{" calc--wide" if calc.chart else ""}" data-calculator="{_a(calc.id)}" data-state="loading"'
        f' novalidate aria-labelledby="{_a(calc.id)}--titolo-input">',
        '<div class="calc__inputs">',
        f'<h2 class="calc__title" id="{_a(calc.id)}--titolo-input">Dati di input</h2>',
        f"<noscript><p class=\"calc__engine\">{_t(NOSCRIPT)}</p></noscript>",
        _engine_status(),
    ]
    if calc.presets:
        parts.append(_presets(calc))
    for group, fields in calc.groups():
        parts.append('<fieldset class="calc__group">')
        if group:
            parts.append(f"<legend>{_t(group)}</legend>")
        parts.extend(_field(calc, spec, values.get(spec.id, ""), evaluation) for spec in fields)
        parts.append("</fieldset>")
    parts.append("</div>")
    parts.append(_results(calc, evaluation))
    parts.append("</form>")
    return "\n".join(parts)


def _engine_status() -> str:
    messages = "".join(
        f'<p data-when="{state}" hidden>{_t(text)}'
        + (f' <button type="button" class="md-button calc__retry" data-retry>{RETRY}</button>' if state == "failed" else "")
        + "</p>"
        for state, text in ENGINE_MESSAGES.items()
    )
    return f'<div class="calc__engine" data-engine-status role="status" hidden>{messages}</div>'


def _field(calc: Calculator, spec: Field, text: str, evaluation: Evaluation) -> str:
    base = f"{calc.id}--{spec.id}"
    error = evaluation.errors.get(spec.id, "")
    described = f"{base}--aiuto {base}--errore" if spec.help else f"{base}--errore"
    attributes = f'id="{_a(base)}" name="{_a(spec.id)}" aria-describedby="{_a(described)}"'
    if error:
        attributes += ' aria-invalid="true"'
    if spec.kind is Kind.CHOICE:
        options = "".join(
            f'<option value="{_a(o.value)}"{" selected" if o.value == text else ""}>{_t(o.label)}</option>'
            for o in spec.options
        )
        control = f"<select {attributes}>{options}</select>"
    elif spec.kind is Kind.FLAG:
        checked = " checked" if text.strip().lower() in {"1", "true", "on", "si", "sì"} else ""
        control = f'<input type="checkbox" {attributes}{checked}>'
    else:
        mode = "numeric" if spec.kind is Kind.INTEGER else "decimal"
        control = (
            f'<input type="text" {attributes} value="{_a(text)}"'
            f' inputmode="{mode}" autocomplete="off" spellcheck="false">'
        )
    optional = ' <span class="calc__optional">(facoltativo)</span>' if spec.optional else ""
    label = f'<label for="{_a(base)}">{_t(spec.label)}{optional}</label>'
    unit = f'<span class="calc__unit">{_t(spec.unit)}</span>' if spec.unit else ""
    help_text = f'<p class="calc__help" id="{_a(base)}--aiuto">{_t(spec.help)}</p>' if spec.help else ""
    error_text = f'<p class="calc__error" id="{_a(base)}--errore" data-error-for="{_a(spec.id)}">{_t(error)}</p>'
    if spec.kind is Kind.FLAG:
        return f'<div class="calc__field calc__field--flag">{control}{label}{help_text}{error_text}</div>'
    return (
        f'<div class="calc__field">{label}<div class="calc__control">{control}{unit}</div>'
        f"{help_text}{error_text}</div>"
    )


def _results(calc: Calculator, evaluation: Evaluation) -> str:
    rows = "".join(
        f'<div class="calc__output{"" if r.primary else " calc__output--minor"}"><dt>{_t(r.label)}</dt>'
        f'<dd><output data-output="{_a(r.id)}">{_t(evaluation.results.get(r.id, "—"))}</output></dd>'
        + (f'<dd class="calc__output-help">{_t(r.help)}</dd>' if r.help else "")
        + "</div>"
        for r in calc.results
    )
    chart = f'<div class="calc__chart" data-chart>{evaluation.chart}</div>' if calc.chart else ""
    return (
        f'<section class="calc__results" aria-labelledby="{_a(calc.id)}--titolo-risultati">'
        f'<h2 class="calc__title" id="{_a(calc.id)}--titolo-risultati">Risultati</h2>'
        '<div class="calc__live" aria-live="polite">'
        f'<p class="calc__message" data-message>{_t(evaluation.message)}</p>'
        f'<dl class="calc__outputs">{rows}</dl>{chart}</div></section>'
    )


def _presets(calc: Calculator) -> str:
    buttons = "".join(
        f'<button type="button" class="md-button calc__preset" data-preset="{_a(json.dumps(dict(p.values)))}">'
        f"{_t(p.label)}</button>"
        for p in calc.presets
    )
    return (
        f'<div class="calc__presets" role="group" aria-labelledby="{_a(calc.id)}--modelli">'
        f'<span class="calc__presets-label" id="{_a(calc.id)}--modelli">Compila con un modello:</span>{buttons}</div>'
    )


def _t(text: str) -> str:
    return escape(text, quote=False)


def _a(text: str) -> str:
    return escape(text, quote=True)
