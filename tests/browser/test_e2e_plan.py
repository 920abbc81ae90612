"""Reverse mode, shareable links, configs and reset on the gradient-accumulation page, in Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from calculator.form.numbers import format_integer

from ..conftest import Server, Watch, assert_clean, watch_page, watched_context
from ..support.pages import READY_TIMEOUT, calculator, open_ready, output

pytestmark = pytest.mark.browser
ACC = "accumulo-del-gradiente"


@pytest.fixture
def clipboard_context(browser, server: Server) -> Iterator[tuple[BrowserContext, Watch]]:  # type: ignore[no-untyped-def]
    watch = Watch()
    context = watched_context(browser, server.host, watch)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url.rstrip("/"))
    yield context, watch
    context.close()
    assert_clean(watch)


def new_page(context: BrowserContext, watch: Watch) -> Page:
    page = context.new_page()
    watch_page(page, watch)
    page.on("dialog", lambda dialog: pytest.fail(f"a dialog opened: {dialog.message}"))
    return page


def test_reverse_mode_copy_link_and_reopen(clipboard_context: tuple[BrowserContext, Watch], server: Server) -> None:
    context, watch = clipboard_context
    page = new_page(context, watch)
    form = open_ready(page, server, ACC)
    form.locator('[name="micro_batch"]').fill("6")
    form.locator('[name="mode"]').select_option("obiettivo")
    expect(form.locator('[name="micro_batch"]')).to_be_hidden()
    expect(form.locator('[name="target_effective_batch"]')).to_be_visible()
    form.locator('[name="target_effective_batch"]').fill("1000")
    form.locator('[name="data_parallel_gpus"]').fill("4")
    form.locator('[name="memory_budget"]').fill("1,5")
    form.locator('[name="activation_per_sample_gb"]').fill("0,3")
    expect(output(form, "micro_batch_fit")).to_have_text("5")
    expect(output(form, "accumulation_needed")).to_have_text("50")
    expect(output(form, "effective_batch")).to_have_text(format_integer(1000))
    expect(output(form, "plan_note")).to_have_text("Il batch effettivo desiderato si raggiunge esattamente: 5 campioni"
                                                   " per GPU × 50 passi × 4 GPU = 1.000.")
    form.locator('[name="target_effective_batch"]').fill("1001")
    expect(output(form, "plan_note")).to_contain_text("sempre un multiplo di 4")
    expect(form.locator('[data-output="config_deepspeed"]')).to_contain_text('"train_batch_size": 1020')
    form.get_by_role("button", name="Copia link").click()
    expect(form.get_by_role("button", name="Link copiato negli appunti")).to_be_visible()
    link = page.evaluate("navigator.clipboard.readText()")
    assert "mode=obiettivo" in link and "target_effective_batch=1001" in link
    form.locator('[data-copy="config_deepspeed"]').click()
    copied = json.loads(page.evaluate("navigator.clipboard.readText()"))
    assert copied == {"train_batch_size": 1020, "train_micro_batch_size_per_gpu": 5, "gradient_accumulation_steps": 51}

    other = new_page(context, watch)
    other.goto(link)
    again = calculator(other, ACC)
    expect(again).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
    expect(again.locator('[name="mode"]')).to_have_value("obiettivo")
    expect(output(again, "micro_batch_fit")).to_have_text("5")
    expect(output(again, "effective_batch")).to_have_text(format_integer(1020))
    expect(again.locator('[name="micro_batch"]')).to_have_value("6")  # the other mode's value travels too
    # Switching back keeps what was typed in the direct mode.
    again.locator('[name="mode"]').select_option("diretto")
    expect(again.locator('[name="micro_batch"]')).to_have_value("6")
    expect(output(again, "effective_batch")).to_have_text(f"{6 * 8 * 4}")


def test_hostile_link_only_ever_becomes_field_text(clipboard_context: tuple[BrowserContext, Watch], server: Server) -> None:
    context, watch = clipboard_context
    page = new_page(context, watch)
    hostile = quote("<img src=x onerror=alert(1)>")
    page.goto(f"{server.url}{ACC}/?micro_batch={hostile}&mode=javascript:alert(1)&accumulation_steps=%22%3E%3Cscript%3E")
    form = calculator(page, ACC)
    expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
    expect(form.locator('[name="micro_batch"]')).to_have_value("<img src=x onerror=alert(1)>")
    expect(form.locator('[data-error-for="micro_batch"]')).to_have_text(
        "Dimensione del micro-batch: scrivi un numero, per esempio 4."
    )
    # A mode that is not an option is never put in the list: the first mode applies (Python's rule).
    expect(form.locator('[name="mode"]')).to_have_value("diretto")
    expect(form.locator('[data-error-for="mode"]')).to_have_text("")
    assert page.locator("img[src=x]").count() == 0
    assert page.locator("form script").count() == 0


def test_reset_units_and_extras(page: Page, server: Server) -> None:
    form = open_ready(page, server, ACC)
    form.locator('[name="activation_unit"]').select_option("MB")
    # Typing only once the converted value is in: a fill racing the conversion would type into "0,5" as it changes.
    expect(form.locator('[name="activation_per_sample_gb"]')).to_have_value("500")
    expect(form.locator('[data-unit-of="activation_per_sample_gb"]').first).to_have_text("MB")
    form.locator('[name="activation_per_sample_gb"]').fill("250")
    expect(output(form, "activation_memory")).to_have_text("1 GB")  # 1 000 MB, shown in GB
    form.locator('[name="dataset_size"]').fill("1.000.000")
    form.locator('[name="sequence_length"]').fill("2048")
    expect(output(form, "steps_per_epoch")).to_have_text(format_integer(31_250))
    expect(output(form, "tokens_per_step")).to_have_text(format_integer(65_536))
    expect(page).to_have_url(re.compile(r"activation_unit=MB"))  # written once typing pauses
    form.get_by_role("button", name="Ripristina i valori predefiniti").click()
    expect(form.locator('[name="activation_per_sample_gb"]')).to_have_value("0,5")
    expect(output(form, "activation_memory")).to_have_text("2 GB")
    expect(output(form, "steps_per_epoch")).to_have_text("—")
    expect(form.locator('[data-unit-of="activation_per_sample_gb"]').first).to_have_text("GB")
    expect(page).to_have_url(f"{server.url}{ACC}/")
