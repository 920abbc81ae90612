"""Instant navigation between the calculators: one engine for the whole visit, values that travel and stay.

The site is built for the address it is served from (a sub-path, as on GitHub Pages), as the
publishing workflow builds it; elsewhere the theme falls back to loading pages as usual.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import cycle, islice
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from calculator import CALCULATORS
from calculator.form.numbers import parse_number
from tools.local_server import free_port

from ..conftest import Server, build_site, serving, watched_page
from ..support.pages import answer, calculator, output
from ..support.pages import field as field_of

pytestmark = pytest.mark.browser

PREFIX = "/calcolatori/"
SIBLINGS = list(CALCULATORS)


# Resolves once the service worker controls the page and has cached the site, sitemap included.
PRECACHED = """async () => {
  await navigator.serviceWorker.ready;
  for (;;) {
    const names = await caches.keys();
    const requests = (await Promise.all(names.map(async (name) => (await caches.open(name)).keys()))).flat();
    if (navigator.serviceWorker.controller && requests.some((request) => request.url.endsWith("/sitemap.xml"))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}"""



@pytest.fixture(scope="module")
def instant_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    port = free_port()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SITE_URL", f"http://127.0.0.1:{port}{PREFIX}")
        site = build_site(tmp_path_factory.mktemp("instant") / "site")
    with serving(site, prefix=PREFIX, port=port) as running:
        yield running


@pytest.fixture
def page(browser, instant_server: Server) -> Iterator[Page]:  # type: ignore[no-untyped-def]
    with watched_page(browser, instant_server.host) as new_page:
        yield new_page


def engine_workers(page: Page) -> int:
    return sum("engine-worker" in worker.url for worker in page.workers)


# Resolves once the theme's download of the sitemap has ended and two frames and a task have passed.
SITEMAP_READ = """async () => {
  if (!performance.getEntriesByType("resource").some((entry) => new URL(entry.name).pathname.endsWith("/sitemap.xml")
      && entry.responseEnd > 0)) return false;
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve))));
  return true;
}"""


def open_first(page: Page, server: Server, calculator_id: str) -> None:
    page.goto(f"{server.url}{calculator_id}/")
    expect(calculator(page, calculator_id)).to_have_attribute("data-state", "ready", timeout=60_000)
    # The theme, whose script brings instant navigation, comes once the engine has answered (engine-start.js): a
    # link followed before it loads the next page whole.
    expect(page.locator("html")).to_have_class(re.compile(r"(^|\s)js(\s|$)"))
    # The theme intercepts a link only once it holds the sitemap (a click before then loads the next page whole, as
    # it happened once on a loaded machine): wait for its download, then a few frames for it to be read.
    page.wait_for_function(SITEMAP_READ)
    page.evaluate("window.__sameDocument = true")


def follow_nav(page: Page, calculator_id: str) -> None:
    """Click the site navigation's link to a calculator, as a reader would."""
    page.locator(f'.md-nav--primary a.md-nav__link[href$="/{calculator_id}/"]').first.click()


def test_sitemap_lists_every_page_at_the_published_address(instant_server: Server) -> None:
    import urllib.request

    sitemap = urllib.request.urlopen(instant_server.url + "sitemap.xml").read().decode()
    for calc_id in SIBLINGS:
        assert f"<loc>{instant_server.url}{calc_id}/</loc>" in sitemap


def test_ten_navigations_between_siblings_keep_one_engine_answering(page: Page, instant_server: Server) -> None:
    open_first(page, instant_server, SIBLINGS[0])
    assert engine_workers(page) == 1
    boot = calculator(page, SIBLINGS[0]).get_attribute("data-engine-boot")
    targets = list(islice(cycle(SIBLINGS[1:] + SIBLINGS[:1]), 10))
    for number, calc_id in enumerate(targets, 1):
        follow_nav(page, calc_id)
        form = calculator(page, calc_id)
        expect(form).to_have_attribute("data-state", "ready", timeout=5_000)
        assert page.evaluate("window.__sameDocument") is True, f"navigation {number} reloaded the page"
        assert page.url == f"{instant_server.url}{calc_id}/"
        # The engine answers this page's form: an edit gives Python's own figure.
        calc = CALCULATORS[calc_id]
        field = next(f for f in calc.fields if f.numeric and not f.optional and not f.modes)
        value = str(int(parse_number(field.default)) + number)
        field_of(form, field.id).fill(value)
        expected = answer(calc_id, {field.id: value})["results"]
        shown = next(k for k, v in expected.items() if v != answer(calc_id, {})["results"][k])  # type: ignore[union-attr]
        expect(output(form, shown)).to_have_text(expected[shown])  # type: ignore[index]
        assert form.get_attribute("data-engine-boot") == boot
        # Nothing was left behind: one form on the page, one engine worker in the visit.
        assert page.locator("form[data-calculator]").count() == 1
        assert engine_workers(page) == 1, f"after navigation {number}"


def test_the_chain_by_links_stays_in_one_document(page: Page, instant_server: Server) -> None:
    open_first(page, instant_server, "memoria-attivazioni")
    form = calculator(page, "memoria-attivazioni")
    form.locator('[name="micro_batch"]').fill("2")
    form.locator('a[data-feed="accumulo"]').click()
    acc = calculator(page, "accumulo-del-gradiente")
    expect(acc).to_have_attribute("data-state", "ready", timeout=5_000)
    expect(acc.locator('[name="micro_batch"]')).to_have_value("2")
    acc.locator('a[data-feed="vram"]').click()
    vram = calculator(page, "vram-addestramento-llm")
    expect(vram).to_have_attribute("data-state", "ready", timeout=5_000)
    assert "activation_gb=" in page.url
    assert page.evaluate("window.__sameDocument") is True
    assert engine_workers(page) == 1


def test_an_edit_just_before_leaving_is_kept_and_stays_on_its_page(page: Page, instant_server: Server) -> None:
    open_first(page, instant_server, "vram-addestramento-llm")
    form = calculator(page, "vram-addestramento-llm")
    form.locator('[name="parameters_billion"]').fill("13")
    follow_nav(page, "parametri-lora")  # within the address's debounce
    expect(calculator(page, "parametri-lora")).to_have_attribute("data-state", "ready", timeout=5_000)
    page.wait_for_timeout(400)
    assert "parameters_billion" not in page.url, "the VRAM page's values were written into the LoRA page's address"
    follow_nav(page, "vram-addestramento-llm")
    form = calculator(page, "vram-addestramento-llm")
    expect(form.locator('[name="parameters_billion"]')).to_have_value("13")
    expect(output(form, "per_gpu_gb")).to_have_text(
        answer("vram-addestramento-llm", {"parameters_billion": "13"})["results"]["per_gpu_gb"])  # type: ignore[index]
    assert page.evaluate("window.__sameDocument") is True


def test_back_button_returns_to_the_previous_calculator(page: Page, instant_server: Server) -> None:
    open_first(page, instant_server, "accumulo-del-gradiente")
    follow_nav(page, "parametri-lora")
    expect(calculator(page, "parametri-lora")).to_have_attribute("data-state", "ready", timeout=5_000)
    page.go_back()
    expect(calculator(page, "accumulo-del-gradiente")).to_have_attribute("data-state", "ready", timeout=5_000)
    assert engine_workers(page) == 1


def test_offline_navigation_uses_the_cached_pages(page: Page, instant_server: Server) -> None:
    open_first(page, instant_server, "accumulo-del-gradiente")
    page.evaluate(PRECACHED)
    page.context.set_offline(True)
    try:
        for calc_id in ("parametri-lora", "memoria-attivazioni"):
            follow_nav(page, calc_id)
            expect(calculator(page, calc_id)).to_have_attribute("data-state", "ready", timeout=5_000)
        assert page.evaluate("window.__sameDocument") is True
    finally:
        page.context.set_offline(False)


def test_a_page_served_elsewhere_still_navigates(browser, site_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """Built for another address (the default), links load pages as usual and every page works."""
    with serving(site_dir) as other, watched_page(browser, other.host) as page:
        page.goto(f"{other.url}accumulo-del-gradiente/")
        expect(calculator(page, "accumulo-del-gradiente")).to_have_attribute("data-state", "ready", timeout=60_000)
        page.evaluate("window.__sameDocument = true")
        follow_nav(page, "parametri-lora")
        expect(calculator(page, "parametri-lora")).to_have_attribute("data-state", "ready", timeout=60_000)
        assert page.evaluate("window.__sameDocument") is None
