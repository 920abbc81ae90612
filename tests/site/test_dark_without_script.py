"""The dark palette restated for a page the theme's script has not styled (sitebuild/dark_without_script.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitebuild.dark_without_script import BODY, MARKER, Palette, PaletteError, dark_rules, palettes, rewrite_selector

LIGHT = Palette("default", "indigo", "deep-orange")
DARK = Palette("slate", "indigo", "amber")
ON_LIGHT = BODY.format(scheme="default")

# name: (selector of the theme or ours, the selector restated for a light-palette page, or None: left out)
SELECTORS = {
    "the dark scheme": ("[data-md-color-scheme=slate]", ON_LIGHT),
    "quoted, with a descendant": ('[data-md-color-scheme="slate"] .calc-part-0', f"{ON_LIGHT} .calc-part-0"),
    "the dark scheme with its primary": ("[data-md-color-scheme=slate][data-md-color-primary=indigo]", ON_LIGHT),
    "the dark scheme with another primary": ("[data-md-color-scheme=slate][data-md-color-primary=pink]", None),
    "the dark palette's own accent": ("[data-md-color-accent=amber]", ON_LIGHT),
    "another accent": ("[data-md-color-accent=lime]", None),
    "a primary both palettes share": ("[data-md-color-primary=indigo]", None),
    "the light scheme": ("[data-md-color-scheme=default]", None),
    "a rule for light pages only": ("[data-md-color-primary=amber]:not([data-md-color-scheme=slate])", None),
    "no palette at all": (".md-typeset a", None),
    "the attributes split by another selector": ("[data-md-color-scheme=slate].x[data-md-color-primary=indigo]", None),
    "glued to another compound": ("body[data-md-color-scheme=slate]", None),
}


@pytest.mark.parametrize(("selector", "expected"), SELECTORS.values(), ids=SELECTORS.keys())
def test_selectors_are_restated_for_the_dark_palette_only(selector: str, expected: str | None) -> None:
    assert rewrite_selector(selector, LIGHT, DARK) == expected


def test_a_stylesheet_keeps_its_declarations_and_at_rules() -> None:
    css = ("/* c */[data-md-color-accent=amber],[data-md-color-accent=lime]{--a:#fa0}"
           "@media screen{[data-md-color-scheme=slate]{color-scheme:dark;--b:1}.x{--c:2}}"
           "@font-face{font-family:x}[data-md-color-primary=indigo]{--d:3}")
    assert dark_rules(css, LIGHT, DARK) == [
        f"{ON_LIGHT}{{--a:#fa0}}",
        f"@media screen{{{ON_LIGHT}{{color-scheme:dark;--b:1}}}}",
    ]


def test_palettes_are_read_from_the_toggle(site_dir: Path) -> None:
    assert palettes((site_dir / "index.html").read_text(encoding="utf-8")) == (LIGHT, DARK)
    with pytest.raises(PaletteError):
        palettes("<html><body>no toggle</body></html>")


def test_the_built_stylesheet_carries_the_dark_palette_once(site_dir: Path) -> None:
    [sheet] = (site_dir / "assets" / "stylesheets").glob("calculators.*.css")
    css = sheet.read_text(encoding="utf-8")
    assert css.count(MARKER) == 1
    block = css[css.index(MARKER):]
    assert block.count("@media (prefers-color-scheme: dark){") == 1
    # The theme's dark variables, its dark accent and our own dark colours, all on a light-palette page.
    assert re.search(re.escape(ON_LIGHT) + r"\{color-scheme:dark;--md-default-fg-color:", block)
    assert f"{ON_LIGHT}{{--md-accent-fg-color:#fa0;" in block
    assert f"{ON_LIGHT} .calc-part-0{{fill: #9fa8da;}}" in block
