"""Kept values and site data: what the page says when this browser keeps nothing, and the theme without storage."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from ..conftest import Server
from ..support.pages import calculator, open_ready, output

# What Chromium does with site data blocked (a content setting): reading either storage throws.
SITE_DATA_BLOCKED = """
for (const name of ["localStorage", "sessionStorage"]) {
  Object.defineProperty(window, name, {
    configurable: true,
    get() { throw new DOMException("Access is denied for this document.", "SecurityError"); },
  });
}
"""


def test_with_site_data_blocked_the_theme_works_and_keeps_its_toggle(page: Page, server: Server) -> None:
    """No uncaught error (the page fixture fails on any), the light/dark toggle is there and switches, the calculator
    computes (issue 27, point 10)."""
    page.add_init_script(SITE_DATA_BLOCKED)
    form = open_ready(page, server, "accumulo-del-gradiente")
    body = page.locator("body")
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    page.get_by_title("Passa al tema scuro").click()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    page.get_by_title("Passa al tema chiaro").click()
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    form.locator('[name="data_parallel_gpus"]').fill("4")
    expect(output(form, "effective_batch")).to_have_text("128")
    page.locator('.md-nav a[href$="parametri-lora/"]').first.click()  # the theme's navigation works too
    expect(calculator(page, "parametri-lora")).to_have_attribute("data-state", "ready")


STORAGE_FULL = """
Storage.prototype.setItem = function () { throw new DOMException("The quota has been exceeded.", "QuotaExceededError"); };
"""


def storage_note(page: Page, calculator_id: str):  # type: ignore[no-untyped-def]
    return calculator(page, calculator_id).locator("[data-storage-note]")


def test_values_that_cannot_be_kept_are_said_so(page: Page, server: Server) -> None:
    """Storage full: the edit is in the address, not on this device, and the page says so (issue 27, point 8)."""
    page.add_init_script(STORAGE_FULL)
    form = open_ready(page, server, "accumulo-del-gradiente")
    expect(storage_note(page, "accumulo-del-gradiente")).to_be_empty()
    form.locator('[name="data_parallel_gpus"]').fill("4")
    expect(storage_note(page, "accumulo-del-gradiente")).to_contain_text("Questo browser non conserva i valori")
    expect(page).to_have_url(re.compile(r"data_parallel_gpus=4\b"))


def test_values_blocked_with_site_data_are_said_so(page: Page, server: Server) -> None:
    page.add_init_script(SITE_DATA_BLOCKED)
    form = open_ready(page, server, "accumulo-del-gradiente")
    form.locator('[name="data_parallel_gpus"]').fill("4")
    expect(storage_note(page, "accumulo-del-gradiente")).to_contain_text("Questo browser non conserva i valori")


def test_values_kept_from_a_visit_are_said_so(page: Page, server: Server) -> None:
    form = open_ready(page, server, "accumulo-del-gradiente")
    form.locator('[name="data_parallel_gpus"]').fill("4")
    expect(page).to_have_url(re.compile(r"data_parallel_gpus=4\b"))
    form = open_ready(page, server, "accumulo-del-gradiente")  # a plain address: the values come from this device
    expect(form.locator('[name="data_parallel_gpus"]')).to_have_value("4")
    expect(storage_note(page, "accumulo-del-gradiente")).to_contain_text("avevi lasciato qui l'ultima volta")
    form.locator("button[type=reset]").click()
    expect(storage_note(page, "accumulo-del-gradiente")).to_be_empty()
    page.goto(server.url + "accumulo-del-gradiente/?data_parallel_gpus=2")  # a shared link: not this device's values
    expect(storage_note(page, "accumulo-del-gradiente")).to_be_empty()


def test_another_tab_learns_of_an_edit(page: Page, server: Server) -> None:
    """Two tabs of one calculator: the last edit is kept, and the other tab says so and offers it."""
    first = open_ready(page, server, "accumulo-del-gradiente")
    other_page = page.context.new_page()
    other = open_ready(other_page, server, "accumulo-del-gradiente")
    other.locator('[name="data_parallel_gpus"]').fill("8")
    expect(storage_note(page, "accumulo-del-gradiente")).to_contain_text("In un'altra scheda")
    expect(first.locator('[name="data_parallel_gpus"]')).to_have_value("1")  # this tab's values stay until asked
    first.get_by_role("button", name="Usa quei valori").click()
    expect(first.locator('[name="data_parallel_gpus"]')).to_have_value("8")
    expect(output(first, "effective_batch")).to_have_text("256")
    expect(storage_note(page, "accumulo-del-gradiente")).to_be_empty()
    other_page.close()
