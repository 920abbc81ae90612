"""The built site: strict build, pre-rendered results, the engine it ships."""

from __future__ import annotations

import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from calculator import get

from .conftest import ROOT

CALCULATOR_PAGES = {"accumulo-del-gradiente": "accumulo-del-gradiente/index.html"}


def page_text(site_dir: Path, relative: str) -> str:
    return (site_dir / relative).read_text(encoding="utf-8")


def visible_text(html: str) -> str:
    """The page's text as a reader sees it, whitespace folded."""

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.parts: list[str] = []
            self.skip = 0

        def handle_starttag(self, tag: str, attrs: object) -> None:
            self.skip += tag in {"script", "style", "math"}

        def handle_endtag(self, tag: str) -> None:
            self.skip -= tag in {"script", "style", "math"}

        def handle_data(self, data: str) -> None:
            if not self.skip:
                self.parts.append(data)

    parser = Text()
    parser.feed(html)
    return re.sub(r"\s+", " ", " ".join(parser.parts))


def test_page_is_prerendered_with_default_results(site_dir: Path) -> None:
    html = page_text(site_dir, CALCULATOR_PAGES["accumulo-del-gradiente"])
    assert 'data-calculator="accumulo-del-gradiente" data-state="loading"' in html
    assert '<output data-output="effective_batch">32</output>' in html
    assert '<output data-output="activation_memory">2 GB</output>' in html
    for spec in get("accumulo-del-gradiente").fields:
        control = re.search(rf'<input type="text" id="([^"]+)" name="{spec.id}" value="([^"]*)"'
                            rf' inputmode="(numeric|decimal)"[^>]*aria-describedby="([^"]+)"', html)
        assert control, spec.id
        assert control[2] == spec.default
        assert f'<label for="{control[1]}">{spec.label}</label>' in html
        described = control[4].split()
        assert any(f'id="{ident}" data-error-for="{spec.id}"' in html for ident in described)
    assert 'aria-live="polite"' in html


def test_article_sections_and_worked_example(site_dir: Path) -> None:
    text = visible_text(page_text(site_dir, CALCULATOR_PAGES["accumulo-del-gradiente"]))
    for heading in [
        "Calcolatore della memoria con accumulo del gradiente",
        "Dati di input", "Batching", "Memoria", "Risultati",
        "Cosa fa l'accumulo del gradiente", "Perché la memoria resta costante", "La formula",
        "Esempio svolto", "Leggere il risultato", "Domande frequenti (FAQ)",
        "Come funziona l'accumulo del gradiente?",
        "Perché la memoria resta costante all'aumentare dei passi di accumulo?",
        "Cosa significa dimensione effettiva del batch?", "Avvertenze legali",
    ]:
        assert heading in text, heading
    assert "Prendiamo un micro-batch di 4 campioni, accumulato su 8 passi" in text
    assert "con un costo di 0,5 GB di attivazioni per campione" in text
    assert "come se il batch fosse di 32 campioni" in text
    assert "non risiedono mai più di 2 GB di attivazioni" in text
    assert "su 4 GPU con parallelismo dei dati, il batch effettivo sale a 128" in text
    assert "resta di 2 GB" in text


def test_formula_and_example_are_mathml(site_dir: Path) -> None:
    html = page_text(site_dir, CALCULATOR_PAGES["accumulo-del-gradiente"])
    blocks = re.findall(r'<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">(.*?)</math>', html)
    flat = ["".join(re.findall(r">([^<]+)<", block)) for block in blocks]
    assert flat[:4] == [
        "E&#x0003D;b&#x000B7;a&#x000B7;g",
        "M&#x0003D;b&#x000B7;A",
        "E&#x0003D;4&#x000D7;8&#x000D7;1&#x0003D;32",
        "M&#x0003D;4&#x000D7;0,5&#x0003D;2GB",
    ]


RESOURCE = re.compile(r'<(?:script|link|img|iframe|source|audio|video)\b[^>]*?(?:src|href)="([^"]+)"', re.I)


@pytest.mark.parametrize("relative", ["index.html", *CALCULATOR_PAGES.values(), "404.html"])
def test_pages_load_nothing_from_other_hosts(site_dir: Path, relative: str) -> None:
    html = page_text(site_dir, relative)
    foreign = [url for url in RESOURCE.findall(html) if re.match(r"(https?:)?//", url)]
    assert foreign == []
    assert "fonts.googleapis" not in html and "fonts.gstatic" not in html


def test_engine_is_shipped_under_a_versioned_path(site_dir: Path) -> None:
    engine = site_dir / "assets" / "engine" / "314.0.7"
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        shipped = ROOT / "node_modules" / "pyodide" / name
        assert (engine / name).read_bytes() == shipped.read_bytes(), name
    lock = json.loads((engine / "pyodide-lock.json").read_text())
    upstream = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())
    assert lock["info"] == upstream["info"]
    assert list(lock["packages"]) == ["calculator"]
    entry = lock["packages"]["calculator"]
    wheel = engine / entry["file_name"]
    assert wheel.name.endswith("-py3-none-any.whl")
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"]
    assert entry["imports"] == ["calculator"]


def test_pyodide_is_pinned_with_integrity() -> None:
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert package["dependencies"]["pyodide"] == "314.0.7"
    entry = lock["packages"]["node_modules/pyodide"]
    assert entry["version"] == "314.0.7"
    assert entry["integrity"].startswith("sha512-")
