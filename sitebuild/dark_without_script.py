"""The dark palette for a reader who prefers it, before the theme's script runs or without it.

The theme chooses between its light and dark palettes by script: until its bundle runs (or forever, without
JavaScript) the page wears the first palette, the light one, even for a reader whose system asks for dark. This step
restates the theme's dark rules (its palette stylesheet's and ours) for that page: inside
``@media (prefers-color-scheme: dark)``, on ``html.no-js`` (the class the theme's bundle removes first thing) and a
body that wears the light palette by default (``:not([data-md-color-media])``: a reader's own stored choice, which
the theme's inline script writes on the body with its media, is left alone). The rules are appended to our
stylesheet before it is named by its content. The palettes are read from the toggle's inputs in the built home page,
so that the step follows the configuration; if the theme's markup changes, the build fails here.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

OUR_STYLESHEET = Path("assets/stylesheets/calculators.css")
MARKER = "/* calcolatori: dark palette without the theme's script */"
BODY = "html.no-js body[data-md-color-scheme={scheme}]:not([data-md-color-media])"
ATTRIBUTE = re.compile(r"""\[data-md-color-(scheme|primary|accent)=["']?([\w-]+)["']?\]""")
TOGGLE = re.compile(r"<input[^>]*\bdata-md-color-media=\"([^\"]*)\"[^>]*>")


class PaletteError(SystemExit):
    """The theme's palette markup is not what this step reads."""


@dataclass(frozen=True)
class Palette:
    scheme: str
    primary: str
    accent: str


def palettes(home_html: str) -> tuple[Palette, Palette]:
    """The light (first, the page's default) and the dark palette of the toggle."""
    found: dict[str, Palette] = {}
    for match in TOGGLE.finditer(home_html):
        attributes = dict(re.findall(r'data-md-color-(scheme|primary|accent)="([^"]*)"', match.group(0)))
        found.setdefault(match.group(1), Palette(attributes["scheme"], attributes["primary"], attributes["accent"]))
    light, dark = found.get("(prefers-color-scheme: light)"), found.get("(prefers-color-scheme: dark)")
    if light is None or dark is None:
        raise PaletteError("theme markup changed: no light and dark palette toggle in the home page")
    return light, dark


def split_selectors(selectors: str) -> list[str]:
    """A selector list split at its top-level commas."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(selectors):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(selectors[start:at].strip())
            start = at + 1
    parts.append(selectors[start:].strip())
    return parts


def rewrite_selector(selector: str, light: Palette, dark: Palette) -> str | None:
    """The selector for the dark palette's rule on a light-palette body; None where the rule is not the dark one's."""
    if ":not(" in selector and "data-md-color" in selector:
        return None
    matches = list(ATTRIBUTE.finditer(selector))
    if not matches:
        return None
    given = {match.group(1): match.group(2) for match in matches}
    if given.items() - asdict(dark).items():
        return None
    # A rule that names no scheme and a primary or accent both palettes share already applies to the light page.
    if "scheme" not in given and given.items() <= asdict(light).items():
        return None
    start, end = matches[0].start(), matches[-1].end()
    between = ATTRIBUTE.sub("", selector[start:end])
    before = selector[:start]
    if between or (before and not before[-1].isspace() and before[-1] not in ">+~"):
        return None  # the attributes are not one compound of their own: not a shape the theme uses
    return before + BODY.format(scheme=light.scheme) + selector[end:]


def _blocks(css: str) -> list[tuple[str, str]]:
    """Top-level (prelude, body) pairs of a stylesheet without comments."""
    blocks, depth, start, open_at = [], 0, 0, 0
    for at, char in enumerate(css):
        if char == "{":
            if depth == 0:
                open_at = at
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                blocks.append((css[start:open_at].strip(), css[open_at + 1:at]))
                start = at + 1
        elif char == ";" and depth == 0:
            start = at + 1  # a statement at-rule (@charset, @import)
    return blocks


def dark_rules(css: str, light: Palette, dark: Palette) -> list[str]:
    """The dark palette's rules of a stylesheet, restated for a light-palette body."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules = []
    for prelude, body in _blocks(css):
        if prelude.startswith("@"):
            if prelude.startswith(("@media", "@supports")):
                inner = dark_rules(body, light, dark)
                if inner:
                    rules.append(prelude + "{" + "".join(inner) + "}")
            continue
        selectors = [s for s in (rewrite_selector(p, light, dark) for p in split_selectors(prelude)) if s]
        if selectors:
            rules.append(",".join(selectors) + "{" + body.strip() + "}")
    return rules


def add_dark_without_script(site: Path) -> None:
    """Append the dark rules of every stylesheet of the site to ours (once)."""
    light, dark = palettes((site / "index.html").read_text(encoding="utf-8"))
    ours = site / OUR_STYLESHEET
    text = ours.read_text(encoding="utf-8")
    if MARKER in text:
        return
    rules = []
    for sheet in sorted((site / "assets" / "stylesheets").glob("*.css")):
        rules += dark_rules(sheet.read_text(encoding="utf-8"), light, dark)
    if not rules:
        raise PaletteError(f"theme stylesheets changed: no rule of the {dark.scheme!r} palette found")
    ours.write_text(text + f"\n{MARKER}\n@media (prefers-color-scheme: dark){{\n" + "\n".join(rules) + "\n}\n",
                    encoding="utf-8")
