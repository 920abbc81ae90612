"""The last guard against a placeholder published as text: no ``{{`` or ``[[`` in any built article.

The Markdown extension already refuses unknown names; this check also catches what reaches the page another way
(a theme override, an include, a tool that skipped the extension). Code blocks are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

ARTICLE = re.compile(r"<article\b.*?</article>", re.S)
CODE = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S)
LEFTOVER = re.compile(r"\{\{|\[\[")


class LeftoverPlaceholderError(RuntimeError):
    """A built page shows ``{{`` or ``[[`` outside code."""


def find_leftovers(site: Path) -> list[str]:
    """``page:line: text`` for every leftover in the articles of the built site."""
    found = []
    for page in sorted(site.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        for article in ARTICLE.finditer(html):
            text = CODE.sub(lambda m: "\n" * m.group(0).count("\n"), article.group(0))
            for offset, line in enumerate(text.splitlines()):
                if LEFTOVER.search(line):
                    number = html.count("\n", 0, article.start()) + offset + 1
                    found.append(f"{page.relative_to(site).as_posix()}:{number}: {line.strip()[:120]}")
    return found


def check_leftovers(site: Path) -> None:
    if found := find_leftovers(site):
        raise LeftoverPlaceholderError("Segnaposto rimasti nel sito costruito:\n" + "\n".join(found))
