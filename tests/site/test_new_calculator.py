"""Adding a calculator is one Python module and one Markdown page: nothing else to edit.

A throw-away calculator is added to a temporary copy of the project, which is then
built by the same code as scripts/build; the build, the pre-render, the engine's
snapshot, the worker, the navigation, the home cards, "Da provare dopo" and the
service worker all pick it up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ..conftest import Server, build_site, copy_project, serving, watched_page
from ..support.pages import READY_TIMEOUT, calculator, output

MODULE = '''"""Calcolatore di prova: il doppio di un numero."""

from decimal import Decimal

from ..form.model import Calculator, Field, Format, Outputs, Result, Values, number


def compute(values: Values) -> Outputs:
    return {"doppio": number(values, "n") * 2}


CALCULATOR = Calculator(
    id="prova-raddoppio",
    title="Calcolatore di prova del doppio",
    summary="Raddoppia un numero, per provare che un calcolatore nuovo basta a sé stesso.",
    order=99,
    fields=(Field(id="n", label="Numero", default="21", help="Il numero da raddoppiare.", maximum=Decimal(1000)),),
    results=(Result("doppio", "Il doppio", format=Format.COUNT),),
    compute=compute,
    examples={"predefinito": {}, "cento": {"n": "100"}},
)
'''
PAGE = """---
title: Calcolatore di prova del doppio
---

# Calcolatore di prova del doppio

Il doppio di cento è {{ prova-raddoppio:cento:doppio }}.

[[calcolatore prova-raddoppio]]

## Da provare dopo

[[da-provare-dopo prova-raddoppio]]
"""


@pytest.fixture(scope="module")
def grown_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("progetto"))
    (project / "calculator" / "pages" / "prova_raddoppio.py").write_text(MODULE)
    (project / "docs" / "prova-raddoppio.md").write_text(PAGE)
    return build_site(project / "site", root=project)


@pytest.fixture(scope="module")
def grown_server(grown_site: Path) -> Iterator[Server]:
    with serving(grown_site) as running:
        yield running


def test_the_build_picks_it_up(grown_site: Path) -> None:
    page = (grown_site / "prova-raddoppio" / "index.html").read_text()
    assert '<output data-output="doppio" aria-live="off">42</output>' in page  # pre-rendered
    assert "Il doppio di cento è 200." in page  # a figure of the prose
    home = (grown_site / "index.html").read_text()
    assert 'href="prova-raddoppio/"' in home and "Raddoppia un numero" in home  # card and navigation
    other = (grown_site / "parametri-lora" / "index.html").read_text()
    assert 'href="../prova-raddoppio/"' in other and "Calcolatore di prova del doppio" in other  # nav, "Da provare dopo"
    assert '"prova-raddoppio/"' in (grown_site / "sw.js").read_text()
    search = json.loads((grown_site / "search" / "search_index.json").read_text())
    assert any(doc["location"].startswith("prova-raddoppio/") for doc in search["docs"])


@pytest.mark.browser
def test_the_worker_and_the_navigation_pick_it_up(browser, grown_server: Server) -> None:  # type: ignore[no-untyped-def]
    with watched_page(browser, grown_server.host) as page:
        page: Page
        page.goto(grown_server.url)
        page.locator('.md-nav a[href$="prova-raddoppio/"]').first.click()
        form = calculator(page, "prova-raddoppio")
        expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
        expect(form).to_have_attribute("data-engine-boot", "snapshot")  # the snapshot knows it too
        form.locator('[name="n"]').fill("50")
        expect(output(form, "doppio")).to_have_text("100")
        form.locator('[name="n"]').fill("5000")
        expect(form.locator('[data-error-for="n"]')).to_have_text("Numero: deve essere al massimo 1.000.")
