"""Issue 22's question, in a real browser: «Llama 3.1 70B, full fine-tuning on H100 80GB at 8192 tokens: how many
GPUs, with which TP/PP/FSDP layout?» answered on the VRAM page from a preset; the layout applied; the link to the
accumulation page plans the global batch over the data-parallel replicas only."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from playwright.sync_api import Page, expect

from ..conftest import Server
from ..support.pages import answer, calculator, open_ready, output

VRAM, ACCUMULATION = "vram-addestramento-llm", "accumulo-del-gradiente"
SLOW = 60_000  # the engine answers in a few seconds on a busy machine; the searches take longer
LAYOUT = re.compile(r"Servono almeno (\d+) GPU da 85,9 GB: TP (\d+) × PP (\d+) × DP (\d+), ZeRO-(\d)")


@pytest.mark.browser
def test_how_many_h100_for_llama_70b_at_8192_tokens(page: Page, server: Server) -> None:
    vram = open_ready(page, server, VRAM)
    vram.locator('[name="convention"]').select_option("passo")
    vram.locator("button.calc__preset", has_text="Llama 3.1 70B").first.click()
    vram.locator("button.calc__preset", has_text="H100 80GB").first.click()
    vram.locator('[name="sequence_length"]').fill("8192")
    vram.locator('[name="zero_stage"]').select_option("3")
    vram.locator('[name="inverse"]').check()
    expect(output(vram, "min_gpus")).to_have_text(LAYOUT, timeout=SLOW)
    # The address takes the edits once typing pauses (250 ms), which a quick answer may come before.
    expect(page).to_have_url(re.compile(r"[?&]inverse=[^&]"))
    found = LAYOUT.search(output(vram, "min_gpus").inner_text())
    assert found is not None
    gpus, tp, pp, dp, stage = found.groups()
    typed = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert output(vram, "min_gpus").inner_text() == answer(VRAM, typed)["results"]["min_gpus"]  # type: ignore[index]
    # The layout applied (the searches off: each of them takes a moment in the browser): it fits, DP = GPUs / (TP · PP).
    vram.locator('[name="inverse"]').uncheck()
    vram.locator('[name="gpus"]').fill(gpus)
    vram.locator('[name="tensor_parallel"]').fill(tp)
    vram.locator('[name="pipeline_parallel"]').fill(pp)
    vram.locator('[name="zero_stage"]').select_option(stage)
    expect(output(vram, "data_parallel")).to_have_text(re.compile(rf"^{dp}\b"), timeout=SLOW)
    # It fits by the expected nvidia-smi figure (as the largest micro-batch is chosen): «entra» or «al limite».
    expect(output(vram, "fit")).to_have_text(re.compile(r"^(Entra|Al limite)"), timeout=SLOW)
    link = vram.locator('a[data-feed="accumulo"]')
    expect(link).to_have_attribute("href", re.compile(rf"data_parallel_gpus={dp}(&|$)"), timeout=SLOW)
    link.click()
    accumulation = calculator(page, ACCUMULATION)
    expect(accumulation).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(accumulation.locator('[name="data_parallel_gpus"]')).to_have_value(dp)
    expect(accumulation.locator('[name="mode"]')).to_have_value("gpu")
    carried = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    expected = answer(ACCUMULATION, carried)["results"]
    assert int(dp) < int(gpus)  # the replicas, not every GPU, multiply the micro-batch
    expect(output(accumulation, "effective_batch")).to_have_text(
        expected["effective_batch"], timeout=SLOW)  # type: ignore[index]


@pytest.mark.browser
def test_a_comparison_travels_by_its_link(page: Page, server: Server) -> None:
    from calculator.pages.vram import CALCULATOR

    example = CALCULATOR.examples["passo_70b_confronto"]
    page.goto(f"{server.url}{VRAM}/?{urlencode(example)}")
    vram = calculator(page, VRAM)
    expect(vram).to_have_attribute("data-state", "ready", timeout=60_000)
    expected = answer(VRAM, dict(example))["results"]
    expect(output(vram, "comparison")).to_have_text(expected["comparison"], timeout=SLOW)  # type: ignore[index]
    chart = vram.locator(".calc__results [data-chart] svg")
    expect(chart).to_be_visible()
    expect(chart.locator("text", has_text=re.compile(r"^D: "))).to_have_count(1)
