"""The built site: strict build, pre-rendered results, the engine it ships."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from calculator import CALCULATORS
from calculator.form.render import FEEDS_MARK, render
from sitebuild.content_names import engine_build_dir
from sitebuild.engine import engine_path, pyodide_version
from sitebuild.markdown_extension import form_attributes

from ..conftest import ROOT

CALCULATOR_PAGES = {calculator_id: f"{calculator_id}/index.html" for calculator_id in CALCULATORS}


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


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_each_calculator_page_embeds_its_prerendered_form(site_dir: Path, calculator_id: str) -> None:
    html = page_text(site_dir, CALCULATOR_PAGES[calculator_id])
    # The build names the worker by its content (sitebuild/content_names.py).
    (worker,) = (site_dir / "assets" / "javascripts").glob("engine-worker.*.mjs")
    form = render(CALCULATORS[calculator_id], attributes={**form_attributes(),
                                                          "worker": worker.relative_to(site_dir).as_posix()})
    assert all(part in html for part in form.split(FEEDS_MARK))  # the feed links go between, as Markdown
    assert html.count("data-calculator=") == 1


def test_page_is_prerendered_with_default_results(site_dir: Path) -> None:
    html = page_text(site_dir, CALCULATOR_PAGES["accumulo-del-gradiente"])
    assert 'data-calculator="accumulo-del-gradiente" data-state="loading"' in html
    assert '<output data-output="effective_batch" aria-live="off">32</output>' in html
    assert '<output data-output="activation_memory" aria-live="off">2 GB</output>' in html
    for spec in CALCULATORS["accumulo-del-gradiente"].fields:
        if not spec.numeric:
            continue
        control = re.search(rf'<input type="text" id="([^"]+)" name="{spec.id}" aria-describedby="([^"]+)"'
                            rf' value="([^"]*)" inputmode="(numeric|decimal)"', html)
        assert control, spec.id
        assert control[3] == spec.default
        assert f'<label for="{control[1]}">{spec.label}' in html
        described = control[2].split()
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
    # The canonical link names the published address (site_url); browsers do not load it.
    html = re.sub(r'<link rel="canonical" href="[^"]*">', "", page_text(site_dir, relative))
    foreign = [url for url in RESOURCE.findall(html) if re.match(r"(https?:)?//", url)]
    assert foreign == []
    assert "fonts.googleapis" not in html and "fonts.gstatic" not in html


def test_engine_is_shipped_under_a_versioned_path(site_dir: Path) -> None:
    engine = site_dir / engine_path()
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        shipped = ROOT / "node_modules" / "pyodide" / name
        assert (engine / name).read_bytes() == shipped.read_bytes(), name
    # Our wheel, its lock, the snapshot and the loader trimmed for it, in a directory named by their content.
    build = engine_build_dir(site_dir)
    assert build.parent == engine
    assert not (engine / "pyodide.asm.mjs").exists()
    assert (build / "pyodide.asm.mjs").is_file()
    lock = json.loads((build / "pyodide-lock.json").read_text())
    upstream = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())
    assert lock["info"] == upstream["info"]
    assert list(lock["packages"]) == ["calculator"]
    entry = lock["packages"]["calculator"]
    wheel = build / entry["file_name"]
    assert wheel.name.endswith("-py3-none-any.whl")
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"]
    assert entry["imports"] == ["calculator"]


def test_the_worker_knows_what_a_start_downloads(site_dir: Path) -> None:
    """The progress bar's maximum: the runtime and the snapshot as shipped, written into the worker by the build
    (not into the pages, which stay the same when only the snapshot's bytes differ between two builds)."""
    (worker,) = (site_dir / "assets" / "javascripts").glob("engine-worker.*.mjs")
    shipped = [site_dir / engine_path() / "pyodide.asm.wasm", engine_build_dir(site_dir) / "snapshot.csn1.gz"]
    (written,) = re.findall(r"const START_BYTES = (\d+);", worker.read_text())
    assert int(written) == sum(file.stat().st_size for file in shipped) > 10**7


def test_pyodide_is_pinned_with_integrity() -> None:
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    version = package["dependencies"]["pyodide"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), "an exact version, not a range"
    entry = lock["packages"]["node_modules/pyodide"]
    assert entry["version"] == version == pyodide_version()
    assert entry["integrity"].startswith("sha512-")


def test_pyodide_version_is_written_only_in_the_npm_files() -> None:
    """Everything else reads it from sitebuild.engine (the README quotes it for readers; the measurement log records
    which version each past measurement ran on)."""
    version = pyodide_version()
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    allowed = {"package.json", "package-lock.json", "README.md", "reports/measurements.md"}
    holders = [name for name in tracked if name not in allowed and (ROOT / name).is_file()
               and version in (ROOT / name).read_text(errors="replace")]
    assert holders == []


def test_sibling_pages_are_prerendered_with_their_results(site_dir: Path) -> None:
    vram = page_text(site_dir, CALCULATOR_PAGES["vram-addestramento-llm"])
    assert '<output data-output="per_gpu_gb" aria-live="off">114 GB</output>' in vram
    assert "<svg" in vram and 'role="img"' in vram
    lora = page_text(site_dir, CALCULATOR_PAGES["parametri-lora"])
    assert '<output data-output="trainable_parameters" aria-live="off">4.194.304</output>' in lora
    assert lora.count("data-preset=") == len(CALCULATORS["parametri-lora"].presets)


def test_vram_byte_table_is_generated_from_the_module(site_dir: Path) -> None:
    from calculator.form.tables import table_html
    from calculator.pages.vram import optimizer_table

    assert table_html(optimizer_table()) in page_text(site_dir, CALCULATOR_PAGES["vram-addestramento-llm"])


def test_vram_article_embeds_its_generated_figures(site_dir: Path) -> None:
    """The article's charts are the module's SVG, byte for byte, with unique ids, after the prose that names them."""
    from calculator.pages.vram import expert_figure, parallel_figure
    from sitebuild.leftovers import find_leftovers

    html = page_text(site_dir, CALCULATOR_PAGES["vram-addestramento-llm"])
    for drawn, ident in ((parallel_figure(), "calc-figura-parallelismi"), (expert_figure(), "calc-figura-esperti")):
        assert f'<figure class="calc-figure">{drawn}</figure>' in html
        assert html.count(f'id="{ident}-title"') == 1 and html.count(f'id="{ident}-desc"') == 1
    assert "[[grafico" not in html and not [line for line in find_leftovers(site_dir) if "vram-addestramento" in line]
    assert html.index("calc-figura-parallelismi") < html.index("calc-figura-esperti")


def test_sibling_prose_figures(site_dir: Path) -> None:
    vram = visible_text(page_text(site_dir, CALCULATOR_PAGES["vram-addestramento-llm"]))
    assert "Servono 114 GB: più di quanti ne abbia una singola GPU da 80 GB" in vram
    assert "Su 8 GPU con ZeRO stadio 3 gli stati del modello si dividono per 8 e ogni GPU ne tiene 16 GB" in vram
    assert "un modello da 1,5 miliardi di parametri richiede 24 GB di stati del modello" in vram
    assert "su 64 GPU scende da 120 GB a 31,41 GB con lo stadio 1, 16,64 GB con lo stadio 2 e 1,88 GB" in vram
    lora = visible_text(page_text(site_dir, CALCULATOR_PAGES["parametri-lora"]))
    assert "cioè lo 0,0622 % di tutti i parametri, adattatori compresi" in lora
    assert "rispetto ai soli 6,74 miliardi di parametri del modello (0,0622 %)" in lora
    assert "L'adattatore pesa 8,39 MB in bf16, e gradienti e stati di AdamW occupano 50,33 MB" in lora
    assert "i parametri salgono a 19.988.480" in lora and "li raddoppia a 8.388.608" in lora
    assert "i parametri scendono a 3.407.872 (0,0424 % di tutti i parametri, come lo conta PEFT)" in lora
    # Figures written out in the prose, checked against the module.
    from calculator.llm.lora_adapters import shapes

    kv_out = shapes(4096, 14336, 32, 8, 128)["k_proj"][1]
    assert f"le proiezioni k e v escono a {kv_out:,} dimensioni invece di 4.096".replace(",", ".") in lora
    q_out = shapes(2304, 9216, 8, 4, 256)["q_proj"][1]  # Gemma 2 2B
    assert f"q_proj esce a {q_out:,} dimensioni e non a 2.304".replace(",", ".") in lora


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_da_provare_dopo_links_the_other_calculators(site_dir: Path, calculator_id: str) -> None:
    html = page_text(site_dir, CALCULATOR_PAGES[calculator_id])
    section = html.split('id="da-provare-dopo"', 1)[1]
    links = re.findall(r'<a href="\.\./([a-z-]+)/"><strong>([^<]+)</strong></a>: ([^<]+)</li>', section)
    expected = [(c.id, c.title, c.summary) for c in CALCULATORS.values() if c.id != calculator_id]
    assert [(i, t, s.replace("&#x27;", "'").replace("&#39;", "'")) for i, t, s in links] == expected


def test_home_presents_every_calculator(site_dir: Path) -> None:
    html = page_text(site_dir, "index.html")
    cards = re.findall(r'<a class="card" href="([a-z-]+)/"><strong>([^<]+)</strong>', html)
    assert cards == [(c.id, c.title) for c in CALCULATORS.values()]
    nav = html.split('class="md-nav__list"', 1)[1]
    for calculator_id in CALCULATORS:
        assert f'href="{calculator_id}/"' in nav


def test_every_page_has_italian_language_and_no_web_fonts(site_dir: Path) -> None:
    for relative in ["index.html", *CALCULATOR_PAGES.values()]:
        html = page_text(site_dir, relative)
        assert '<html lang="it"' in html
        assert "fonts.googleapis" not in html
