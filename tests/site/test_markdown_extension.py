"""The Markdown extension: calculators, computed figures, MathML."""

from __future__ import annotations

import markdown
import pytest

from sitebuild.markdown_extension import figure, mathml

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


def test_unknown_example_fails_the_build() -> None:
    with pytest.raises(KeyError):
        md("{{ accumulo-del-gradiente:inesistente:effective_batch }}")


def test_calculator_directive_renders_the_form_with_results() -> None:
    html = md("[[calcolatore accumulo-del-gradiente]]")
    assert 'data-calculator="accumulo-del-gradiente"' in html
    assert '<output data-output="effective_batch">32</output>' in html
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
