"""The activation-memory page in Chromium, and its results carried to the siblings by their links only."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from calculator import CALCULATORS, respond
from calculator.form.numbers import format_field

from ..conftest import Server
from ..support.outputs import output_number
from ..support.pages import calculator, open_ready, output

pytestmark = pytest.mark.browser
ACT, ACC, VRAM = "memoria-attivazioni", "accumulo-del-gradiente", "vram-addestramento-llm"


def answer(calculator_id: str, values: dict[str, str]) -> dict[str, str]:
    calc = CALCULATORS[calculator_id]
    result = respond({"calculator": calculator_id, "values": {**calc.defaults, **values}})
    assert result["status"] == "ok", result["errors"]
    return result["results"]  # type: ignore[return-value]


def test_a_preset_then_the_links_fill_the_siblings(page: Page, server: Server) -> None:
    form = open_ready(page, server, ACT)
    form.get_by_role("button", name="Qwen3 8B").click()
    form.locator('[name="attention"]').select_option("eager")
    form.locator('[name="micro_batch"]').fill("2")
    typed = {"layers": "36", "hidden_size": "4096", "attention_heads": "32", "kv_heads": "8", "head_dim": "128",
             "intermediate_size": "12288", "vocab_size": "151936", "qk_norm": "on", "attention": "eager",
             "micro_batch": "2"}
    ours = answer(ACT, typed)
    expect(output(form, "per_sample_gb")).to_have_text(ours["per_sample_gb"])
    a, m = (format_field(output_number(ACT, result, typed)) for result in ("per_sample_gb", "per_micro_batch_gb"))

    form.get_by_role("link", name="Calcolatore della memoria con accumulo del gradiente, con A").click()
    acc = calculator(page, ACC)
    expect(acc).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(acc.locator('[name="activation_per_sample_gb"]')).to_have_value(a)
    expect(acc.locator('[name="micro_batch"]')).to_have_value("2")
    by_hand = answer(ACC, {"activation_per_sample_gb": a, "micro_batch": "2", "sequence_length": "4096"})
    expect(output(acc, "activation_memory")).to_have_text(by_hand["activation_memory"])
    expect(output(acc, "tokens_per_step")).to_have_text(by_hand["tokens_per_step"])

    page.go_back()
    form = calculator(page, ACT)
    expect(form).to_have_attribute("data-state", "ready", timeout=60_000)
    form.get_by_role("link", name="Calcolatore della VRAM, con la memoria delle attivazioni per GPU").click()
    vram = calculator(page, VRAM)
    expect(vram).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(vram.locator('[name="activation_gb"]')).to_have_value(m)
    expect(output(vram, "per_gpu_gb")).to_have_text(answer(VRAM, {"activation_gb": m})["per_gpu_gb"])


# An edit, then a click on the link to the VRAM page in the same task, before the edit's answer can have come.
EDIT_THEN_FOLLOW = """() => {
  const form = document.querySelector('form[data-calculator="memoria-attivazioni"]');
  const field = form.elements.namedItem("micro_batch");
  field.value = "3";
  field.dispatchEvent(new Event("input", { bubbles: true }));
  [...form.querySelectorAll("a[data-feed]")].find((link) => link.pathname.includes("vram-addestramento-llm")).click();
}"""


def test_a_link_followed_before_the_answer_carries_the_new_values(page: Page, server: Server) -> None:
    """The link waits for the answer that changes where it leads (it held the values before the edit)."""
    open_ready(page, server, ACT)
    m = format_field(output_number(ACT, "per_micro_batch_gb", {"micro_batch": "3"}))
    assert m != format_field(output_number(ACT, "per_micro_batch_gb"))
    page.evaluate(EDIT_THEN_FOLLOW)
    vram = calculator(page, VRAM)
    expect(vram).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(vram.locator('[name="activation_gb"]')).to_have_value(m)
    assert "micro_batch" not in page.url or "da=memoria-attivazioni" in page.url


def test_links_follow_each_edit_and_hide_on_bad_input(page: Page, server: Server) -> None:
    form = open_ready(page, server, ACT)
    link = form.locator('[data-feed="vram"]')
    form.locator('[name="sequence_length"]').fill("8192")
    calc = CALCULATORS[ACT]
    query = respond({"calculator": ACT, "values": {**calc.defaults, "sequence_length": "8192"}})["links"]["vram"]
    m = urlencode({"activation_gb": format_field(output_number(ACT, "per_micro_batch_gb", sequence_length="8192"))})
    assert query.endswith(f"&{m}")  # the result it carries, after every field the two pages share
    expect(link).to_have_attribute("href", f"{server.url}{VRAM}/{query}")
    form.locator('[name="tensor_parallel"]').fill("3")
    expect(form.locator('[data-error-for="tensor_parallel"]')).to_contain_text("non dividono le 32 teste")
    expect(link).to_be_hidden()
    form.locator('[name="tensor_parallel"]').fill("2")
    expect(link).to_be_visible()


def test_experts_and_an_encoder_from_the_presets(page: Page, server: Server) -> None:
    """Mixtral's preset fills the experts; Whisper's the decoder and the 1500 audio frames, and back to a dense
    decoder-only model clears them: each time the page shows the module's figures, and an impossible mixture gets
    its message beside the field."""
    from calculator.llm.catalogue import model
    from calculator.pages.presets import field_texts

    form = open_ready(page, server, ACT)
    fields = {f.id for f in CALCULATORS[ACT].fields}
    for model_id, label in (("mixtral-8x7b", "Mixtral 8x7B"), ("whisper-small", "Whisper small"),
                            ("llama-3.1-8b", "Llama 3.1 8B")):
        form.get_by_role("button", name=label).click()
        texts = {k: v for k, v in field_texts(model(model_id)).items() if k in fields}
        for key in ("experts", "experts_per_token", "decoder_layers", "encoder_sequence"):
            expect(form.locator(f'[name="{key}"]')).to_have_value(texts[key])
        expect(output(form, "per_sample_gb")).to_have_text(answer(ACT, texts)["per_sample_gb"])
    form.locator("details[data-fold] summary").click()  # the shape, folded once the preset filled it
    form.locator('[name="experts"]').fill("8")
    form.locator('[name="experts_per_token"]').fill("9")
    expect(form.locator('[data-error-for="experts_per_token"]')).to_contain_text("più degli esperti per strato (8)")
    expect(form.locator('[name="experts_per_token"]')).to_have_value("9")


def test_transformers_flash_attention_pads_latent_values(page: Page, server: Server) -> None:
    """DeepSeek-V2-Lite from the address, then Transformers' flash_attention_2: the page shows Python's answer for it,
    more than with FlashAttention / SDPA (the padded values); SDPA again brings the first answer back."""
    from calculator.llm.catalogue import model
    from calculator.pages.presets import field_texts

    ids = {spec.id for spec in CALCULATORS[ACT].fields}
    texts = {name: text for name, text in field_texts(model("deepseek-v2-lite")).items() if name in ids}
    page.goto(f"{server.url}{ACT}/?{urlencode(texts)}")
    form = calculator(page, ACT)
    expect(form).to_have_attribute("data-state", "ready", timeout=60_000)
    sdpa, padded = answer(ACT, texts), answer(ACT, {**texts, "attention": "flash_attention_2"})
    assert sdpa["per_micro_batch_gb"] != padded["per_micro_batch_gb"]
    expect(output(form, "per_micro_batch_gb")).to_have_text(sdpa["per_micro_batch_gb"])
    form.locator('[name="attention"]').select_option(label="flash_attention_2 / _3 di Transformers")
    expect(output(form, "per_micro_batch_gb")).to_have_text(padded["per_micro_batch_gb"])
    assert output_number(ACT, "per_micro_batch_gb", {**texts, "attention": "flash_attention_2"}) > output_number(
        ACT, "per_micro_batch_gb", texts)
    form.locator('[name="attention"]').select_option("flash")
    expect(output(form, "per_micro_batch_gb")).to_have_text(sdpa["per_micro_batch_gb"])
