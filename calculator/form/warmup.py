"""Answer every kind of request once, so that everything an answer needs is imported.

The build calls ``warm_up()`` before it takes the engine's memory snapshot: the
browser then starts from that snapshot with an empty standard library, and the
real one arrives only after the engine is ready.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator

from .api import handle
from .registry import CALCULATORS


def requests() -> Iterator[str]:
    """Defaults, the article's examples, a wrong value in each field, and a request that is not JSON."""
    for calc in CALCULATORS.values():
        inputs = [calc.defaults, *({**calc.defaults, **example} for example in calc.examples.values())]
        inputs += [{**calc.defaults, spec.id: "x"} for spec in calc.fields]
        inputs += [{**calc.defaults, spec.id: ""} for spec in calc.fields]
        for values in inputs:
            yield json.dumps({"calculator": calc.id, "values": values})
    yield "{"


def warm_up() -> int:
    """Answer every request of ``requests()``, one at a time; returns how many.

    Neither the requests nor the answers are kept: what the snapshot's memory grew to for them would stay in it,
    freed but not zero, and every visit would download and unpack it."""
    count = 0
    for request in requests():
        handle(request)
        count += 1
    gc.collect()
    return count
