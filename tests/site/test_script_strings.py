"""The page's module scripts hold no Italian sentence: what they show comes from the rendered page (the form's data-*
attributes, written by calculator/form/render.py; the update notice's template, by sitebuild/update_notice.py). Left
out, and why: page-fallback.js speaks when the page's modules did not load, so its words must travel with it."""

from __future__ import annotations

import re

import pytest

from ..conftest import ROOT

SCRIPTS = ROOT / "docs" / "assets" / "javascripts"
OWN_WORDS = {"page-fallback.js"}
ITALIAN = re.compile(r"[àèéìòùÀÈÉÌÒÙ«»]")


def code_lines(text: str) -> list[tuple[int, str]]:
    """Each line without its comment (a line comment, a JSDoc or block comment line, a trailing `` // ``)."""
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("//", "/*", "*")):
            continue
        lines.append((number, line.split(" // ", 1)[0]))
    return lines


@pytest.mark.parametrize("script", sorted(p.name for p in SCRIPTS.glob("*.*js") if p.name not in OWN_WORDS))
def test_a_module_script_holds_no_italian_sentence(script: str) -> None:
    found = [f"{script}:{n}: {line.strip()}" for n, line in code_lines((SCRIPTS / script).read_text())
             if ITALIAN.search(line)]
    assert found == []


def test_the_check_sees_a_sentence_in_code() -> None:
    sample = 'const NOTE = "Sono i valori che avevi lasciato qui l\'ultima volta; «Ripristina» li dimentica.";\n'
    assert [n for n, line in code_lines(sample) if ITALIAN.search(line)] == [1]
    assert code_lines("// «Ripristina»\n * «Ripristina»\nx(); // «commento»\n") == [(3, "x();")]
