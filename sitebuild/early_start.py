"""The engine's early start (``docs/assets/javascripts/engine-start.js``), inlined at the top of ``<head>``.

On every page with a calculator form it starts the engine's worker before the stylesheets and the theme load, and
holds the theme's bundle until the engine has answered (its tag becomes a data block that the script loads);
on the home page it starts it once the page is idle, so that the first calculator reached through the site's
links is ready as it appears. It runs after the files are named by their content (the worker's name is
known) and before the Content-Security-Policy is computed (which then names its hash).
"""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path

from .engine import ROOT, pyodide_version

ENGINE_START = ROOT / "docs" / "assets" / "javascripts" / "engine-start.js"
WORKER = "assets/javascripts/engine-worker.mjs"
CHARSET = '<meta charset="utf-8">'
FORM = re.compile(r"<form\b[^>]*\sdata-calculator=")
# The theme's bundle on a calculator page: held as a data block, loaded by the early start (engine-start.js).
THEME = re.compile(r'<script src="([^"]*assets/javascripts/bundle\.[^"/]*\.js)"></script>')
HELD = '<script type="text/plain" data-calc-theme="{}"></script>'
MARK = "window.calcEngineStart !== undefined"


class EarlyStartError(RuntimeError):
    """A page that should start the engine has no place for the script (its ``<meta charset>``)."""


def _code() -> str:
    lines = ENGINE_START.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(itertools.dropwhile(lambda line: line.startswith("//"), lines)).rstrip()


def start_script(worker: str, version: str, idle: bool) -> str:
    """The inline script ``engine-start.js``, with the worker's address (relative to the page), the engine's version
    and whether to wait for the page to be idle as attributes: its text, and so its hash, is the same everywhere."""
    idle_attribute = " data-idle" if idle else ""
    return (f'<script data-worker="{html.escape(worker)}" data-engine="{html.escape(version)}"{idle_attribute}>'
            f"{_code()}</script>")


def add_early_start(site: Path, renamed: dict[str, str]) -> list[Path]:
    """Insert the script after the ``<meta charset>`` of the calculator pages and of the home page; returns them.
    ``renamed``: the scripts' names by content (``sitebuild.content_names``)."""
    worker = renamed.get(WORKER, WORKER)
    pages = []
    for page in sorted(site.rglob("*.html")):
        relative = page.relative_to(site)
        text = page.read_text(encoding="utf-8")
        home = relative == Path("index.html")
        has_form = bool(FORM.search(text))
        if MARK in text or not (home or has_form):
            continue
        if CHARSET not in text:
            raise EarlyStartError(f"{relative}: no {CHARSET} to put the engine's start after")
        up = "../" * (len(relative.parts) - 1)
        script = start_script(up + worker, pyodide_version(), idle=not has_form)
        text = text.replace(CHARSET, f"{CHARSET}\n{script}", 1)
        if has_form:
            text, held = THEME.subn(lambda found: HELD.format(found[1]), text)
            if held != 1:
                raise EarlyStartError(f"{relative}: {held} tags of the theme's bundle, expected 1")
        page.write_text(text, encoding="utf-8")
        pages.append(page)
    return pages
