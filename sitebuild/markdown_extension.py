"""Python-Markdown extension: calculators, computed figures and MathML.

Plain Python-Markdown, no MkDocs hook, so any tool that runs Markdown
extensions (MkDocs, Zensical) builds the same pages.

* A line ``[[calcolatore <id>]]`` becomes the calculator's form with its
  default results, rendered by the ``calculator`` package and marked with the
  engine's version, followed by a tiny inline script
  (``docs/assets/javascripts/page-fallback.js``) that says so, and keeps what the
  reader types, if the page script does not load. (The engine's early start goes
  at the top of the page's ``<head>``, after the build: ``sitebuild.early_start``.)
* ``[[da-provare-dopo <id>]]`` lists the site's other calculators, and
  ``[[schede]]`` shows them all as cards, with titles and summaries taken
  from the package.
* ``{{ <id>:<example>:<key> }}`` becomes a figure computed by the package for
  a named example of that calculator: a result with its unit, or an input;
  add ``:numero`` for the bare number.
* ``[[tabella <id> <name>]]`` becomes a table the calculator builds from the
  data it restates (``Calculator.tables``), so an article never copies it.
* ``[[grafico <id> <name>]]`` becomes a chart the calculator draws from its module (``Calculator.figures``):
  an SVG with its title and description, and its legend as HTML text after it.
* An unknown calculator, example, field, result, table or chart fails the build with
  the line and its text; so does a ``{{`` or ``[[`` that is not a directive.
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
from calculator.form.model import Calculator
from calculator.form.numbers import format_decimal
from calculator.form.render import FEEDS_MARK, feed_links, render
from calculator.form.tables import table_html

from .engine import pyodide_version

DIRECTIVE = re.compile(r"^\[\[calcolatore ([a-z0-9-]+)\]\]\s*$")
SIBLINGS = re.compile(r"^\[\[da-provare-dopo ([a-z0-9-]+)\]\]\s*$")
CARDS = re.compile(r"^\[\[schede\]\]\s*$")
TABLE = re.compile(r"^\[\[tabella ([a-z0-9-]+) ([a-z0-9_-]+)\]\]\s*$")
CHART = re.compile(r"^\[\[grafico ([a-z0-9-]+) ([a-z0-9_-]+)\]\]\s*$")
LEFTOVER = re.compile(r"\{\{|\[\[")
FIGURE = re.compile(r"\{\{\s*([a-z0-9-]+):([a-z0-9_]+):([a-z0-9_]+)(:numero)?\s*\}\}")
DISPLAY_MATH = re.compile(r"^\$\$(.+?)\$\$\s*$")
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]+?)\$")
ITALIAN_NUMBER = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+,\d+")
PAGE_FALLBACK = Path(__file__).resolve().parent.parent / "docs" / "assets" / "javascripts" / "page-fallback.js"


class DirectiveError(ValueError):
    """A directive or figure that names something that does not exist, or a leftover ``{{``/``[[``."""


def _calculator(calculator_id: str) -> Calculator:
    if calculator_id not in CALCULATORS:
        raise DirectiveError(f"calcolatore sconosciuto «{calculator_id}» (esistono: {', '.join(CALCULATORS)})")
    return get(calculator_id)


@functools.cache
def example_evaluation(calculator_id: str, example: str) -> Evaluation:
    """A named example of a calculator, computed once per build however many figures quote it."""
    calc = _calculator(calculator_id)
    if example not in calc.examples:
        raise DirectiveError(f"esempio sconosciuto «{example}» di {calculator_id} (esistono: {', '.join(calc.examples)})")
    evaluation = evaluate(calc, {**calc.defaults, **calc.examples[example]})
    if evaluation.status != "ok":
        raise ValueError(f"example {calculator_id}:{example} does not compute: {evaluation.errors}")
    return evaluation


def figure(calculator_id: str, example: str, key: str, bare: bool = False) -> str:
    """A figure of a named example, formatted as the page shows it."""
    evaluation = example_evaluation(calculator_id, example)
    if key not in evaluation.outputs and key not in evaluation.values:
        raise DirectiveError(f"«{key}» non è né un risultato né un campo di {calculator_id}")
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


def _inline_script(path: Path) -> str:
    """A script to inline, without its leading comment (the build adds its hash to the Content-Security-Policy)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    code = "".join(itertools.dropwhile(lambda line: line.startswith("//"), lines))
    return f"<script>\n{code}</script>\n"


@functools.cache
def inline_scripts() -> str:
    """The inline script after a form: the fallback that speaks when the page script does not load or run
    (``page-fallback.js``)."""
    return _inline_script(PAGE_FALLBACK)


def table(calculator_id: str, name: str) -> str:
    """A table the calculator builds from its data."""
    calc = _calculator(calculator_id)
    if name not in calc.tables:
        raise DirectiveError(f"tabella sconosciuta «{name}» di {calculator_id} (esistono: {', '.join(calc.tables)})")
    return table_html(calc.tables[name]())


def chart(calculator_id: str, name: str) -> str:
    """A chart the calculator draws from its module, in a ``figure`` that the stylesheet sizes."""
    calc = _calculator(calculator_id)
    if name not in calc.figures:
        raise DirectiveError(f"grafico sconosciuto «{name}» di {calculator_id} (esistono: {', '.join(calc.figures)})")
    return f'<figure class="calc-figure">{calc.figures[name]()}</figure>'


def sibling_links(calculator_id: str) -> list[str]:
    """Markdown list of the other calculators; MkDocs checks and rewrites the links."""
    _calculator(calculator_id)
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


def form_attributes() -> dict[str, str]:
    """What the build writes on every form: the engine's version, and the worker's path from the site's root
    (written once, here). Raw HTML is not rewritten by MkDocs or Zensical and a page's depth is unknown here, so
    the page script resolves it against the root it finds (engine-client.mjs). No leading "/"."""
    return {"engine": pyodide_version(), "worker": "assets/javascripts/engine-worker.mjs"}


class CalculatorPreprocessor(Preprocessor):
    """Expands directives, figures and math before Markdown parses the text."""

    def calculator(self, calculator_id: str) -> list[str]:
        """The form (raw HTML), its feed links (Markdown, inside it) and the inline fallback script."""
        form = render(_calculator(calculator_id), attributes=form_attributes()) + "\n" + inline_scripts()
        before, _, after = form.partition(FEEDS_MARK)
        if not after:
            return ["", self.md.htmlStash.store(form), ""]
        return ["", self.md.htmlStash.store(before), "", *feed_list(calculator_id), "", self.md.htmlStash.store(after), ""]

    def run(self, lines: list[str]) -> list[str]:
        title = next((line.lstrip("# ").strip() for line in lines if line.startswith("# ")), "")
        out: list[str] = []
        fence = ""
        for number, line in enumerate(lines, start=1):
            marker = line.lstrip()[:3]
            if marker in ("```", "~~~") and (not fence or marker == fence):
                fence = "" if fence else marker
                out.append(line)
                continue
            try:
                out.extend([line] if fence else self.expand(line))
            except (DirectiveError, KeyError) as error:
                where = f"pagina «{title}», " if title else ""
                raise DirectiveError(f"{where}riga {number} del Markdown (dopo l'intestazione YAML):"
                                     f" {line.strip()!r}: {error}") from error
        return out

    def expand(self, line: str) -> list[str]:
        """One line of the article, with its directive, figures or math expanded."""
        line = FIGURE.sub(lambda m: figure(m[1], m[2], m[3], bool(m[4])), line)
        if directive := DIRECTIVE.match(line):
            return self.calculator(directive[1])
        if siblings := SIBLINGS.match(line):
            return ["", *sibling_links(siblings[1]), ""]
        if CARDS.match(line):
            return ["", *cards(), ""]
        if generated := TABLE.match(line):
            return ["", self.md.htmlStash.store(table(generated[1], generated[2])), ""]
        if drawn := CHART.match(line):
            return ["", self.md.htmlStash.store(chart(drawn[1], drawn[2])), ""]
        if display := DISPLAY_MATH.match(line.strip()):
            # Wrapped, so that a long formula scrolls on a narrow screen instead of widening the page.
            formula = f'<div class="formula">{mathml(display[1].strip(), True)}</div>'
            return ["", self.md.htmlStash.store(formula), ""]
        if not line.startswith("    ") and LEFTOVER.search(INLINE_MATH.sub("", line)):
            raise DirectiveError("«{{» o «[[» fuori da una direttiva: scrivi la direttiva per intero"
                                 " ([[calcolatore id]], [[tabella id nome]], [[grafico id nome]], {{ id:esempio:chiave }})")
        return [INLINE_MATH.sub(lambda m: self.md.htmlStash.store(mathml(m[1], False)), line)]


class CalculatorExtension(Extension):
    """Registers the preprocessor."""

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Markdown's API name
        md.preprocessors.register(CalculatorPreprocessor(md), "calcolatori", 28)


def makeExtension(**kwargs: Any) -> CalculatorExtension:  # noqa: N802 - Markdown's API name
    return CalculatorExtension(**kwargs)
