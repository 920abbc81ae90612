"""The one JSON-in/JSON-out entry point, shared by the build and the worker.

Request: ``{"calculator": "<id>", "values": {"<field id>": "<text>", ...}}``.
Response: ``{"calculator", "status", "message", "errors", "results", "chart"}``,
all strings; ``status`` is ``ok``, ``incomplete``, ``invalid`` or ``error``
(a request that is not understood). It never raises.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from .evaluate import evaluate
from .registry import CALCULATORS

MESSAGE_BAD_REQUEST = "Richiesta non valida: ricarica la pagina."


def respond(request: object) -> dict[str, object]:
    """Answer a decoded request with a JSON-ready dict."""
    if not isinstance(request, Mapping):
        return _error("")
    calculator_id = request.get("calculator")
    values = request.get("values", {})
    if not isinstance(calculator_id, str) or calculator_id not in CALCULATORS:
        return _error("")
    if not isinstance(values, Mapping):
        values = {}
    answer = evaluate(CALCULATORS[calculator_id], values).as_dict()
    return {"calculator": calculator_id, **answer}


def handle(request_json: str) -> str:
    """Answer a JSON request with a JSON response."""
    try:
        request = json.loads(request_json)
    except (ValueError, TypeError, RecursionError):
        return json.dumps(_error(""), ensure_ascii=False)
    return json.dumps(respond(request), ensure_ascii=False)


def _error(calculator_id: str) -> dict[str, object]:
    return {
        "calculator": calculator_id,
        "status": "error",
        "message": MESSAGE_BAD_REQUEST,
        "errors": {},
        "results": {},
        "chart": "",
    }
