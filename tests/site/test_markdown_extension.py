"""The Markdown extension: calculators, computed figures, MathML."""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest

from calculator.form.tables import table_html
from calculator.llm.optimizers import RECIPES
from calculator.pages.vram import optimizer_table
from sitebuild.content_security import InlineStyleError, check_no_inline_styles
from sitebuild.leftovers import LeftoverPlaceholderError, check_leftovers, find_leftovers
from sitebuild.markdown_extension import DirectiveError, figure, mathml

from ..conftest import ROOT


def md(text: str) -> str:
    return markdown.markdown(text, extensions=["sitebuild.markdown_extension"])


@pytest.mark.parametrize(
    ("example", "key", "bare", "expected"),
    [
        ("predefinito", "micro_batch", False, "4"),
        ("predefinito", "activation_per_sample_gb", False, "0,5"),
        ("predefinito", "effective_batch", False, "32"),
        ("predefinito", "activation_memory", False, "2 GB"),
        ("predefinito", "activation_memory", True, "2"),
        ("quattro_gpu", "data_parallel_gpus", False, "4"),
        ("quattro_gpu", "effective_batch", False, "128"),
    ],
)
def test_figures_come_from_the_module(example: str, key: str, bare: bool, expected: str) -> None:
    assert figure("accumulo-del-gradiente", example, key, bare) == expected


def test_figure_placeholders_are_replaced() -> None:
    html = md("Il batch sale a {{ accumulo-del-gradiente:quattro_gpu:effective_batch }}.")
    assert html == "<p>Il batch sale a 128.</p>"


@pytest.mark.parametrize(("line", "said"), [
    ("{{ accumulo-del-gradiente:inesistente:effective_batch }}", "esempio sconosciuto «inesistente»"),
    ("{{ accumulo-del-gradient:predefinito:effective_batch }}", "calcolatore sconosciuto «accumulo-del-gradient»"),
    ("Il batch è {{ accumulo-del-gradiente:predefinito:effective_bach }}.", "«effective_bach» non è"),
    ("[[calcolatore accumulo-del-gradient]]", "calcolatore sconosciuto"),
    ("[[da-provare-dopo vram]]", "calcolatore sconosciuto «vram»"),
    ("[[tabella vram-addestramento-llm ricette]]", "tabella sconosciuta «ricette»"),
    ("[[grafico vram-addestramento-llm torte]]", "grafico sconosciuto «torte»"),
    ("Vedi [[grafico vram-addestramento-llm parallelismi]] qui.", "fuori da una direttiva"),
    ("Il batch è {{ accumulo-del-gradiente:predefinito }}.", "fuori da una direttiva"),
    ("{{accumulo-del-gradiente:predefinito:effective batch}}", "fuori da una direttiva"),
    ("[[calcolatore]]", "fuori da una direttiva"),
    ("Vedi [[tabella vram-addestramento-llm ottimizzatori]] qui.", "fuori da una direttiva"),
])
def test_unknown_or_mistyped_placeholders_fail_the_build(line: str, said: str) -> None:
    """Never published as literal text: the error names the page, the line and what is wrong."""
    with pytest.raises(DirectiveError) as caught:
        md(f"# Pagina di prova\n\nTesto.\n\n{line}\n")
    message = str(caught.value)
    assert said in message and "pagina «Pagina di prova», riga 5" in message and line.strip() in message


def test_braces_in_code_and_math_are_left_alone() -> None:
    html = md("```yaml\nconfig: {{ non_un_segnaposto }}\nlista: [[1, 2]]\n```\n\n    [[indentato]]\n\n$x_{{i}}$\n")
    assert "{{ non_un_segnaposto }}" in html and "[[1, 2]]" in html and "[[indentato]]" in html


def test_generated_table_comes_from_the_module_without_inline_styles() -> None:
    html = md("[[tabella vram-addestramento-llm ottimizzatori]]")
    assert html == table_html(optimizer_table())
    rows = [(r.label, r.weights) for r in RECIPES.values()]
    assert all(f"<td>{label}</td><td class=\"calc-num\">{weights}</td>" in html for label, weights in rows)
    assert "style=" not in html and html.count("<tr>") == len(RECIPES) + 1


def test_generated_chart_comes_from_the_module_without_inline_styles() -> None:
    from calculator.pages.vram import parallel_figure

    html = md("[[grafico vram-addestramento-llm parallelismi]]")
    assert html == f'<figure class="calc-figure">{parallel_figure()}</figure>'
    assert "style" not in html and 'role="img"' in html and '<ul class="calc-legend"' in html


def test_calculator_directive_renders_the_form_with_results() -> None:
    html = md("[[calcolatore accumulo-del-gradiente]]")
    assert 'data-calculator="accumulo-del-gradiente"' in html
    assert '<output data-output="effective_batch" aria-live="off">32</output>' in html
    assert "<p>" not in html.split("<form", 1)[0]


def test_math_becomes_mathml_and_keeps_italian_numbers() -> None:
    block = mathml(r"M = 4 \times 0,5 = 2\,\text{GB}", display=True)
    assert block.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">')
    assert "<mn>0,5</mn>" in block and "<mtext>GB</mtext>" in block
    assert "<mn>1.048.576</mn>" in mathml("1.048.576", display=False)
    html = md("Con $b$ campioni.\n\n$$E = b \\cdot a \\cdot g$$\n")
    assert html.count("<math") == 2 and 'display="inline"' in html and "$" not in html


@pytest.mark.parametrize("article", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_articles_hold_no_control_characters(article: str) -> None:
    """A LaTeX command written through a Python string once lost its backslash to an escape ("\\text" became a tab
    and "ext"): the formula rendered wrong with no error. Articles are plain text: newlines only."""
    text = (ROOT / "docs" / article).read_text(encoding="utf-8")
    found = [(n, line) for n, line in enumerate(text.splitlines(), 1) if any(ord(c) < 32 for c in line)]
    assert found == []


def test_a_leftover_in_a_built_page_is_named_with_its_line(tmp_path: Path) -> None:
    page = tmp_path / "pagina" / "index.html"
    page.parent.mkdir()
    page.write_text('<html>\n<script>var a = [[1]];</script>\n<article class="md-content">\n<p>Ok</p>\n'
                    "<pre><code>{{ codice }}</code></pre>\n<p>Il batch è {{ acc:es:chiave }}.</p>\n</article>\n</html>\n")
    assert find_leftovers(tmp_path) == ["pagina/index.html:6: <p>Il batch è {{ acc:es:chiave }}.</p>"]
    with pytest.raises(LeftoverPlaceholderError, match=r"pagina/index\.html:6"):
        check_leftovers(tmp_path)


def test_an_inline_style_in_a_built_page_fails_the_build(tmp_path: Path) -> None:
    page = tmp_path / "pagina" / "index.html"
    page.parent.mkdir()
    page.write_text('<html>\n<table><tr><td align="right">1</td><td class="calc-num">2</td></tr>\n'
                    '<tr><td style="text-align: right;">3</td></tr></table>\n</html>\n')
    with pytest.raises(InlineStyleError, match=r"pagina/index\.html:3"):
        check_no_inline_styles(tmp_path)
    page.write_text('<html>\n<table><tr><td align="right">1</td></tr></table>\n</html>\n')
    check_no_inline_styles(tmp_path)


def test_markdown_tables_align_by_attribute() -> None:
    html = markdown.markdown("| a | b |\n| --- | ---: |\n| 1 | 2 |\n", extensions=["tables"],
                             extension_configs={"tables": {"use_align_attribute": True}})
    assert 'align="right"' in html and "style=" not in html
