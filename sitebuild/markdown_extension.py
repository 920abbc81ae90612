"""Python-Markdown extension: calculators, computed figures and MathML.

Plain Python-Markdown, no MkDocs hook, so any tool that runs Markdown
extensions (MkDocs, Zensical) builds the same pages.

* A line ``[[calcolatore <id>]]`` becomes the calculator's form with its
  default results, rendered by the ``calculator`` package and marked with the
  engine's version, followed by a tiny inline script
  (``docs/assets/javascripts/engine-start.js``) that starts the engine's worker
  while the rest of the page is still being parsed.
* ``[[da-provare-dopo <id>]]`` lists the site's other calculators, and
  ``[[schede]]`` shows them all as cards, with titles and summaries taken
  from the package.
* ``{{ <id>:<example>:<key> }}`` becomes a figure computed by the package for
  a named example of that calculator: a result with its unit, or an input;
  add ``:numero`` for the bare number.
* ``$…$`` and ``$$…$$`` (alone on their lines) become MathML, so formulas
  need no script and no network. Italian numbers inside keep their commas.
"""

from __future__ import annotations

import functools
import itertools
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from latex2mathml.converter import convert
from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from calculator import CALCULATORS, get
from calculator.form.evaluate import Evaluation, evaluate
from calculator.form.numbers import format_decimal
from calculator.form.render import FEEDS_MARK, feed_links, render

from .engine import pyodide_version

DIRECTIVE = re.compile(r"^\[\[calcolatore ([a-z0-9-]+)\]\]\s*$")
SIBLINGS = re.compile(r"^\[\[da-provare-dopo ([a-z0-9-]+)\]\]\s*$")
CARDS = re.compile(r"^\[\[schede\]\]\s*$")
FIGURE = re.compile(r"\{\{\s*([a-z0-9-]+):([a-z0-9_]+):([a-z0-9_]+)(:numero)?\s*\}\}")
DISPLAY_MATH = re.compile(r"^\$\$(.+?)\$\$\s*$")
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]+?)\$")
ITALIAN_NUMBER = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+,\d+")
ENGINE_START = Path(__file__).resolve().parent.parent / "docs" / "assets" / "javascripts" / "engine-start.js"


@functools.cache
def example_evaluation(calculator_id: str, example: str) -> Evaluation:
    """A named example of a calculator, computed once per build however many figures quote it."""
    calc = get(calculator_id)
    evaluation = evaluate(calc, {**calc.defaults, **calc.examples[example]})
    if evaluation.status != "ok":
        raise ValueError(f"example {calculator_id}:{example} does not compute: {evaluation.errors}")
    return evaluation


def figure(calculator_id: str, example: str, key: str, bare: bool = False) -> str:
    """A figure of a named example, formatted as the page shows it."""
    evaluation = example_evaluation(calculator_id, example)
    if key in evaluation.results:
        value = evaluation.outputs[key]
        return format_decimal(value) if bare and isinstance(value, Decimal) else evaluation.results[key]
    value_in = evaluation.values[key]
    return format_decimal(value_in) if isinstance(value_in, Decimal) else str(value_in)


def mathml(latex: str, display: bool) -> str:
    """LaTeX to MathML, keeping Italian numbers (``0,5``, ``1.000``) whole."""
    numbers: list[str] = []

    def hold(match: re.Match[str]) -> str:
        numbers.append(match.group(0))
        return f"9{len(numbers) - 1:04d}7"

    markup = convert(ITALIAN_NUMBER.sub(hold, latex), display="block" if display else "inline")
    for index, number in enumerate(numbers):
        markup = markup.replace(f"<mn>9{index:04d}7</mn>", f"<mn>{number}</mn>")
    return markup


@functools.cache
def engine_start() -> str:
    """The inline script that starts the engine's worker early, without its leading comment (the build
    adds its hash to the Content-Security-Policy)."""
    lines = ENGINE_START.read_text(encoding="utf-8").splitlines(keepends=True)
    code = "".join(itertools.dropwhile(lambda line: line.startswith("//"), lines))
    return f"<script>\n{code}</script>\n"


def sibling_links(calculator_id: str) -> list[str]:
    """Markdown list of the other calculators; MkDocs checks and rewrites the links."""
    get(calculator_id)
    return [f"- [**{c.title}**]({c.id}.md): {c.summary}" for c in CALCULATORS.values() if c.id != calculator_id]


def cards() -> list[str]:
    """Every calculator as a card linking to its page."""
    lines = ['<div class="cards" markdown>', ""]
    for calc in CALCULATORS.values():
        lines += [f"[**{calc.title}** {calc.summary}]({calc.id}.md){{ .card }}", ""]
    return [*lines, "</div>"]


def feed_list(calculator_id: str) -> list[str]:
    """The links that carry a calculator's results to its siblings, as Markdown: links to the sibling's
    ``.md`` page, which MkDocs and Zensical both turn into the right address (they treat raw HTML links
    differently); the page script then keeps each query current."""
    lines = []
    for feed, query in feed_links(get(calculator_id)):
        hidden = "" if query else ' hidden=""'  # not offered by the default values; the page script shows it
        lines.append(f'- [{feed.label}]({feed.target}.md{query or ""}){{ .calc__feed data-feed="{feed.id}"{hidden} }}')
    return lines


class CalculatorPreprocessor(Preprocessor):
    """Expands directives, figures and math before Markdown parses the text."""

    def calculator(self, calculator_id: str) -> list[str]:
        """The form (raw HTML), its feed links (Markdown, inside it) and the inline start script."""
        form = render(get(calculator_id), attributes={"engine": pyodide_version()}) + "\n" + engine_start()
        before, _, after = form.partition(FEEDS_MARK)
        if not after:
            return ["", self.md.htmlStash.store(form), ""]
        return ["", self.md.htmlStash.store(before), "", *feed_list(calculator_id), "", self.md.htmlStash.store(after), ""]

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        for line in lines:
            line = FIGURE.sub(lambda m: figure(m[1], m[2], m[3], bool(m[4])), line)
            if directive := DIRECTIVE.match(line):
                out.extend(self.calculator(directive[1]))
            elif siblings := SIBLINGS.match(line):
                out.extend(["", *sibling_links(siblings[1]), ""])
            elif CARDS.match(line):
                out.extend(["", *cards(), ""])
            elif display := DISPLAY_MATH.match(line.strip()):
                # Wrapped, so that a long formula scrolls on a narrow screen instead of widening the page.
                formula = f'<div class="formula">{mathml(display[1].strip(), True)}</div>'
                out.extend(["", self.md.htmlStash.store(formula), ""])
            else:
                out.append(INLINE_MATH.sub(lambda m: self.md.htmlStash.store(mathml(m[1], False)), line))
        return out


class CalculatorExtension(Extension):
    """Registers the preprocessor."""

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Markdown's API name
        md.preprocessors.register(CalculatorPreprocessor(md), "calcolatori", 28)


def makeExtension(**kwargs: Any) -> CalculatorExtension:  # noqa: N802 - Markdown's API name
    return CalculatorExtension(**kwargs)
