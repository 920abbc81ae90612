"""The Content-Security-Policy of the built site.

Only the site itself, plus ``'wasm-unsafe-eval'`` so that Pyodide can compile
WebAssembly, and the hashes of the theme's few inline scripts; no inline style
(tables align by attribute, generated tables by class), which ``check_no_inline_styles``
keeps true. The policy goes into every page as a ``<meta>`` tag (so hosts that set
no headers still apply it) and into the host header files (which also cover the workers).
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

EXECUTABLE_TYPES = {"", "text/javascript", "application/javascript", "module"}


class _InlineScripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            found = dict(attrs)
            self._inside = "src" not in found and (found.get("type") or "") in EXECUTABLE_TYPES
            if self._inside:
                self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.scripts[-1] += data


def inline_script_hashes(site: Path) -> list[str]:
    """CSP source expressions for every inline script of every page."""
    hashes = set()
    for page in site.rglob("*.html"):
        parser = _InlineScripts()
        parser.feed(page.read_text(encoding="utf-8"))
        for script in parser.scripts:
            digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
            hashes.add(f"'sha256-{digest}'")
    return sorted(hashes)


def policy(site: Path, for_meta: bool = False) -> str:
    """The policy for this build; a ``<meta>`` tag cannot carry frame-ancestors. Zensical's theme sets styles
    inline as it runs, so a Zensical build (its search index is ``search.json``) allows inline styles."""
    zensical = (site / "search.json").exists() and not (site / "search" / "search_index.json").exists()
    directives = [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval' " + " ".join(inline_script_hashes(site)),
        "worker-src 'self'",
        "connect-src 'self'",
        "img-src 'self' data:",
        "style-src 'self' 'unsafe-inline'" if zensical else "style-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ]
    if not for_meta:
        directives.append("frame-ancestors 'none'")
    return "; ".join(d.strip() for d in directives)


INLINE_STYLE = re.compile(r"<style\b|<[a-z][^>]*\sstyle=", re.I)


class InlineStyleError(RuntimeError):
    """A built page carries a ``style`` attribute or element, which the policy would block."""


def check_no_inline_styles(site: Path) -> None:
    """Fail the build, naming the page and line, where a page would need ``'unsafe-inline'`` styles."""
    found = []
    for page in sorted(site.rglob("*.html")):
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            if INLINE_STYLE.search(line):
                found.append(f"{page.relative_to(site).as_posix()}:{number}: {line.strip()[:120]}")
    if found:
        raise InlineStyleError("Stili in linea, che la Content-Security-Policy blocca:\n" + "\n".join(found))


def add_meta_policy(site: Path) -> None:
    """Insert the policy as the first element of every page's <head>."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(site, for_meta=True)}">'
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        if 'http-equiv="Content-Security-Policy"' not in html:
            page.write_text(html.replace("<head>", "<head>\n" + meta, 1), encoding="utf-8")
