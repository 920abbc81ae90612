"""The update notice's words, written into every built page as a ``<template>`` that ``offline.mjs`` clones when a new
deploy of the site is installed (the script holds no sentence of its own). A page the theme renders without Markdown
(the 404 page) gets it too, since the notice can come on any page."""

from __future__ import annotations

import html
from pathlib import Path

TEMPLATE_ID = "calc-update-template"
NOTICE_ID = "calc-update-notice"  # the notice once shown (offline.mjs shows it once per page)
NOTICE = "È disponibile una nuova versione del sito."
RELOAD = "Ricarica"
BODY_END = "</body>"


def notice_template() -> str:
    """The notice as offline.mjs shows it: a status line with its button (offline.mjs adds the click)."""
    return (f'<template id="{TEMPLATE_ID}"><div id="{NOTICE_ID}" class="calc-update" role="status">'
            f"<span>{html.escape(NOTICE)}</span> "
            f'<button type="button" class="md-button md-button--primary">{html.escape(RELOAD)}</button>'
            "</div></template>")


def add_update_notice(site: Path) -> None:
    """Put the template before ``</body>`` of every page (once: a page that has it is left alone)."""
    template = notice_template()
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if f'id="{TEMPLATE_ID}"' in text:
            continue
        if text.count(BODY_END) != 1:
            raise SystemExit(f"{page}: expected one {BODY_END} for the update notice")
        page.write_text(text.replace(BODY_END, template + BODY_END), encoding="utf-8")
