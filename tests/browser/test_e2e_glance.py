"""The answer at a glance (issue 25): the headline results and the verdict in view while editing, at every width;
the verdict's tone; only the summary announced; presets that show which one is active; the model's shape folded."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from calculator import CALCULATORS

from ..conftest import Server
from ..support.pages import calculator, open_ready, output

VRAM, LORA, ACT, ACC = "vram-addestramento-llm", "parametri-lora", "memoria-attivazioni", "accumulo-del-gradiente"
TIME = "tempo-di-addestramento"

# Whether an element is the topmost thing painted at its centre (not under the bar kept in view).
UNCOVERED = """(element) => {
  const box = element.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return hit === element || element.contains(hit);
}"""


def glance_items(form: Locator) -> Locator:
    return form.locator(".calc__glance-item:visible")


@pytest.mark.parametrize("width", [390, 1366])  # the phone's bottom bar and the desktop's column (1024 is the latter)
@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_the_headline_and_the_verdict_stay_in_view_while_editing(page: Page, server: Server, calculator_id: str,
                                                                 width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800 if width < 500 else 900})
    form = open_ready(page, server, calculator_id)
    calc = CALCULATORS[calculator_id]
    assert calc.glance, "every calculator declares its headline results"
    items = glance_items(form)
    assert items.count() >= 1
    fields = form.locator(".calc__inputs :is(input[type=text], select):visible")
    assert fields.count() >= 3
    for index in range(fields.count()):
        field = fields.nth(index)
        field.focus()  # the browser scrolls it into view, as when one tabs to it
        field.evaluate("(element) => element.scrollIntoView({block: 'nearest'})")
        for item in range(items.count()):
            expect(items.nth(item)).to_be_in_viewport()
        assert field.evaluate(UNCOVERED), f"{field.get_attribute('name')} under the bar at {width} px"


def test_a_verdict_has_a_tone_an_icon_and_a_negative_margin_looks_negative(page: Page, server: Server) -> None:
    form = open_ready(page, server, VRAM)
    verdict = form.locator('.calc__output[data-tone-for="fit"]')
    margin = form.locator('.calc__output[data-tone-for="headroom_gb"]')
    form.locator('[name="parameters_billion"]').fill("1")
    expect(verdict).to_have_attribute("data-tone", "good")
    expect(margin).to_have_attribute("data-tone", "")
    good = output(form, "fit").evaluate("(e) => [getComputedStyle(e).color, getComputedStyle(e, '::before').content]")
    assert "✔" in good[1]
    form.locator('[name="parameters_billion"]').fill("70")
    expect(verdict).to_have_attribute("data-tone", "bad")
    expect(margin).to_have_attribute("data-tone", "bad")
    expect(form.locator('.calc__glance-item[data-tone-for="fit"]')).to_have_attribute("data-tone", "bad")
    bad = output(form, "fit").evaluate("(e) => [getComputedStyle(e).color, getComputedStyle(e, '::before').content]")
    assert "✖" in bad[1] and bad[0] != good[0]
    expect(output(form, "headroom_gb")).to_contain_text("-")
    # What would make it fit, computed by the convention itself (here the classic one), in the verdict's tone.
    expect(output(form, "advice")).to_contain_text("2 GPU con ZeRO-3")
    expect(form.locator('.calc__output[data-tone-for="advice"]')).to_have_attribute("data-tone", "bad")
    number = output(form, "headroom_gb").evaluate("(e) => getComputedStyle(e).color")
    normal = output(form, "per_gpu_gb").evaluate("(e) => getComputedStyle(e).color")
    assert number == bad[0] and number != normal


def test_the_step_conventions_verdict_is_toned_by_its_band(page: Page, server: Server) -> None:
    form = open_ready(page, server, VRAM)
    form.locator('[name="convention"]').select_option("passo")
    expect(form).to_have_attribute("data-mode", "passo")
    for memory in ("20", "200"):
        form.locator('[name="gpu_memory_gb"]').fill(memory)
        expect(form.locator('.calc__output[data-tone-for="fit"]')).to_have_attribute(
            "data-tone", "bad" if memory == "20" else "good")
    expect(form.locator('.calc__output[data-tone-for="advice"]')).to_have_attribute("data-tone", "")


def test_only_the_headline_and_the_verdict_are_announced_once_typing_pauses(page: Page, server: Server) -> None:
    form = open_ready(page, server, VRAM)
    live = page.locator("[aria-live]:not([aria-live=off])")
    announced = form.locator("[data-announce]")
    assert live.evaluate_all("(all) => all.filter((e) => e.closest('.calc__results')).length") == 1
    assert form.locator(".calc__results [aria-live]:not([aria-live=off]) [data-output]").count() == 0
    # An <output> is a live region of its own (role status) unless told otherwise.
    assert form.locator("output:not([aria-live=off])").count() == 0
    expect(announced).to_have_text("")
    form.locator('[name="parameters_billion"]').fill("13")
    assert announced.text_content() == ""  # said only once typing pauses (0,9 s)
    expect(announced).to_contain_text("Memoria per GPU", timeout=5_000)
    text = announced.text_content() or ""
    assert "non entra" in text.lower() or "entra" in text.lower()
    assert "Byte per parametro" not in text and "Pesi" not in text  # not the whole list


@pytest.mark.parametrize("width", [390, 1366])
def test_a_preset_shows_it_is_active_folds_the_shape_and_an_edit_says_so(page: Page, server: Server,
                                                                         width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, LORA)
    llama = form.get_by_role("button", name="Llama 3.1 8B", exact=True)
    fold = form.locator("details[data-fold]")
    llama.click()
    expect(llama).to_have_attribute("aria-pressed", "true")
    assert form.locator('[data-preset][aria-pressed="true"]').count() == 1
    expect(fold).not_to_have_attribute("open", "")
    expect(form.locator('[name="hidden_size"]')).to_be_hidden()
    expect(fold.locator("summary")).to_contain_text("Llama 3.1 8B")
    fold.locator("summary").click()
    form.locator('[name="hidden_size"]').fill("4000")
    expect(llama).to_have_attribute("aria-pressed", "false")
    expect(fold.locator("summary")).to_contain_text("Llama 3.1 8B (modificato)")
    form.locator('[name="hidden_size"]').fill("4096")
    expect(llama).to_have_attribute("aria-pressed", "true")


def test_two_cards_of_one_memory_press_only_the_one_chosen(page: Page, server: Server) -> None:
    form = open_ready(page, server, VRAM)
    h100 = form.get_by_role("button", name=re.compile(r"^H100 80GB "))
    h100.click()
    expect(h100).to_have_attribute("aria-pressed", "true")
    row = h100.locator("xpath=..")
    expect(row.locator('[aria-pressed="true"]')).to_have_count(1)
    expect(row.get_by_role("button", name=re.compile(r"^A100 80GB "))).to_have_attribute("aria-pressed", "false")


def test_the_activation_page_puts_the_four_common_choices_before_the_rare_architecture(page: Page,
                                                                                      server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    form = open_ready(page, server, ACT)
    common = ("sequence_length", "micro_batch", "attention", "checkpointing")
    rare = ("mel_bins", "relative_positions", "softcap", "post_norms", "qk_norm", "hidden_size")
    order = form.evaluate("(form) => [...form.querySelectorAll('[name]')].map((e) => e.name)")
    assert max(order.index(n) for n in common) < min(order.index(n) for n in rare)
    form.get_by_role("button", name="Mistral 7B v0.1", exact=True).click()
    for name in rare:
        expect(form.locator(f'[name="{name}"]')).to_be_hidden()
    for name in common:
        expect(form.locator(f'[name="{name}"]')).to_be_visible()


def test_the_accumulation_gpu_mode_shows_its_verdict_and_plan_at_a_glance(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    form = open_ready(page, server, ACC)
    form.locator('[name="mode"]').select_option("gpu")
    expect(form).to_have_attribute("data-mode", "gpu")
    bar = form.locator(".calc__glance")
    expect(bar.locator('[data-output="gpu_fit"]')).to_be_visible()
    expect(bar.locator('[data-output="effective_batch"]')).to_be_visible()
    expect(bar.locator('[data-output="accumulation_needed"]')).to_be_visible()
    expect(form.locator('.calc__glance-item[data-tone-for="gpu_fit"]')).to_have_attribute("data-tone", "good")
    calculator(page, ACC).locator('[name="mode"]').select_option("diretto")
    expect(bar.locator('[data-output="accumulation_needed"]')).to_be_hidden()


def test_a_link_carries_the_model_merges_into_the_kept_values_and_says_what_arrived(page: Page,
                                                                                   server: Server) -> None:
    lora = open_ready(page, server, LORA)
    lora.locator('[name="rank"]').fill("16")  # kept on this device
    page.wait_for_timeout(400)  # the address and the storage are written once typing pauses
    vram = open_ready(page, server, VRAM)
    vram.get_by_role("button", name="Llama 3.1 8B", exact=True).click()
    expect(output(vram, "per_gpu_gb")).to_have_text("130,48 GB")
    vram.locator('a[data-feed="lora"]').click()
    lora = calculator(page, LORA)
    expect(lora).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(lora.locator('[name="hidden_size"]')).to_have_value("4096")
    expect(lora.locator('[name="kv_heads"]')).to_have_value("8")
    expect(lora.locator('[name="rank"]')).to_have_value("16")  # not carried: the reader's own stays
    expect(output(lora, "trainable_parameters")).to_have_text("6.815.744")  # Llama 3.1 8B, q and v, r = 16
    note = lora.locator("[data-arrived]")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Calcolatore della VRAM")
    expect(note).to_contain_text("Dimensione nascosta 4096")


def test_the_arrived_note_says_a_box_with_si_or_no_and_a_choice_by_its_label(page: Page, server: Server) -> None:
    page.goto(f"{server.url}{LORA}/?da={VRAM}&k_proj=on&v_proj=&bias=lora_only")
    form = calculator(page, LORA)
    expect(form).to_have_attribute("data-state", "ready", timeout=60_000)
    note = form.locator("[data-arrived]")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Key (k_proj) sì")
    expect(note).to_contain_text("Value (v_proj) no")
    expect(note).to_contain_text("Bias addestrati (bias) lora_only: i bias degli strati adattati")
    assert " on" not in (note.text_content() or "")


def field_order(form: Locator) -> list[str]:
    """The names of the visible fields, in the order the reader meets them (top to bottom, then left to right)."""
    return form.evaluate("""(form) => [...form.querySelectorAll('.calc__inputs [name]')]
      .filter((e) => e.offsetParent !== null || e.type === 'checkbox' && e.closest('.calc__field').offsetParent !== null)
      .map((e) => [e.getBoundingClientRect().top + window.scrollY, e.getBoundingClientRect().left, e.name])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((e) => e[2])""")


@pytest.mark.parametrize("width", [390, 1366])
def test_the_accumulation_page_puts_memory_and_batch_before_model_parallelism(page: Page, server: Server,
                                                                            width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, ACC)
    form.locator('[name="mode"]').select_option("gpu")
    expect(form).to_have_attribute("data-mode", "gpu")
    order = field_order(form)
    used = ("target_effective_batch", "data_parallel_gpus", "activation_per_sample_gb", "gpu_memory_gb",
            "model_states_gb")
    parallel = ("tensor_parallel", "pipeline_parallel", "context_parallel", "expert_parallel")
    assert max(order.index(n) for n in used) < min(order.index(n) for n in parallel), order


@pytest.mark.parametrize("width", [390, 1366])
def test_the_vram_page_puts_the_training_choices_before_the_model(page: Page, server: Server, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, VRAM)
    order = field_order(form)
    choices = ("optimizer", "gradient_precision", "activation_gb", "gpu_memory_gb", "gpus", "zero_stage")
    assert max(order.index(n) for n in choices) < order.index("parameters_billion"), order
    form.locator('[name="convention"]').select_option("passo")
    expect(form).to_have_attribute("data-mode", "passo")
    order = field_order(form)
    choices = ("method", "precision_mode", "sequence_length", "micro_batch", "checkpointing", "gpus")
    assert max(order.index(n) for n in choices) < order.index("parameters_billion"), order


@pytest.mark.parametrize("width", [390, 1366])
def test_the_time_page_folds_the_architecture_once_a_model_fills_it(page: Page, server: Server, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, TIME)
    fold = form.locator("details[data-fold]")
    expect(fold).to_have_count(1)
    expect(fold).not_to_have_attribute("open", "")  # the defaults are Llama 3.1 8B's
    expect(fold.locator("summary")).to_contain_text("Llama 3.1 8B")
    for name in ("layers", "attention_heads", "head_dim", "parameters_billion"):
        expect(form.locator(f'[name="{name}"]')).to_be_hidden()
    for name in ("sequence_length", "tokens_billion", "gpus", "mfu_percent"):
        expect(form.locator(f'[name="{name}"]')).to_be_visible()
    mixtral = form.get_by_role("button", name="Mixtral 8x7B", exact=True)
    expect(mixtral).to_be_visible()  # the buttons stay outside the folded group
    mixtral.click()
    expect(mixtral).to_have_attribute("aria-pressed", "true")
    expect(fold.locator("summary")).to_contain_text("Mixtral 8x7B")
    fold.locator("summary").click()
    form.locator('[name="layers"]').fill("33")
    expect(fold.locator("summary")).to_contain_text("Mixtral 8x7B (modificato)")


@pytest.mark.parametrize("width", [390, 1366])
def test_the_lora_page_opens_with_its_default_model_pressed_and_folded(page: Page, server: Server,
                                                                      width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, LORA)
    expect(form.get_by_role("button", name="Llama 2 7B", exact=True)).to_have_attribute("aria-pressed", "true")
    expect(form.locator("details[data-fold]")).not_to_have_attribute("open", "")
    expect(form.locator("details[data-fold] summary")).to_contain_text("Llama 2 7B")


# Every text of a chart as drawn: its rendered font size in CSS pixels (the SVG's scale included).
CHART_TEXTS = """(svg) => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll('text')].map((t) => [t.textContent, parseFloat(getComputedStyle(t).fontSize) * scale,
                                                       t.getAttribute('class') || '']);
}"""


@pytest.mark.parametrize("width", [390, 1366])
@pytest.mark.parametrize("which", ["tempo", "fasi"])
def test_the_time_and_phase_charts_have_a_readable_numeric_axis_and_an_html_legend(page: Page, server: Server,
                                                                                  which: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, TIME if which == "tempo" else VRAM)
    if which == "fasi":
        form.locator('[name="convention"]').select_option("passo")
        expect(form).to_have_attribute("data-mode", "passo")
    chart = form.locator("[data-chart]:not(.calc__glance-chart)")
    svg = chart.locator("svg")
    expect(svg).to_be_visible()
    expect(svg.locator(".calc-value-axis")).to_have_count(1)
    unit = "giorni" if which == "tempo" else "GiB"
    expect(svg.locator(".calc-value-axis text").last).to_contain_text(unit)
    texts = svg.evaluate(CHART_TEXTS)
    ticks = [text for text, _, css in texts if "calc-tick" in css]
    assert len(ticks) >= 3 and all(t[0].isdigit() for t in ticks), ticks
    small = [(text, round(size, 1)) for text, size, _ in texts if size < 11]
    assert not small, f"unreadable at {width} px: {small}"
    legend = chart.locator("ul.calc-legend li")
    assert legend.count() >= 2
    expect(legend.first).to_be_visible()
    assert float(legend.first.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")) >= 11


@pytest.mark.parametrize("width", [390, 1366])
def test_the_accumulation_gpu_mode_says_what_would_make_one_sample_fit(page: Page, server: Server, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    form = open_ready(page, server, ACC)
    form.locator('[name="mode"]').select_option("gpu")
    expect(form).to_have_attribute("data-mode", "gpu")
    form.get_by_role("button", name=re.compile(r"^RTX 4090 24GB ")).click()
    form.locator('[name="model_states_gb"]').fill("23")
    form.locator('[name="activation_per_sample_gb"]').fill("1")
    expect(form.locator('.calc__glance-item[data-tone-for="gpu_fit"]')).to_have_attribute("data-tone", "bad")
    expect(form.locator(".calc__glance")).to_contain_text("Non entra")
    expect(output(form, "micro_batch_fit")).to_have_text("0")
    advice = output(form, "advice")
    expect(advice).to_be_visible()
    expect(advice).to_contain_text("attivazioni per campione fino a 770 MB")
    expect(advice).to_contain_text("ZeRO-3 o FSDP")
    expect(advice).to_contain_text("A100 40GB")
    expect(form.locator('.calc__output[data-tone-for="advice"]')).to_have_attribute("data-tone", "bad")
    expect(form.locator('[data-error-for="model_states_gb"]')).to_have_text("")  # an answer, not an error
