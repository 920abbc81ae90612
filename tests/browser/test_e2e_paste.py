"""Issue 23 in a real browser: a config.json pasted (or chosen as a file) fills the page's fields, offline, and the
text never reaches the address or this device's storage."""

from __future__ import annotations

import json
import re
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
    assert "model_type" not in page.url and "rope_theta" not in page.url
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


# DeepSeek-V3's shape keys as its config.json publishes them (https://huggingface.co/deepseek-ai/DeepSeek-V3).
DEEPSEEK_V3 = json.dumps({
    "model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
    "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
    "moe_layer_freq": 1, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
    "v_head_dim": 128, "num_nextn_predict_layers": 1, "tie_word_embeddings": False, "torch_dtype": "bfloat16"})
LATENT = {"kv_lora_rank": "512", "q_lora_rank": "1536", "qk_rope_head_dim": "64", "qk_nope_head_dim": "128",
          "v_head_dim": "128", "dense_layers": "3", "dense_intermediate_size": "18432"}


@pytest.mark.browser
def test_a_latent_attention_config_fills_the_lora_page(page: Page, server: Server) -> None:
    form = open_ready(page, server, LORA)
    box = form.locator("[data-paste-box]")
    box.locator("summary").click()
    box.locator("[data-paste]").fill(DEEPSEEK_V3)
    for name, value in LATENT.items():
        expect(form.locator(f'[name="{name}"]')).to_have_value(value)
    expect(box.locator("[data-paste-notes]")).to_contain_text("671.026.404.352")
    expect(box.locator("[data-paste-notes]")).to_contain_text("MTP")
    # The reader's targets: the query's last projection and kv_b_proj (latent attention has no v_proj).
    form.locator('[name="v_proj"]').uncheck()
    form.locator('[name="q_proj"]').uncheck()
    form.locator('[name="q_b_proj"]').check()
    form.locator('[name="kv_b_proj"]').check()
    fields = {name: form.locator(f'[name="{name}"]').input_value()
              for name in ("layers", "hidden_size", "intermediate_size", "attention_heads", "kv_heads", "head_dim",
                           "experts", "shared_intermediate_size", "vocab_size", *LATENT)}
    targets = {name: "" for name in ("q_proj", "v_proj")} | {"q_b_proj": "on", "kv_b_proj": "on"}
    expected = answer(LORA, {**fields, **targets})["results"]
    expect(output(form, "trainable_parameters")).to_have_text(expected["trainable_parameters"])  # type: ignore[index]


@pytest.mark.browser
@pytest.mark.parametrize("calculator_id", ["vram-addestramento-llm", "memoria-attivazioni", "tempo-di-addestramento"])
def test_a_config_pasted_on_each_model_page(page: Page, server: Server, calculator_id: str) -> None:
    form = open_ready(page, server, calculator_id)
    box = form.locator("[data-paste-box]")
    box.locator("summary").click()
    box.locator("[data-paste]").fill(DEEPSEEK_V3)
    expect(box.locator("[data-paste-notes]")).to_contain_text("671.026.404.352")
    if form.locator('[name="layers"]').count():
        expect(form.locator('[name="layers"]')).to_have_value("61")
    if form.locator('[name="parameters_billion"]').count():
        expect(form.locator('[name="parameters_billion"]')).to_have_value(re.compile(r"^671,026"))


@pytest.mark.browser
def test_a_config_file_dropped_on_the_box(page: Page, server: Server) -> None:
    form = open_ready(page, server, LORA)
    box = form.locator("[data-paste-box]")
    dropped = page.evaluate_handle(
        "(text) => { const data = new DataTransfer();"
        " data.items.add(new File([text], 'config.json', {type: 'application/json'})); return data; }", DEEPSEEK_V3)
    box.dispatch_event("drop", {"dataTransfer": dropped})
    expect(box).to_have_attribute("open", "")
    expect(form.locator('[name="kv_lora_rank"]')).to_have_value("512")
    expect(form.locator('[name="kv_b_proj"]')).to_be_checked()
    expect(box.locator("[data-paste]")).to_have_value(DEEPSEEK_V3)
