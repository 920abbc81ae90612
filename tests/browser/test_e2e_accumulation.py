"""The gradient-accumulation page in headless Chromium, served from loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ..conftest import Server, serving, watched_page
from ..support.pages import READY_TIMEOUT
from ..support.pages import open_ready as open_calculator

pytestmark = pytest.mark.browser
PATH = "accumulo-del-gradiente/"
ROOT_SELECTOR = 'form[data-calculator="accumulo-del-gradiente"]'


def open_ready(page: Page, server: Server) -> None:
    open_calculator(page, server, "accumulo-del-gradiente")


def output(page: Page, result_id: str):  # type: ignore[no-untyped-def]
    return page.locator(f'{ROOT_SELECTOR} [data-output="{result_id}"]:not(.calc__glance *)')  # not the copy in view


def test_recomputes_on_every_input(page: Page, server: Server) -> None:
    open_ready(page, server)
    expect(output(page, "effective_batch")).to_have_text("32")
    page.fill('input[name="data_parallel_gpus"]', "4")
    expect(output(page, "effective_batch")).to_have_text("128")
    expect(output(page, "activation_memory")).to_have_text("2 GB")
    page.fill('input[name="activation_per_sample_gb"]', "0,25")
    expect(output(page, "activation_memory")).to_have_text("1 GB")
    page.fill('input[name="micro_batch"]', "3")
    expect(output(page, "activation_memory")).to_have_text("750 MB")  # under 1 GB in MB: one unit policy
    expect(output(page, "effective_batch")).to_have_text("96")


def test_bad_input_gets_an_italian_message_beside_the_field(page: Page, server: Server) -> None:
    open_ready(page, server)
    field = page.locator('input[name="micro_batch"]')
    field.fill("abc")
    message = page.locator('[data-error-for="micro_batch"]')
    expect(message).to_have_text("Dimensione del micro-batch: scrivi un numero, per esempio 4.")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_value("abc")
    described = (field.get_attribute("aria-describedby") or "").split()
    assert message.get_attribute("id") in described
    expect(output(page, "effective_batch")).to_have_text("—")
    for text in ("NaN", "undefined", "Infinity"):
        assert text not in page.locator(ROOT_SELECTOR).inner_text()
    field.fill("")
    expect(page.locator(f"{ROOT_SELECTOR} [data-message]")).to_have_text(
        "Inserisci un valore per visualizzare i risultati."
    )
    field.fill("8")
    expect(message).to_have_text("")
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(output(page, "effective_batch")).to_have_text("64")


@pytest.fixture
def slow_worker_server(site_dir: Path) -> Iterator[Server]:
    """The site, with the engine's worker held back long enough to type while it loads, on any machine."""
    (worker,) = (site_dir / "assets" / "javascripts").glob("engine-worker.*.mjs")
    with serving(site_dir, delays={worker.name: 3.0}) as running:
        yield running


def test_values_typed_while_loading_are_applied(browser, slow_worker_server: Server) -> None:  # type: ignore[no-untyped-def]
    server = slow_worker_server
    with watched_page(browser, server.host) as page:
        page.goto(server.url + PATH, wait_until="domcontentloaded")
        page.fill('input[name="data_parallel_gpus"]', "4")
        assert page.locator(ROOT_SELECTOR).get_attribute("data-state") == "loading"
        expect(page.locator("[data-engine-status]")).to_contain_text("si sta avviando")
        expect(page.locator(ROOT_SELECTOR)).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
        expect(output(page, "effective_batch")).to_have_text("128")
        expect(page.locator("[data-engine-status]")).to_be_hidden()


def test_without_javascript_the_defaults_are_shown(browser, server: Server) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server.url + PATH)
    expect(output(page, "effective_batch")).to_have_text("32")
    expect(output(page, "activation_memory")).to_have_text("2 GB")
    assert "JavaScript è disattivato" in page.locator(ROOT_SELECTOR).inner_text()
    context.close()


def test_engine_that_cannot_start_is_reported(page: Page, server: Server) -> None:
    page.route("**/engine/**/pyodide.mjs", lambda route: route.fulfill(status=404, body="not found"))
    page.goto(server.url + PATH)
    form = page.locator(ROOT_SELECTOR)
    expect(form).to_have_attribute("data-state", "error", timeout=READY_TIMEOUT)
    expect(page.locator("[data-engine-status]")).to_contain_text("Il motore di calcolo non è disponibile")
    expect(output(page, "effective_batch")).to_have_text("32")
    page.fill('input[name="data_parallel_gpus"]', "4")
    expect(form).to_have_attribute("data-state", "error")
    expect(page.locator('input[name="data_parallel_gpus"]')).to_have_value("4")
    page.unroute("**/engine/**/pyodide.mjs")
    page.get_by_role("button", name="Riprova").click()
    expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
    expect(output(page, "effective_batch")).to_have_text("128")
