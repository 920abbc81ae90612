"""Issue 21's one flow, in a real browser: from the LoRA page's count to «does it fit a 24 GB card?» on the VRAM
page's step convention, in a few edits, the answers the same as Python's for the same values."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from ..conftest import Server
from ..support.pages import answer, calculator, open_ready, output

VRAM, LORA = "vram-addestramento-llm", "parametri-lora"


@pytest.mark.browser
def test_qlora_on_a_24_gb_card_from_the_lora_page(page: Page, server: Server) -> None:
    lora = open_ready(page, server, LORA)
    lora.locator("button.calc__preset", has_text="Llama 3.1 8B").first.click()
    lora.locator('[name="rank"]').fill("16")
    for module in ("k_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
        lora.locator(f'[name="{module}"]').check()
    link = lora.locator('a[data-feed="vram"]')
    expect(link).to_have_attribute("href", re.compile("convention=passo"))
    link.click()
    vram = calculator(page, VRAM)
    expect(vram).to_have_attribute("data-state", "ready", timeout=60_000)
    carried = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert carried["convention"] == "passo" and carried["method"] == "lora" and carried["lora_targets"] == "tutti"
    # The few edits: QLoRA, 2048 tokens, micro-batch 2, Transformers' checkpointing, a 24 GB card.
    vram.locator('[name="method"]').select_option("qlora")
    vram.locator('[name="sequence_length"]').fill("2048")
    vram.locator('[name="micro_batch"]').fill("2")
    vram.locator('[name="checkpointing"]').select_option("completo")
    vram.locator("button.calc__preset", has_text="RTX 4090 24GB").click()
    typed = {**carried, "method": "qlora", "sequence_length": "2048", "micro_batch": "2",
             "checkpointing": "completo", "gpu_memory_gb": vram.locator('[name="gpu_memory_gb"]').input_value()}
    expected = answer(VRAM, typed)["results"]
    for key in ("fit", "smi_gib", "peak_allocated_gib", "trainable_parameters", "max_micro_batch"):
        expect(output(vram, key)).to_have_text(expected[key])  # type: ignore[index]
    assert str(expected["fit"]).startswith("Entra")  # type: ignore[index]
    # The chart sits beside the verdict, in the results column, one bar per phase.
    chart = vram.locator(".calc__results [data-chart] svg")
    expect(chart).to_be_visible()
    assert chart.locator("rect.calc-part-0").count() >= 3
