"""Accessibility: axe-core on every page in both themes, keyboard-only use, visible focus, live results."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from calculator import CALCULATORS
from calculator.form.numbers import format_integer

from ..conftest import ROOT, Server, Watch, assert_clean, watch_page, watched_context
from ..support.pages import READY_TIMEOUT, calculator, open_ready, output

pytestmark = pytest.mark.browser
AXE = (ROOT / "node_modules" / "axe-core" / "axe.min.js").read_text()
PAGES = ["", *(f"{c}/" for c in CALCULATORS), "404.html"]


@pytest.fixture(params=["light", "dark"])
def themed_page(request: pytest.FixtureRequest, browser, server: Server) -> Iterator[Page]:  # type: ignore[no-untyped-def]
    watch = Watch()
    # axe is injected by the test, which the site's own CSP would rightly refuse.
    context = watched_context(browser, server.host, watch, color_scheme=request.param, bypass_csp=True)
    page = context.new_page()
    watch_page(page, watch)
    yield page
    context.close()
    assert_clean(watch)


def serious_violations(page: Page) -> list[dict[str, Any]]:
    # Axe measures colours as they are painted: a header title fading in after a scroll reads as low contrast.
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")  # styles applied
    page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
    page.evaluate(AXE)
    report = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in report["violations"]
        if v["impact"] in {"serious", "critical"}
    ]


@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_no_serious_violation(themed_page: Page, server: Server, path: str) -> None:
    page = themed_page
    page.goto(server.url + path)
    calculator_id = path.rstrip("/")
    if calculator_id in CALCULATORS:
        form = calculator(page, calculator_id)
        expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
        # Checked once, with an error message showing beside the rest of the form.
        form.locator("input[type=text]:visible").first.fill("abc")
        expect(form.locator(".calc__error:not(:empty)").first).to_be_visible()
    assert serious_violations(page) == []


def focus_ring(page: Page) -> str:
    return str(page.evaluate(
        """() => { const s = getComputedStyle(document.activeElement);
                   return s.outlineStyle === 'none' ? s.boxShadow : s.outlineStyle + ' ' + s.outlineWidth; }"""
    ))


def tab_to(page: Page, selector: str, limit: int = 80) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
    pytest.fail(f"Tab never reached {selector}")


def test_gradient_accumulation_by_keyboard(page: Page, server: Server) -> None:
    form = open_ready(page, server, "accumulo-del-gradiente")
    tab_to(page, '[name="micro_batch"]')
    assert focus_ring(page) not in {"", "none"}
    page.keyboard.press("Control+A")
    page.keyboard.type("8")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("16")
    expect(output(form, "effective_batch")).to_have_text("128")
    expect(output(form, "activation_memory")).to_have_text("4 GB")
    live = form.locator("[data-announce]")  # once typing pauses: the headline results
    expect(live).to_contain_text("128")


def test_vram_by_keyboard(page: Page, server: Server) -> None:
    form = open_ready(page, server, "vram-addestramento-llm")
    tab_to(page, '[name="optimizer"]')
    assert focus_ring(page) not in {"", "none"}
    page.keyboard.press("ArrowDown")  # next option: 8-bit AdamW
    expect(output(form, "bytes_per_parameter")).to_have_text("10 B")
    tab_to(page, '[name="gradient_precision"]')
    page.keyboard.press("ArrowDown")  # fp32 gradients
    expect(output(form, "bytes_per_parameter")).to_have_text("12 B")


def test_lora_by_keyboard(page: Page, server: Server) -> None:
    form = open_ready(page, server, "parametri-lora")
    tab_to(page, "button[data-preset]")
    assert focus_ring(page) not in {"", "none"}
    page.keyboard.press("Tab")  # the second preset: Llama 3.1 8B
    page.keyboard.press("Enter")
    expect(output(form, "trainable_parameters")).to_have_text(format_integer(3_407_872))
    tab_to(page, '[name="k_proj"]')
    assert focus_ring(page) not in {"", "none"}
    page.keyboard.press("Space")
    expect(output(form, "trainable_parameters")).to_have_text(format_integer(32 * 8 * (8192 + 2 * 5120)))


def test_results_region_is_announced(page: Page, server: Server) -> None:
    form = open_ready(page, server, "accumulo-del-gradiente")
    live = form.locator(".calc__results [aria-live=polite]")
    assert live.count() == 1  # the announcement only: the whole list would be read again at every key
    assert live.locator("[data-output]").count() == 0
    form.locator('[name="data_parallel_gpus"]').fill("2")
    expect(live).to_contain_text("Dimensione effettiva del batch: 64")
    snapshot = form.locator(".calc__results").aria_snapshot()
    assert "Dimensione effettiva del batch" in snapshot and "64" in snapshot
    form.locator('[name="micro_batch"]').fill("")  # what is wrong is said instead
    expect(live).to_have_text("Inserisci un valore per visualizzare i risultati.")
