"""The family as one tool: results carried to siblings by links declared in Python, values kept on this device."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
from playwright.sync_api import Page, expect

from calculator.form.numbers import format_field

from ..conftest import Server
from ..support.outputs import output_number
from ..support.pages import answer, calculator, open_ready, output

ACT, ACC, VRAM, LORA = "memoria-attivazioni", "accumulo-del-gradiente", "vram-addestramento-llm", "parametri-lora"


@pytest.mark.browser
def test_the_chain_by_links_only_reads_the_same_figures_as_typing(page: Page, server: Server) -> None:
    form = open_ready(page, server, ACT)
    form.locator('[name="sequence_length"]').fill("2048")
    form.locator('[name="micro_batch"]').fill("2")
    act = answer(ACT, {"sequence_length": "2048", "micro_batch": "2"})["results"]
    expect(output(form, "per_sample_gb")).to_have_text(act["per_sample_gb"])  # type: ignore[index]
    a = format_field(output_number(ACT, "per_sample_gb", sequence_length="2048", micro_batch="2"))  # as a field takes it

    form.locator('a[data-feed="accumulo"]').click()
    acc = calculator(page, ACC)
    expect(acc).to_have_attribute("data-state", "ready", timeout=60_000)
    acc.locator('[name="data_parallel_gpus"]').fill("4")
    by_hand = answer(ACC, {"activation_per_sample_gb": a, "micro_batch": "2", "sequence_length": "2048",
                           "data_parallel_gpus": "4"})
    expect(output(acc, "activation_memory")).to_have_text(by_hand["results"]["activation_memory"])  # type: ignore[index]

    acc.locator('a[data-feed="vram"]').click()
    vram = calculator(page, VRAM)
    expect(vram).to_have_attribute("data-state", "ready", timeout=60_000)
    m = parse_qs(by_hand["links"]["vram"][1:])  # type: ignore[index]
    expect(vram.locator('[name="activation_gb"]')).to_have_value(m["activation_gb"][0])
    expect(vram.locator('[name="gpus"]')).to_have_value("4")
    typed = answer(VRAM, {"activation_gb": m["activation_gb"][0], "gpus": "4"})
    expect(output(vram, "per_gpu_gb")).to_have_text(typed["results"]["per_gpu_gb"])  # type: ignore[index]


@pytest.mark.browser
def test_values_come_back_on_return_and_reset_forgets_them(page: Page, server: Server) -> None:
    form = open_ready(page, server, VRAM)
    form.locator('[name="parameters_billion"]').fill("13")
    form.locator('[name="gpus"]').fill("8")
    expect(output(form, "per_gpu_gb")).to_have_text(answer(VRAM, {"parameters_billion": "13", "gpus": "8"})
                                                    ["results"]["per_gpu_gb"])  # type: ignore[index]
    page.goto(server.url)  # away, then back with a plain address
    form = open_ready(page, server, VRAM)
    expect(form.locator('[name="parameters_billion"]')).to_have_value("13")
    expect(form.locator('[name="gpus"]')).to_have_value("8")
    expect(output(form, "per_gpu_gb")).to_have_text(answer(VRAM, {"parameters_billion": "13", "gpus": "8"})
                                                    ["results"]["per_gpu_gb"])  # type: ignore[index]
    # A link's values win over what this device remembers, and merge into it (issue 25): what it does not carry stays.
    page.goto(f"{server.url}{VRAM}/?parameters_billion=70")
    form = calculator(page, VRAM)
    expect(form).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(form.locator('[name="parameters_billion"]')).to_have_value("70")
    expect(form.locator('[name="gpus"]')).to_have_value("8")
    # "Ripristina" forgets them: the next plain visit shows the defaults.
    form.get_by_role("button", name="Ripristina i valori predefiniti").click()
    expect(form.locator('[name="parameters_billion"]')).to_have_value("7")
    page.wait_for_timeout(100)
    form = open_ready(page, server, VRAM)
    expect(form.locator('[name="parameters_billion"]')).to_have_value("7")
    assert page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('calcolatori:'))") == []
