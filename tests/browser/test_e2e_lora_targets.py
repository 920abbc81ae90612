"""The LoRA page's targets in the browser (issue 25): only the boxes the model has, shown and hidden from Python's
answer as the model changes; the shortcuts; a box the model lacks, ticked by a link, in view with its message. At a
phone's width and a desktop's."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from calculator.llm.lora_adapters import ALL_LINEAR, LATENT, MODULES
from calculator.pages.lora import _preset

from ..conftest import Server
from ..support.pages import answer, calculator, open_ready, output

LORA = "parametri-lora"
WIDTHS = [390, 1366]


def box(form: Locator, name: str) -> Locator:
    return form.locator(f'[data-absent-field="{name}"]')


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_boxes_follow_the_model(page: Page, server: Server, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, LORA)
    for name in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
        expect(box(form, name)).to_be_visible()
    for name in ("qkv_proj", "gate_up_proj", "router", *LATENT):
        expect(box(form, name)).to_be_hidden()
    phi = _preset("phi-3-mini")
    form.get_by_role("button", name=phi.label, exact=True).click()
    for name in ("qkv_proj", "o_proj", "gate_up_proj", "down_proj"):
        expect(box(form, name)).to_be_visible()
    for name in ("q_proj", "k_proj", "v_proj", "gate_proj", "up_proj", "router", *LATENT):
        expect(box(form, name)).to_be_hidden()
    expected = answer(LORA, dict(phi.values))["results"]["trainable_parameters"]  # type: ignore[index]
    expect(output(form, "trainable_parameters")).to_have_text(str(expected))
    no_sideways_scroll(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_all_linear_adapts_every_linear_layer_and_hides_the_boxes(page: Page, server: Server, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, LORA)
    form.locator('[name="target_set"]').select_option(ALL_LINEAR)
    expected = answer(LORA, {"target_set": ALL_LINEAR})["results"]
    expect(output(form, "trainable_parameters")).to_have_text(str(expected["trainable_parameters"]))  # type: ignore[index]
    expect(output(form, "peft_targets")).to_have_text('target_modules="all-linear"')
    for name in MODULES:
        expect(box(form, name)).to_be_hidden()
    no_sideways_scroll(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_box_the_model_lacks_ticked_by_a_link_shows_its_message(page: Page, server: Server, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server.url}{LORA}/?qkv_proj=on")
    form = calculator(page, LORA)
    expect(form).to_have_attribute("data-status", "invalid", timeout=60_000)
    expect(box(form, "qkv_proj")).to_be_visible()
    expect(form.locator('[data-error-for="qkv_proj"]')).to_contain_text("non esiste una matrice fusa")
    form.locator('[name="qkv_proj"]').uncheck()
    expect(form).to_have_attribute("data-status", "ok")
    expect(box(form, "qkv_proj")).to_be_hidden()
