"""The engine's early start in the built pages: at the top of <head> on every calculator page, at idle on the home
page, nowhere else; its worker named by content, the engine's version as its name; its hash in the policy."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from calculator import CALCULATORS
from sitebuild.early_start import CHARSET, start_script
from sitebuild.engine import pyodide_version

START = re.compile(r'<script data-worker="([^"]*)" data-engine="([^"]*)"( data-idle)?>(.*?)</script>', re.S)


def started(page: Path) -> tuple[str, list[object]] | None:
    """The early start's code and its (worker, version, idle), if the page has it."""
    found = START.search(page.read_text(encoding="utf-8"))
    return (found[4], [found[1], found[2], bool(found[3])]) if found else None


def test_every_calculator_page_starts_the_engine_first(site_dir: Path) -> None:
    for calculator_id in CALCULATORS:
        page = site_dir / calculator_id / "index.html"
        html = page.read_text(encoding="utf-8")
        found = started(page)
        assert found, calculator_id
        code, (worker, version, idle) = found
        # Right after <meta charset>, before any stylesheet or other script.
        head = html[: html.index("</head>")]
        assert head.index(CHARSET) < head.index(code) < head.index("<link rel=\"stylesheet\"")
        assert head[: head.index(code)].count("<script") == 1
        assert re.fullmatch(r"\.\./assets/javascripts/engine-worker\.[0-9a-f]{10}\.mjs", str(worker))
        assert (page.parent / str(worker)).resolve().is_file()
        assert version == pyodide_version() and idle is False
        # The charset stays where browsers look for it (the first 1024 bytes).
        assert html.encode().index(CHARSET.encode()) < 1024


def test_the_home_page_starts_it_at_idle_and_other_pages_not_at_all(site_dir: Path) -> None:
    found = started(site_dir / "index.html")
    assert found and found[1][0].startswith("assets/javascripts/engine-worker.") and found[1][2] is True
    assert started(site_dir / "404.html") is None


def test_the_policy_names_its_hash(site_dir: Path) -> None:
    page = site_dir / next(iter(CALCULATORS)) / "index.html"
    found = started(page)
    assert found
    script = found[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in page.read_text(encoding="utf-8").split("</head>")[0]


def test_the_script_is_the_same_everywhere_its_values_are_attributes(site_dir: Path) -> None:
    script = start_script("../w.mjs", "1.2.3", idle=True)
    assert script.startswith('<script data-worker="../w.mjs" data-engine="1.2.3" data-idle>(({ worker: workerPath,')
    assert script.endswith("})(document.currentScript.dataset);</script>")
    codes = {found[0] for page in [site_dir / "index.html", *(site_dir / c / "index.html" for c in CALCULATORS)]
             if (found := started(page))}
    assert len(codes) == 1  # one hash in the policy, whatever the page, its depth or the deploy's worker


def test_calculator_pages_hold_the_theme_for_the_early_start(site_dir: Path) -> None:
    """The theme's bundle is a data block on a calculator page (the early start loads it), a script elsewhere."""
    bundle = r'assets/javascripts/bundle\.[0-9a-f]+\.min\.js'
    for page in sorted(site_dir.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        held = re.findall(rf'<script type="text/plain" data-calc-theme="[./]*{bundle}"></script>', html)
        loaded = re.findall(rf'<script src="[./]*{bundle}"></script>', html)
        if page.parent.name in CALCULATORS:
            assert (len(held), len(loaded)) == (1, 0), page
        else:
            assert (len(held), len(loaded)) == (0, 1), page
