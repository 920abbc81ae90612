"""Answer every kind of request once, so that everything an answer needs is imported.

The build calls ``warm_up()`` before it takes the engine's memory snapshot: the
browser then starts from that snapshot with an empty standard library, and the
real one arrives only after the engine is ready.
"""

from __future__ import annotations

import json

from .api import handle
from .registry import CALCULATORS


def requests() -> list[str]:
    """Defaults, the article's examples, a wrong value in each field, and a request that is not JSON."""
    out = []
    for calc in CALCULATORS.values():
        inputs = [calc.defaults, *({**calc.defaults, **example} for example in calc.examples.values())]
        inputs += [{**calc.defaults, spec.id: "x"} for spec in calc.fields]
        inputs += [{**calc.defaults, spec.id: ""} for spec in calc.fields]
        out += [json.dumps({"calculator": calc.id, "values": values}) for values in inputs]
    return [*out, "{"]


def warm_up() -> int:
    """Answer every request of ``requests()``; returns how many."""
    answered = [handle(request) for request in requests()]
    return len(answered)
