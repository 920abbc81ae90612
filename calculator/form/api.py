"""The one JSON-in/JSON-out entry point, shared by the build and the worker.

Request: ``{"calculator": "<id>", "values": {"<field id>": "<text>", ...}}``.
Response: ``{"calculator", "status", "message", "errors", "problems", "results",
"chart", "mode", "units", "links", "tones", "announce"}``, strings and objects of strings (``tones``: result id →
``good``/``warn``/``bad``; ``announce``: what screen readers hear once typing pauses); ``status`` is ``ok``,
``incomplete``, ``invalid`` or ``error``; an error also has a ``reason``:
``bad_request`` (not understood), ``missing_module`` (a module could not be
imported: the browser's standard library is still arriving) or ``defect`` (a bug of
ours, caught here). It never raises, whatever arrives.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from .evaluate import evaluate
from .glance import announcement, tones
from .registry import CALCULATORS

MESSAGE_BAD_REQUEST = "Richiesta non valida: ricarica la pagina."
MESSAGE_DEFECT = "Errore interno del calcolatore con questi valori: prova a cambiarli o ricarica la pagina."


def respond(request: object) -> dict[str, object]:
    """Answer a decoded request with a JSON-ready dict."""
    if not isinstance(request, Mapping):
        return _error("")
    calculator_id = request.get("calculator")
    values = request.get("values", {})
    if not isinstance(calculator_id, str) or calculator_id not in CALCULATORS:
        return _error("")
    if "paste" in request:
        return _pasted(calculator_id, request.get("paste"))
    if not isinstance(values, Mapping):
        values = {}
    before = request.get("before")  # the previous request's values, after an edit: a changed unit converts
    if not isinstance(before, Mapping):
        before = {}
    try:
        calc = CALCULATORS[calculator_id]
        evaluation = evaluate(calc, values, before)
        answer = {**evaluation.as_dict(), "tones": tones(calc, evaluation), "announce": announcement(calc, evaluation)}
    except ImportError:
        # Only in a browser whose standard library is still arriving (see engine-worker.mjs): try again.
        return _error(calculator_id, MESSAGE_DEFECT, "missing_module")
    except Exception:  # a defect of ours must still get an answer the page can show
        return _error(calculator_id, MESSAGE_DEFECT, "defect")
    return {"calculator": calculator_id, **answer}


MESSAGE_NO_PASTE = "Questo calcolatore non legge documenti incollati."


def _pasted(calculator_id: str, text: object) -> dict[str, object]:
    """A pasted document read by the calculator: ``{"calculator", "status": "pasted", "fields", "notes", "error"}``,
    the fields restricted to those the calculator has."""
    calc = CALCULATORS[calculator_id]
    if calc.paste is None or not isinstance(text, str):
        return {"calculator": calculator_id, "status": "pasted", "fields": {}, "notes": [], "error": MESSAGE_NO_PASTE}
    try:
        pasted = calc.paste(text)
    except Exception:  # a defect of ours must still get an answer the page can show
        return _error(calculator_id, MESSAGE_DEFECT, "defect")
    fields = {spec.id: pasted.fields[spec.id] for spec in calc.fields if spec.id in pasted.fields}
    filled = [f"{spec.label} {pasted.fields[spec.id] or '(vuoto)'}" for spec in calc.fields
              if spec.id in pasted.fields and spec.numeric and pasted.fields[spec.id] != "0"]
    notes = ([f"Compilati: {'; '.join(filled)}."] if filled else []) + list(pasted.notes)
    return {"calculator": calculator_id, "status": "pasted", "fields": fields, "notes": notes,
            "error": pasted.error}


def handle(request_json: str) -> str:
    """Answer a JSON request with a JSON response."""
    try:
        request = json.loads(request_json)
    except (ValueError, TypeError, RecursionError):
        return json.dumps(_error(""), ensure_ascii=False)
    return json.dumps(respond(request), ensure_ascii=False)


def _error(calculator_id: str, message: str = MESSAGE_BAD_REQUEST, reason: str = "bad_request") -> dict[str, object]:
    return {
        "calculator": calculator_id,
        "status": "error",
        "reason": reason,
        "message": message,
        "errors": {},
        "problems": {},
        "results": {},
        "chart": "",
        "mode": "",
        "units": {},
        "tones": {},
        "announce": message,
    }
