"""The model buttons by family, filtered as one types (issue 23): at a phone's width and a desktop's."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from calculator import CALCULATORS

from ..conftest import Server
from ..support.pages import open_ready

pytestmark = pytest.mark.browser
VRAM = "vram-addestramento-llm"


@pytest.mark.parametrize("width", [390, 1366])
def test_typing_in_the_filter_keeps_the_matching_models_only(page: Page, server: Server, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, VRAM)
    url = page.url
    box = form.locator("[data-preset-filter]")
    expect(box).to_be_visible()
    row = box.locator("xpath=ancestor::*[contains(@class, 'calc__presets')][1]")
    models = [p for p in CALCULATORS[VRAM].presets if p.section]
    expect(row.locator("[data-preset]:visible")).to_have_count(len(models))

    box.fill("qwen 32")
    wanted = [p.label for p in models if "qwen" in f"{p.section} {p.label}".lower() and "32" in p.label]
    assert len(wanted) >= 2
    expect(row.locator("[data-preset]:visible")).to_have_count(len(wanted))
    for label in wanted:
        expect(row.get_by_role("button", name=label, exact=True)).to_be_visible()
    expect(row.locator('[data-section="Llama"]')).to_be_hidden()
    assert page.url == url  # the filter is not a field: nothing in the address, nothing computed
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")

    row.get_by_role("button", name=wanted[0], exact=True).click()
    expect(row.get_by_role("button", name=wanted[0], exact=True)).to_have_attribute("aria-pressed", "true")
    box.fill("famiglia che non c'è")
    expect(row.locator("[data-preset]:visible")).to_have_count(0)
    box.fill("")
    expect(row.locator("[data-preset]:visible")).to_have_count(len(models))
