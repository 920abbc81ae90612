"""Kept values and site data: what the page says when this browser keeps nothing, and the theme without storage."""

from __future__ import annotations

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

