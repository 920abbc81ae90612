"""Accessibility fixes for markup of the theme that no setting reaches, applied to the built pages.

Each fix names the exact markup it expects; if a theme update changes it, the
build fails here instead of silently shipping the gap again.
"""

from __future__ import annotations

from pathlib import Path

FIXES = [
    # Material's search overlay is a dialog with no name (axe: aria-dialog-name); Zensical names it.
    (
        '<div class="md-search" data-md-component="search" role="dialog">',
        '<div class="md-search" data-md-component="search" role="dialog" aria-label="Cerca nel sito">',
        '<div class="md-search" data-md-component="search" role="dialog" aria-label=',
    ),
]


def apply_theme_fixes(site: Path) -> None:
    """Apply each fix (``before`` → ``after``); a page already showing ``fixed`` needs none."""
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for before, after, fixed in FIXES:
            if before not in html and fixed not in html:
                raise SystemExit(f"theme markup changed in {page}: {before!r} not found")
            html = html.replace(before, after)
        page.write_text(html, encoding="utf-8")
