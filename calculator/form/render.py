"""HTML of a calculator, rendered at build time with its default results.

The browser script only swaps texts inside this markup, so everything the page
shows without JavaScript comes from here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from html import escape

from .evaluate import Evaluation, evaluate
from .glance import CHART, tones
from .model import BLANK, FLAG_ON, FLAG_TRUE_TEXTS, Calculator, Feed, Field, Format, Kind, Preset, Result, flag_value

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
# The loading message's progress bar, shown once a start is slow or waited for: the page script only sets its maximum
# and value, the bytes the worker counts (its maximum written into the worker by the build).
PROGRESS_LABEL = "Scaricamento del motore:"
# Longest query the page writes into its address: hosts answer longer ones with "414 URI Too Long".
ADDRESS_LIMIT = 2000
ADDRESS_NOTE = ("Questi valori sono troppo lunghi per stare nell'indirizzo della pagina (oltre 2.000 caratteri): il"
                " link non li contiene. Restano nei campi.")
# What the page says about the values kept on this device: kept from the last visit, not kept (storage full or
# blocked), or changed in another tab (then with USE_THEIRS, which takes those).
STORAGE_NOTES = {
    "refused": ("Questo browser non conserva i valori (memoria del sito piena o bloccata): alla prossima visita"
                " torneranno quelli di prima. Restano nell'indirizzo della pagina, che «Copia link» copia."),
    "restored": "Sono i valori che avevi lasciato qui l'ultima volta; «Ripristina i valori predefiniti» li dimentica.",
    "elsewhere": ("In un'altra scheda i valori di questo calcolatore sono cambiati: il browser conserva l'ultima"
                  " modifica, fatta lì."),
}
USE_THEIRS = "Usa quei valori"
ACTIONS = {
    "copy_link": ("Copia link", "Link copiato negli appunti", "Copia non riuscita: copia l'indirizzo dalla barra"),
    "copy_code": ("Copia", "Copiato", "Copia non riuscita"),
    "reset": "Ripristina i valori predefiniti",
}


def render(calc: Calculator, texts: Mapping[str, str] | None = None,
           attributes: Mapping[str, str] | None = None) -> str:
    """The calculator's form and results, filled in for ``texts`` (defaults if None).

    ``attributes`` are extra ``data-*`` attributes for the form (the build adds the engine's version,
    ``data-engine``, and the worker's path from the site's root, ``data-worker``: the page's scripts
    read both there).
    """
    values = {**calc.defaults, **(texts or {})}
    evaluation = evaluate(calc, values)
    mode = evaluation.mode
    extra = "".join(f' data-{_a(name)}="{_a(value)}"' for name, value in (attributes or {}).items())
    parts = [
        f'<form class="calc" data-calculator="{_a(calc.id)}" data-state="loading" data-mode="{_a(mode)}"'
        f' data-blank="{_a(BLANK)}" data-address-limit="{ADDRESS_LIMIT}"{extra} novalidate'
        f' aria-labelledby="{_a(calc.id)}--titolo-input">',
        '<div class="calc__main">',
        '<div class="calc__inputs">',
        f'<h2 class="calc__title" id="{_a(calc.id)}--titolo-input">Dati di input</h2>',
        f"<noscript><p class=\"calc__engine\">{_t(NOSCRIPT)}</p></noscript>",
        _engine_status(calc),
        _arrived(calc),
    ]
    rows = _presets(calc, mode, values)
    parts.append(rows.pop("", ""))
    parts.append(_paste(calc))
    for group, fields in calc.groups():
        # A group whose every field belongs to some modes belongs to them too (no empty legend elsewhere).
        group_modes = tuple(dict.fromkeys(m for f in fields for m in f.modes)) if all(f.modes for f in fields) else ()
        folded = group in calc.fold
        if folded:
            parts.append(_fold_open(calc, group, fields, values, group_modes, mode))
        parts.append(f'<fieldset class="calc__group"{"" if folded else _modes(group_modes, mode)}>')
        if group:
            legend = ' class="calc__legend--folded"' if folded else ""
            parts.append(f"<legend{legend}>{_t(group)}</legend>")
        parts.append(rows.pop(group, ""))
        parts.extend(_field(calc, spec, values, evaluation, mode) for spec in fields)
        parts.append("</fieldset>" + ("</details>" if folded else ""))
    parts.append(_glance(calc, evaluation))
    parts.append(_actions())
    parts.append("</div>")
    parts.append(_results(calc, evaluation))
    parts.append("</form>")
    return "\n".join(parts)


PASTE_TITLE = "Il tuo modello: incolla il suo config.json"
PASTE_WAITING = "Il calcolatore si sta avviando: riprova tra un attimo."
PASTE_HELP = ("Il testo resta in questa pagina: il calcolatore lo legge nel tuo browser e compila i campi del modello;"
              " niente viene inviato né salvato.")


def _paste(calc: Calculator) -> str:
    """A text area and a file input for a document the calculator reads into its fields (``Calculator.paste``).
    Hidden until the page script shows it: without the engine it could do nothing. Neither has a name, so the
    text never reaches the address or this device's storage."""
    if calc.paste is None:
        return ""
    base = f"{calc.id}--incolla"
    return (
        f'<details class="calc__paste" data-paste-box data-waiting="{_a(PASTE_WAITING)}" hidden>'
        f"<summary>{_t(PASTE_TITLE)}</summary>"
        f'<p class="calc__help">{_t(PASTE_HELP)}</p>'
        f'<label for="{_a(base)}">Contenuto di config.json</label>'
        f'<textarea id="{_a(base)}" class="calc__paste-text" data-paste rows="6" spellcheck="false"'
        ' autocomplete="off" autocapitalize="off"></textarea>'
        f'<label for="{_a(base)}-file">Oppure scegli il file</label>'
        f'<input type="file" id="{_a(base)}-file" data-paste-file accept=".json,application/json">'
        '<div class="calc__paste-notes" data-paste-notes aria-live="polite"></div></details>'
    )


GLANCE_CHART = CHART
FOLD_EDITED = "(modificato)"  # after a folded group's title, once a field filled by a preset is edited


def pressed(calc: Calculator, preset: Preset, values: Mapping[str, str]) -> bool:
    """Whether the fields hold this preset's texts (the page script applies the same rule: its button is pressed)."""
    def same(spec: Field, text: str) -> bool:
        held = values.get(spec.id, "")
        return flag_value(held) == flag_value(text) if spec.kind is Kind.FLAG else held == text
    own = _own(calc, preset)
    return bool(own) and all(same(calc.field(key), text) for key, text in own.items())


def _own(calc: Calculator, preset: Preset) -> dict[str, str]:
    """The preset's texts for the fields this calculator has."""
    ids = {spec.id for spec in calc.fields}
    return {key: text for key, text in preset.values.items() if key in ids}


def _fold_open(calc: Calculator, group: str, fields: list[Field], values: Mapping[str, str],
               group_modes: tuple[str, ...], mode: str) -> str:
    """A group filled by a preset (the model's shape), collapsed under its title while a preset's values hold; the
    title says which preset, or that a value was edited after it."""
    ids = {spec.id for spec in fields}
    filling = [p for p in calc.presets if ids & set(p.values)]
    chosen = next((p for p in filling if pressed(calc, p, values)), None)
    note = chosen.label if chosen else ""
    filled_by = f' data-filled-by="{_a(note)}"' if chosen else ""
    return (f'<details class="calc__fold" data-fold data-edited="{_a(FOLD_EDITED)}"{filled_by}{_modes(group_modes, mode)}'
            f'{"" if chosen else " open"}><summary><span class="calc__fold-title">{_t(group)}</span>'
            f' <span class="calc__fold-note" data-fold-note>{_t(note)}</span></summary>')


def _without_ids(svg: str) -> str:
    """A copy of the chart must not repeat its ids (the page script strips them the same way)."""
    return re.sub(r' (?:id|aria-labelledby)="[^"]*"', "", svg)


def _glance(calc: Calculator, evaluation: Evaluation) -> str:
    """The headline results and the verdict, kept in view at the bottom of the inputs while one edits (on a phone the
    results come after every field). Hidden from screen readers, which hear the same results from the announcement."""
    if not calc.glance:
        return ""
    tone = tones(calc, evaluation)
    parts = []
    for key in calc.glance:
        if key == GLANCE_CHART:
            parts.append(f'<div class="calc__chart calc__glance-chart" data-chart>{_without_ids(evaluation.chart)}</div>')
            continue
        result = calc.result(key)
        label = "" if result.format is Format.TEXT else f'<span class="calc__glance-label">{_t(result.label)}</span> '
        parts.append(f'<div class="calc__glance-item"{_tone(key, tone)}{_modes(result.modes, evaluation.mode)}>{label}'
                     f'<span class="calc__glance-value" data-output="{_a(key)}">{_t(evaluation.results.get(key, ""))}'
                     "</span></div>")
    return f'<div class="calc__glance" aria-hidden="true">{"".join(parts)}</div>'


def _tone(key: str, tone: Mapping[str, str]) -> str:
    """The attributes that colour a result by its tone (the page script keeps data-tone current)."""
    return f' data-tone-for="{_a(key)}" data-tone="{_a(tone.get(key, ""))}"'


ARRIVED = "Valori arrivati da «{}»:"  # then the fields the link filled, with their values (the page script lists them)
# How the note says a checkbox's value (the address says "on" or nothing); a choice is said by its option's label.
ARRIVED_FLAG = ("sì", "no")


def _arrived(calc: Calculator) -> str:
    """Where a sibling's link says what it filled: hidden until the page opens from one (``?da=<its id>``)."""
    from .registry import CALCULATORS  # every page imports this module's package

    titles = {other.id: other.title for other in CALCULATORS.values()
              if any(feed.target == calc.id for feed in other.feeds)}
    if not titles:
        return ""
    yes, no = ARRIVED_FLAG
    return (f'<p class="calc__note calc__arrived" data-arrived="{_a(ARRIVED)}" data-titles="{_a(json.dumps(titles))}"'
            f' data-yes="{_a(yes)}" data-no="{_a(no)}" role="status" hidden></p>')


def _engine_status(calc: Calculator) -> str:
    extra = {"failed": f' <button type="button" class="md-button calc__retry" data-retry>{RETRY}</button>',
             "loading": _progress(calc)}
    messages = "".join(f'<p data-when="{state}" hidden>{_t(text)}{extra.get(state, "")}</p>'
                       for state, text in ENGINE_MESSAGES.items())
    # Never hidden itself: a live region shown at the moment its text changes may not be announced. Empty (every
    # message hidden), the stylesheet collapses it; the page script marks it data-showing.
    return f'<div class="calc__engine" data-engine-status role="status">{messages}</div>'


def _progress(calc: Calculator) -> str:
    """The loading message's progress bar (hidden until the page script gives it a value)."""
    bar = f"{_a(calc.id)}--download-motore"
    return (f' <span class="calc__progress" data-engine-progress hidden><label for="{bar}">{_t(PROGRESS_LABEL)}</label>'
            f' <progress id="{bar}"></progress></span>')


def _modes(modes: tuple[str, ...], mode: str) -> str:
    """Attributes that tie an element to the modes it belongs to (hidden in the others)."""
    if not modes:
        return ""
    return f' data-modes="{_a(" ".join(modes))}"' + ("" if mode in modes else " hidden")


def _actions() -> str:
    link, link_done, link_failed = ACTIONS["copy_link"]
    return (
        '<div class="calc__actions">'
        f'<button type="button" class="md-button calc__action" data-copy-link data-done="{_a(link_done)}"'
        f' data-failed="{_a(link_failed)}">{_t(link)}</button>'
        f'<button type="reset" class="md-button calc__action">{_t(str(ACTIONS["reset"]))}</button>'
        "</div>"
        f'<p class="calc__note" data-address-note hidden>{_t(ADDRESS_NOTE)}</p>'
        + _storage_note()
    )


def _storage_note() -> str:
    """An empty live region, there from the start so that what it later says is announced; the page script writes in
    the note its data-* attributes hold (STORAGE_NOTES, USE_THEIRS)."""
    notes = "".join(f' data-{kind}="{_a(text)}"' for kind, text in STORAGE_NOTES.items())
    return f'<p class="calc__note" data-storage-note=""{notes} data-use-theirs="{_a(USE_THEIRS)}" role="status"></p>'


def _field(calc: Calculator, spec: Field, values: Mapping[str, str], evaluation: Evaluation, mode: str) -> str:
    text = values.get(spec.id, "")
    base = f"{calc.id}--{spec.id}"
    error = evaluation.errors.get(spec.id, "")
    described = f"{base}--aiuto {base}--errore" if spec.help else f"{base}--errore"
    if spec.numeric:  # how an ambiguous number was read ("1.235" is 1 235), next to the field
        described += f" {base}--nota"
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
        checked = " checked" if flag_value(text) else ""
        true_texts = _a(" ".join(FLAG_TRUE_TEXTS))
        control = f'<input type="checkbox" {attributes} value="{FLAG_ON}" data-true="{true_texts}"{checked}>'
    else:
        input_mode = "numeric" if spec.kind is Kind.INTEGER else "decimal"
        control = (
            f'<input type="text" {attributes} value="{_a(text)}"'
            f' inputmode="{input_mode}" autocomplete="off" spellcheck="false">'
        )
    optional = ' <span class="calc__optional">(facoltativo)</span>' if spec.optional else ""
    label = f'<label for="{_a(base)}">{_t(spec.label)}{optional}</label>'
    unit_text = evaluation.units.get(spec.id, "") if spec.unit_from else spec.unit
    unit_source = f' data-unit-of="{_a(spec.id)}"' if spec.unit_from else ""
    unit = f'<span class="calc__unit"{unit_source}>{_t(unit_text)}</span>' if unit_text else ""
    help_text = f'<p class="calc__help" id="{_a(base)}--aiuto">{_t(spec.help)}</p>' if spec.help else ""
    error_text = f'<p class="calc__error" id="{_a(base)}--errore" data-error-for="{_a(spec.id)}">{_t(error)}</p>'
    note = evaluation.notes.get(spec.id, "")
    if spec.numeric:
        help_text = (f'<p class="calc__echo" id="{_a(base)}--nota" data-note-for="{_a(spec.id)}"'
                     f'{"" if note else " hidden"}>{_t(note)}</p>{help_text}')
    modes = _modes(spec.modes, mode)
    if calc.absent:  # the page script hides the fields each answer lists as absent
        modes += f' data-absent-field="{_a(spec.id)}"'
        if spec.id in evaluation.absent and " hidden" not in modes:
            modes += " hidden"
    if spec.kind is Kind.FLAG:
        return f'<div class="calc__field calc__field--flag"{modes}>{control}{label}{help_text}{error_text}</div>'
    return (
        f'<div class="calc__field"{modes}>{label}<div class="calc__control">{control}{unit}</div>'
        f"{help_text}{error_text}</div>"
    )


def _results(calc: Calculator, evaluation: Evaluation) -> str:
    mode = evaluation.mode
    shown = [r for r in calc.results if r.format is not Format.CODE]
    tone = tones(calc, evaluation)
    rows = "".join(_result_row(r, evaluation.results.get(r.id, BLANK), mode, tone) for r in shown)
    chart = f'<div class="calc__chart" data-chart>{evaluation.chart}</div>' if calc.chart else ""
    if chart and calc.chart_after:  # beside the verdict, in the sticky results column
        ids = [r.id for r in shown]
        cut = ids.index(calc.chart_after) + 1
        first, rest = (("".join(_result_row(r, evaluation.results.get(r.id, BLANK), mode, tone) for r in part))
                       for part in (shown[:cut], shown[cut:]))
        rows = f'{first}</dl>{chart}<dl class="calc__outputs">{rest}'
        chart = ""
    more = chart + _snippets(calc, evaluation)
    return (
        f'<section class="calc__results" aria-labelledby="{_a(calc.id)}--titolo-risultati">'
        f'<h2 class="calc__title" id="{_a(calc.id)}--titolo-risultati">Risultati</h2>'
        # Only the announcement is a live region (the headline results and the verdict, once typing pauses): the
        # whole list would be read again at every key.
        f'<p class="calc__announce" data-announce aria-live="polite"></p><div class="calc__live">'
        f'<p class="calc__message" data-message>{_t(evaluation.message)}</p>'
        f'<dl class="calc__outputs">{rows}</dl></div>{_feeds(calc)}</section></div>'
        + (f'<div class="calc__more">{more}</div>' if more else "")
    )


FEEDS_MARK = "<!--calc-feeds-->"  # where a site generator puts the feed links as Markdown (see feed_links)


def feed_links(calc: Calculator, texts: Mapping[str, str] | None = None) -> list[tuple[Feed, str | None]]:
    """Each link to a sibling with the query that fills it for ``texts`` (defaults if None); None for a link
    that these values cannot offer yet (it is rendered hidden, and shown once they can)."""
    evaluation = evaluate(calc, {**calc.defaults, **(texts or {})})
    return [(feed, evaluation.links.get(feed.id)) for feed in calc.feeds]


def _feeds(calc: Calculator) -> str:
    """Links that open a sibling with these results filled in; the page script keeps their addresses current.

    The list itself is left to the site generator, at ``FEEDS_MARK``, written as Markdown links to the
    sibling's page, so that MkDocs and Zensical both turn them into the right relative addresses.
    """
    if not calc.feeds:
        return ""
    return f'<div class="calc__feeds"><p class="calc__feeds-title">Continua con questi valori:</p>{FEEDS_MARK}</div>'


def _result_row(result: Result, text: str, mode: str, tone: Mapping[str, str]) -> str:
    css = "calc__output" + ("" if result.primary else " calc__output--minor")
    if result.format is Format.TEXT:
        css += " calc__output--text"
        value = f'<p class="calc__note" data-output="{_a(result.id)}">{_t(text)}</p>'
    else:
        # An <output> is a live region of its own (role status): off, so that only the announcement speaks.
        value = f'<output data-output="{_a(result.id)}" aria-live="off">{_t(text)}</output>'
    help_text = f'<dd class="calc__output-help">{_t(result.help)}</dd>' if result.help else ""
    return (f'<div class="{css}"{_tone(result.id, tone)}{_modes(result.modes, mode)}><dt>{_t(result.label)}</dt>'
            f"<dd>{value}</dd>{help_text}</div>")


def _snippets(calc: Calculator, evaluation: Evaluation) -> str:
    """Configuration snippets: outside the live region, so that they are not read aloud at each key."""
    snippets = [r for r in calc.results if r.format is Format.CODE]
    if not snippets:
        return ""
    label, done, failed = ACTIONS["copy_code"]
    mode = evaluation.mode
    blocks = "".join(
        f'<div class="calc__snippet"{_modes(r.modes, mode)}>'
        f'<h3 class="calc__snippet-title" id="{_a(calc.id)}--{_a(r.id)}">{_t(r.label)}</h3>'
        f'<pre class="no-copy"><code data-output="{_a(r.id)}">{_t(evaluation.results.get(r.id, ""))}</code></pre>'
        f'<button type="button" class="md-button calc__action" data-copy="{_a(r.id)}" data-done="{_a(done)}"'
        f' data-failed="{_a(failed)}" aria-describedby="{_a(calc.id)}--{_a(r.id)}">{_t(label)}</button></div>'
        for r in snippets
    )
    # The heading goes with the snippets: hidden in the modes that have none.
    every = () if any(not r.modes for r in snippets) else tuple(sorted({m for r in snippets for m in r.modes}))
    return (f'<div class="calc__snippets"{_modes(every, mode)}><h3 class="calc__title">Configurazione pronta da'
            f' incollare</h3>{blocks}</div>')


def _presets(calc: Calculator, mode: str, values: Mapping[str, str]) -> dict[str, str]:
    """The rows of preset buttons by the field group they go in: the group of every field they fill, or
    "" (above the form) when they fill fields of several groups. The button whose texts the fields hold is pressed."""
    groups: dict[str, list[tuple[str, str]]] = {}  # per row: (section, button)
    modes: dict[str, tuple[str, ...]] = {}
    filled: dict[str, set[str]] = {}
    held: dict[str, str] = {}  # per row, the first preset whose texts the fields hold: the one shown pressed
    for preset in sorted(calc.presets, key=lambda p: not p.preferred):  # a preferred twin first (stable otherwise)
        if pressed(calc, preset, values):
            held.setdefault(preset.group, preset.id)
    for preset in calc.presets:
        modes.setdefault(preset.group, preset.modes)
        filled.setdefault(preset.group, set()).update(calc.group_of(f) for f in calc.fields if f.id in preset.values)
        state = "true" if held.get(preset.group) == preset.id else "false"
        # A note (a GPU's memory in both units) is part of the button's text, so of its name too (WCAG 2.5.3).
        groups.setdefault(preset.group, []).append((preset.section, (
            f'<button type="button" class="md-button calc__preset" data-preset="{_a(json.dumps(_own(calc, preset)))}"'
            f' aria-pressed="{state}">{_t(preset.label)}'
            + (f' <span class="calc__preset-note">{_t(preset.note)}</span>' if preset.note else "")
            + "</button>"
        )))
    rows: dict[str, str] = {}
    for index, (group, buttons) in enumerate(groups.items()):
        label_id = f"{calc.id}--preimpostati-{index}"
        # In its group's fieldset; above the form when that group is folded (the buttons must show while it is shut).
        place = next(iter(filled[group])) if len(filled[group]) == 1 else ""
        place = "" if place in calc.fold else place
        rows[place] = rows.get(place, "") + (
            f'<div class="calc__presets" role="group" aria-labelledby="{_a(label_id)}"{_modes(modes[group], mode)}>'
            f'<span class="calc__presets-label" id="{_a(label_id)}">{_t(group)}</span>{_buttons(buttons, label_id)}'
            "</div>"
        )
    return rows


def _buttons(buttons: list[tuple[str, str]], label_id: str) -> str:
    """A row's buttons; a long row whose presets have sections (a model's family), each section a labelled group,
    and a filter box the page's script shows (hidden without it, where it could not filter)."""
    if len(buttons) < SECTIONED_ROW or not all(section for section, _ in buttons):
        return "".join(button for _, button in buttons)
    sections: dict[str, list[str]] = {}
    for section, button in buttons:
        sections.setdefault(section, []).append(button)
    filter_box = (f'<input type="search" class="calc__preset-filter" data-preset-filter hidden autocomplete="off"'
                  f' aria-label="Filtra i pulsanti: nome o famiglia" placeholder="Filtra: nome o famiglia"'
                  f' aria-controls="{_a(label_id)}-sezioni">')
    groups = "".join(
        f'<span class="calc__preset-section" role="group" aria-label="{_a(section)}" data-section="{_a(section)}">'
        f'<span class="calc__preset-family" aria-hidden="true">{_t(section)}</span>{"".join(items)}</span>'
        for section, items in sections.items())
    return f'{filter_box}<span class="calc__preset-sections" id="{_a(label_id)}-sezioni">{groups}</span>'


SECTIONED_ROW = 12  # buttons from which a row with sections is shown by section, with a filter box


def _t(text: str) -> str:
    return escape(text, quote=False)


def _a(text: str) -> str:
    return escape(text, quote=True)
