"""What the page does with a number it could misread and with a unit the reader changes (issue 25), in Chromium."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from ..conftest import Server
from ..support.pages import open_ready, output

pytestmark = pytest.mark.browser
ACC, VRAM = "accumulo-del-gradiente", "vram-addestramento-llm"


def test_an_ambiguous_number_is_echoed_next_to_its_field(page: Page, server: Server) -> None:
    form = open_ready(page, server, VRAM)
    note = form.locator('[data-note-for="parameters_billion"]')
    expect(note).to_be_hidden()
    form.locator('[name="parameters_billion"]').fill("1.235")
    expect(note).to_be_visible()
    expect(note).to_have_text("Letto come 1\u202f235 miliardi. Intendevi 1,235 miliardi? Allora scrivi la virgola:"
                              " 1,235.")
    form.locator('[name="parameters_billion"]').fill("1,235")
    expect(note).to_be_hidden()
    acc = open_ready(page, server, ACC)
    acc.locator('[name="micro_batch"]').fill("1,000")
    expect(acc.locator('[data-note-for="micro_batch"]')).to_contain_text("Intendevi 1\u202f000 campioni?")


def test_changing_the_unit_converts_the_value(page: Page, server: Server) -> None:
    form = open_ready(page, server, ACC)
    expect(output(form, "activation_memory")).to_have_text("2 GB")
    form.locator('[name="activation_unit"]').select_option("MB")
    expect(form.locator('[name="activation_per_sample_gb"]')).to_have_value("500")
    expect(output(form, "activation_memory")).to_have_text("2 GB")  # the same memory, in the best unit
    form.locator('[name="activation_unit"]').select_option("GiB")
    expect(form.locator('[name="activation_per_sample_gb"]')).to_have_value("0,465661")
    form.locator('[name="activation_unit"]').select_option("GB")
    expect(form.locator('[name="activation_per_sample_gb"]')).to_have_value("0,5")
    # A value typed after the change is read in the new unit, and the address keeps what the fields show.
    form.locator('[name="activation_unit"]').select_option("MB")
    expect(form.locator('[name="activation_per_sample_gb"]')).to_have_value("500")
    form.locator('[name="activation_per_sample_gb"]').fill("250")
    expect(output(form, "activation_memory")).to_have_text("1 GB")
    page.wait_for_function("() => location.search.includes('activation_per_sample_gb=250')")
    query = parse_qs(urlparse(page.url).query)
    assert query["activation_unit"] == ["MB"] and query["activation_per_sample_gb"] == ["250"]


# The unit changed, then the value's whole text selected before the conversion arrives (a slow engine, a quick reader).
UNIT_THEN_SELECT = """() => {
  const form = document.querySelector('form[data-calculator="accumulo-del-gradiente"]');
  form.elements.namedItem("activation_unit").value = "MB";
  form.elements.namedItem("activation_unit").dispatchEvent(new Event("change", { bubbles: true }));
  const field = form.elements.namedItem("activation_per_sample_gb");
  field.focus();
  field.select();
}"""


def test_a_value_selected_before_its_conversion_arrives_stays_selected(page: Page, server: Server) -> None:
    form = open_ready(page, server, ACC)
    field = form.locator('[name="activation_per_sample_gb"]')
    page.evaluate(UNIT_THEN_SELECT)  # one task: the engine's answer comes in a later one
    expect(field).to_have_value("500")
    assert field.evaluate("(f) => [f.selectionStart, f.selectionEnd, document.activeElement === f]") == [0, 3, True]
    page.keyboard.type("250")  # replaces the converted value, as it would have replaced "0,5"
    expect(field).to_have_value("250")
    expect(output(form, "activation_memory")).to_have_text("1 GB")


# The reader's first edit can come before the engine's first answer: changes the unit the moment the form says ready.
# The engine's answer may come before DOMContentLoaded (a task queued after the page's modules ran, as the event is):
# looked at once, then watched.
UNIT_AT_READY = """
document.addEventListener("DOMContentLoaded", () => {
  const form = document.querySelector('form[data-calculator="accumulo-del-gradiente"]');
  const atReady = (_, observer) => {
    if (form.dataset.state !== "ready") return;
    observer.disconnect();
    form.elements.namedItem("activation_unit").value = "MB";
    form.elements.namedItem("activation_unit").dispatchEvent(new Event("change", { bubbles: true }));
  };
  const observer = new MutationObserver(atReady);
  observer.observe(form, { attributes: true, attributeFilter: ["data-state"] });
  atReady([], observer);
});
"""


def test_a_unit_changed_before_the_first_answer_converts_the_value(page: Page, server: Server) -> None:
    page.add_init_script(UNIT_AT_READY)
    form = open_ready(page, server, ACC)
    expect(form.locator('[name="activation_unit"]')).to_have_value("MB")
    expect(form.locator('[name="activation_per_sample_gb"]')).to_have_value("500")
    expect(output(form, "activation_memory")).to_have_text("2 GB")


def test_eight_gpus_and_a_target_of_256_plan_256(page: Page, server: Server) -> None:
    form = open_ready(page, server, ACC)
    form.locator('[name="mode"]').select_option("gpu")
    form.locator('[name="data_parallel_gpus"]').fill("8")
    form.locator('[name="model_states_gb"]').fill("73,7")  # 10,2 GB left: 20 samples of 0,5 GB
    form.locator('[name="target_effective_batch"]').fill("256")
    expect(output(form, "micro_batch_fit")).to_have_text("20")
    expect(output(form, "effective_batch")).to_have_text("256")
    expect(output(form, "micro_batch_plan")).to_have_text("16")
    expect(output(form, "accumulation_needed")).to_have_text("2")
    expect(form.locator('[data-output="config_deepspeed"]')).to_contain_text('"train_batch_size": 256')
    expect(form.locator('[data-output="config_hf"]')).to_contain_text("per_device_train_batch_size=16,")
    form.locator('[name="plan_goal"]').select_option("massimo")
    expect(output(form, "micro_batch_plan")).to_have_text("20")
    expect(output(form, "effective_batch")).to_have_text("320")
    expect(form.locator('[data-output="config_deepspeed"]')).to_contain_text('"train_batch_size": 320')
