"""Issue 23 in a real browser: a config.json pasted (or chosen as a file) fills the page's fields, offline, and the
text never reaches the address or this device's storage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ..conftest import Server
from ..pages.step_record import SETUPS
from ..support.pages import answer, open_ready, output

LORA = "parametri-lora"
LLAMA_8B = next(s["model"] for s in SETUPS if s["model"]["hf_id"] == "meta-llama/Llama-3.1-8B")
CONFIG = json.dumps({**LLAMA_8B["config"], "model_type": "llama"}, indent=2)


@pytest.mark.browser
def test_a_pasted_config_fills_the_fields(page: Page, server: Server) -> None:
    form = open_ready(page, server, LORA)
    box = form.locator("[data-paste-box]")
    expect(box).to_be_visible()
    box.locator("summary").click()
    box.locator("[data-paste]").fill(CONFIG)
    expect(form.locator('[name="layers"]')).to_have_value("32")
    expect(form.locator('[name="vocab_size"]')).to_have_value("128256")
    expect(box.locator("[data-paste-notes]")).to_contain_text("8.030.261.248")
    fields = {name: form.locator(f'[name="{name}"]').input_value()
              for name in ("layers", "hidden_size", "intermediate_size", "attention_heads", "kv_heads", "head_dim",
                           "vocab_size", "base_parameters", "total_parameters_billion")}
    expected = answer(LORA, fields)["results"]
    expect(output(form, "trainable_parameters")).to_have_text(expected["trainable_parameters"])  # type: ignore[index]
    page.wait_for_timeout(600)  # the address is written after edits settle
    assert "model_type" not in page.url and "rope" not in page.url
    stored = page.evaluate("JSON.stringify(Object.assign({}, localStorage))")
    assert "model_type" not in stored


@pytest.mark.browser
def test_a_config_file_and_a_broken_one(page: Page, server: Server, tmp_path: Path) -> None:
    form = open_ready(page, server, LORA)
    box = form.locator("[data-paste-box]")
    box.locator("summary").click()
    broken = tmp_path / "config.json"
    broken.write_text("{ not json")
    box.locator("[data-paste-file]").set_input_files(str(broken))
    expect(box.locator("[data-paste-error]")).to_contain_text("Non è un JSON valido")
    expect(form.locator('[name="layers"]')).to_have_value(form.locator('[name="layers"]').input_value())
    good = tmp_path / "good.json"
    good.write_text(CONFIG)
    box.locator("[data-paste-file]").set_input_files(str(good))
    expect(form.locator('[name="layers"]')).to_have_value("32")
