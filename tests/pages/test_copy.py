"""The pages' copy says what the forms do (issue 25): limits that name no feature the form has, the VRAM article
pointing at the activation page, no English footer, no repeated home title, one copy control per code block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from calculator import CALCULATORS
from calculator.form.model import Format
from calculator.form.render import render

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# A limit names a feature the calculator leaves out; the fields that would contradict it.
FEATURES = [
    (r"\bbias\b", {"bias", "linear_bias", "model_biases"}),
    (r"\bDoRA\b", {"use_dora"}),
    (r"adattatori di embedding|\bembed_tokens\b", {"embed_tokens"}),
    (r"contesto CUDA|overhead del framework|frammentazione", {"reserve_gb"}),
    (r"\bZeRO\b", {"zero_stage"}),
    (r"checkpointing", {"checkpointing"}),
    (r"stato dell'ottimizzatore|stati del modello", {"model_states_gb", "optimizer"}),
]
LEAVES_OUT = re.compile(r"non (?:include|includono|conta|contano|considera)|esclu[sd]", re.I)


def limits(text: str) -> list[str]:
    """The sentences of an article that say what its estimate leaves out."""
    sentences = re.split(r"(?<=[.;:])\s+", text)
    return [s for s in sentences if LEAVES_OUT.search(s)]


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_the_limits_name_no_feature_the_form_has(calculator_id: str) -> None:
    fields = {spec.id for spec in CALCULATORS[calculator_id].fields}
    for sentence in limits((DOCS / f"{calculator_id}.md").read_text(encoding="utf-8")):
        for pattern, contradicting in FEATURES:
            if re.search(pattern, sentence):
                assert not fields & contradicting, (pattern, sentence)


def test_the_limits_are_found() -> None:
    """The check reads the sentences it should (a limit that names a feature is caught)."""
    found = limits("Il conto è esatto. Non include bias; non contano DoRA né gli adattatori di embedding.")
    assert found == ["Non include bias;", "non contano DoRA né gli adattatori di embedding."]


def test_the_vram_article_takes_activations_from_the_activation_page() -> None:
    text = (DOCS / "vram-addestramento-llm.md").read_text(encoding="utf-8")
    for sentence in re.split(r"(?<=\.)\s+", text):
        if re.search(r"attivazioni[^.]*si (?:calcolano|stimano) con", sentence):
            named = re.search(r"si (?:calcolano|stimano) con il \[[^]]*\]\(([^)]*)\)", sentence)
            assert named is not None and named[1] == "memoria-attivazioni.md", sentence


def test_no_english_footer_and_no_repeated_home_title() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^extra:\n(?:  .*\n)*  generator: false$", config, re.M)  # no "Made with Material for MkDocs"
    site_name = re.search(r"^site_name: (.*)$", config, re.M)
    assert site_name is not None
    home = (DOCS / "index.md").read_text(encoding="utf-8")
    front = home.split("---")[1]
    # Material titles the home page with the site name alone unless the page sets its own title.
    assert not re.search(r"^title:", front, re.M)


@pytest.mark.parametrize("calculator_id", [c.id for c in CALCULATORS.values()
                                           if any(r.format is Format.CODE for r in c.results)])
def test_one_copy_control_per_code_block(calculator_id: str) -> None:
    """Our copy button beside each config; Material's own (content.code.copy) skips blocks inside .no-copy."""
    html = render(CALCULATORS[calculator_id])
    blocks = re.findall(r"<pre[^>]*>", html)
    assert blocks and all('class="no-copy"' in block for block in blocks)
    snippets = [r.id for r in CALCULATORS[calculator_id].results if r.format is Format.CODE]
    for result_id in snippets:
        assert html.count(f'data-copy="{result_id}"') == 1
