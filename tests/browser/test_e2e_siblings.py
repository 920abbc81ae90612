"""The VRAM and LoRA pages and the home page in headless Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from calculator import CALCULATORS
from calculator.form.numbers import format_integer

from ..conftest import Server
from ..support.pages import open_ready, output

pytestmark = pytest.mark.browser


def test_vram_page(page: Page, server: Server) -> None:
    form = open_ready(page, server, "vram-addestramento-llm")
    expect(output(form, "per_gpu_gb")).to_have_text("114 GB")
    form.locator('input[name="parameters_billion"]').fill("13")
    expect(output(form, "per_gpu_gb")).to_have_text("210 GB")
    form.locator('select[name="optimizer"]').select_option("adamw_8bit")
    expect(output(form, "per_gpu_gb")).to_have_text("132 GB")
    expect(output(form, "bytes_per_parameter")).to_have_text("10 B")
    form.locator('input[name="gpus"]').fill("8")
    form.locator('select[name="zero_stage"]').select_option("3")
    expect(output(form, "per_gpu_gb")).to_have_text("18,25 GB")
    expect(output(form, "total_gb")).to_have_text("132 GB")
    expect(form.locator("[data-chart]:not(.calc__glance-chart) desc")).to_contain_text("Pesi: 3,25 GB")
    form.locator('input[name="parameters_billion"]').fill("0")
    expect(form.locator('[data-error-for="parameters_billion"]')).to_have_text(
        "Parametri del modello: deve essere maggiore di 0."
    )
    expect(output(form, "per_gpu_gb")).to_have_text("—")


def test_lora_page(page: Page, server: Server) -> None:
    form = open_ready(page, server, "parametri-lora")
    expect(output(form, "trainable_parameters")).to_have_text(format_integer(4_194_304))
    form.get_by_role("button", name="Llama 3.1 8B").click()
    expect(form.locator('input[name="kv_heads"]')).to_have_value("8")
    expect(output(form, "trainable_parameters")).to_have_text(format_integer(3_407_872))
    expect(output(form, "trainable_percent")).to_have_text("0,0424 %")
    form.locator('input[name="rank"]').fill("16")
    expect(output(form, "trainable_parameters")).to_have_text(format_integer(6_815_744))
    form.get_by_label("Key (k_proj)").check()
    expect(output(form, "trainable_parameters")).to_have_text(format_integer(32 * 16 * (8192 + 5120 + 5120)))
    for name in ("Query (q_proj)", "Key (k_proj)", "Value (v_proj)"):
        form.get_by_label(name).uncheck()
    expect(form.locator('[data-error-for="q_proj"]')).to_have_text("Scegli almeno un modulo da adattare.")
    form.get_by_label("Down dell'MLP (down_proj, w2, fc2)").check()
    expect(form.locator('[data-error-for="q_proj"]')).to_have_text("")
    expect(output(form, "trainable_parameters")).to_have_text(format_integer(32 * 16 * (14336 + 4096)))
    form.locator("details[data-fold] summary").click()  # the shape, folded once the preset filled it
    form.locator('input[name="total_parameters_billion"]').fill("")
    expect(output(form, "trainable_percent")).to_have_text("—")
    expect(form.locator("[data-message]")).to_have_text("")


def test_home_links_every_calculator(page: Page, server: Server) -> None:
    page.goto(server.url)
    for calc in CALCULATORS.values():
        expect(page.locator(f'a.card[href$="/{calc.id}/"]')).to_contain_text(calc.title)  # made absolute by the theme
    page.locator('a.card[href$="/parametri-lora/"]').click()
    expect(page).to_have_url(f"{server.url}parametri-lora/")
    page.get_by_role("link", name="Calcolatore della VRAM di addestramento per LLM").last.click()
    expect(page).to_have_url(f"{server.url}vram-addestramento-llm/")
    expect(page.locator('form[data-calculator="vram-addestramento-llm"]')).to_have_attribute(
        "data-state", "ready", timeout=60_000
    )
