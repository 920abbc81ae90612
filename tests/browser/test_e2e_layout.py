"""What a reader sees without JavaScript, and the layout at common widths (issue 11's defects)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from calculator import CALCULATORS
from calculator.form.evaluate import evaluate

from ..conftest import Server, Watch, watched_context
from ..support.pages import calculator, open_ready, output

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_without_javascript_the_default_mode_is_all_visible(browser, server: Server, calculator_id: str) -> None:  # type: ignore[no-untyped-def]
    watch = Watch()
    context = watched_context(browser, server.host, watch, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server.url}{calculator_id}/")
    calc = CALCULATORS[calculator_id]
    mode = calc.mode(calc.defaults)
    absent = evaluate(calc, calc.defaults).absent  # what the default model lacks (the LoRA page's fused targets)
    form = calculator(page, calculator_id)
    # The note that says the results are the defaults' (it shares the engine status's look, not its collapse).
    expect(form.locator("noscript p")).to_be_visible()
    expect(form.locator("noscript p")).to_contain_text("JavaScript è disattivato")
    for spec in calc.fields:
        control = form.locator(f'[name="{spec.id}"]')
        folded = form.locator("details[data-fold]:not([open])", has=page.locator(f'[name="{spec.id}"]'))
        if spec.id in absent:
            expect(control).to_be_hidden()
        elif spec.in_mode(mode) and folded.count():  # the model's shape, filled by a preset: its title says which
            expect(folded.locator("summary")).to_be_visible()
            expect(folded.locator("[data-fold-note]")).not_to_have_text("")
        elif spec.in_mode(mode):
            expect(control).to_be_visible()
        else:
            expect(control).to_be_hidden()
    for result in calc.results:
        shown = output(form, result.id)
        if result.in_mode(mode) and result.format.value not in ("text", "code"):
            expect(shown).to_be_visible()
            expect(shown).not_to_have_text("")
    context.close()
    assert watch.foreign_requests == []


OVERLAP = """() => {
  const results = document.querySelector(".calc__results").getBoundingClientRect();
  // A chart placed inside the results column (chart_after) is part of the panel, not content below it.
  const below = [...document.querySelectorAll(".calc__chart svg, .calc__snippet, .calc__more")]
    .filter((element) => !element.closest(".calc__results"));
  const hits = below.map((element) => element.getBoundingClientRect()).filter((box) =>
    box.width > 0 && box.height > 0 && box.left < results.right && results.left < box.right &&
    box.top < results.bottom && results.top < box.bottom);
  return {hits: hits.length, below: below.length,
          overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth};
}"""


@pytest.mark.parametrize("width", [1366, 1024, 390])
@pytest.mark.parametrize("calculator_id", ["accumulo-del-gradiente", "vram-addestramento-llm"])
def test_results_panel_never_covers_the_chart_or_the_snippets(page: Page, server: Server, calculator_id: str,
                                                               width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    open_ready(page, server, calculator_id)
    height = page.evaluate("document.documentElement.scrollHeight")
    checked = 0
    for y in range(0, height, 150):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.wait_for_timeout(20)
        state = page.evaluate(OVERLAP)
        assert state["below"] > 0
        assert state["hits"] == 0, f"results panel over the content below at y={y}"
        assert state["overflow"] <= 0, f"horizontal overflow at y={y}"
        checked += 1
    assert checked >= 5


def test_address_values_follow_pythons_rules(page: Page, server: Server) -> None:
    page.goto(f"{server.url}parametri-lora/?q_proj=SI&k_proj=1&v_proj=no&o_proj=s%C3%AC")
    form = calculator(page, "parametri-lora")
    expect(form).to_have_attribute("data-state", "ready", timeout=60_000)
    for name, checked in (("q_proj", True), ("k_proj", True), ("v_proj", False), ("o_proj", True)):
        expect(form.locator(f'[name="{name}"]')).to_be_checked(checked=checked)
    from calculator import respond

    calc = CALCULATORS["parametri-lora"]
    expected = respond({"calculator": calc.id, "values": {**calc.defaults, "q_proj": "SI", "k_proj": "1",
                                                          "v_proj": "no", "o_proj": "sì"}})
    expect(output(form, "trainable_parameters")).to_have_text(expected["results"]["trainable_parameters"])  # type: ignore[index]


def test_an_unknown_mode_in_the_address_shows_the_first_mode(page: Page, server: Server) -> None:
    page.goto(f"{server.url}accumulo-del-gradiente/?mode=bogus&activation_unit=MB")
    form = calculator(page, "accumulo-del-gradiente")
    expect(form).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(form.locator('[name="mode"]')).to_have_value("diretto")
    expect(form.locator('[name="micro_batch"]')).to_be_visible()
    expect(form.locator('[name="target_effective_batch"]')).to_be_hidden()
    expect(form.locator('[data-unit-of="activation_per_sample_gb"]')).to_have_text("MB")
    form.locator('[name="mode"]').select_option("obiettivo")
    expect(form.locator('[name="target_effective_batch"]')).to_be_visible()
    expect(form.locator('[data-unit-of="memory_budget"]')).to_have_text("MB")
    expect(form).to_have_attribute("data-mode", "obiettivo")


@pytest.mark.parametrize(("width", "javascript"), [(390, True), (1024, True), (390, False)],
                         ids=["390", "1024", "390-senza-js"])
@pytest.mark.parametrize("path", ["", *(f"{calculator_id}/" for calculator_id in sorted(CALCULATORS))])
def test_no_page_scrolls_sideways(browser, server: Server, path: str, width: int, javascript: bool) -> None:  # type: ignore[no-untyped-def]
    """Without JavaScript the theme hides the search, and the header's title takes its room: its second topic (the
    page's title, shown on scroll) waits shifted to the right and must not widen the page."""
    watch = Watch()
    context = watched_context(browser, server.host, watch, java_script_enabled=javascript)
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server.url + path)
    page.wait_for_load_state("load")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    context.close()
    assert overflow <= 0


# The body's background and text, and the colour of ``shown`` (a selector), as numbers.
COLOURS = """(shown) => {
  const style = getComputedStyle(document.body);
  const channels = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
  return {background: channels(style.backgroundColor), text: channels(style.color),
          output: channels(getComputedStyle(document.querySelector(shown)).color)};
}"""
SCHEMES = {"light": "default", "dark": "slate"}


def settled_colours(page: Page) -> dict[str, list[float]]:
    """The page's colours once two reads 250 ms apart agree: just after the theme's bundle runs, a result has been
    read for a moment in its parent's colour (the palette's variables already right), 2 runs in 6 on 2026-12-07."""
    colours: dict[str, list[float]] = page.evaluate(COLOURS, ".calc__output output")
    for _ in range(12):
        page.wait_for_timeout(250)
        again: dict[str, list[float]] = page.evaluate(COLOURS, ".calc__output output")
        if again == colours:
            break
        colours = again
    return colours


@pytest.mark.parametrize("preference", SCHEMES)
def test_without_javascript_the_page_wears_the_readers_palette(browser, server: Server, preference: str) -> None:  # type: ignore[no-untyped-def]
    """The theme picks the dark palette by script: without it, the stylesheet restates it (the same colours)."""
    colours = {}
    for javascript in (True, False):
        watch = Watch()
        # Playwright's polling evaluates a string, which the site's own CSP would rightly refuse.
        context = watched_context(browser, server.host, watch, java_script_enabled=javascript, color_scheme=preference,
                                  bypass_csp=True)
        page = context.new_page()
        page.goto(f"{server.url}vram-addestramento-llm/")
        if javascript:
            page.wait_for_function(f"document.body.dataset.mdColorScheme === '{SCHEMES[preference]}' "
                                   "&& !document.documentElement.classList.contains('no-js')")
        colours[javascript] = settled_colours(page)
        context.close()
        assert watch.foreign_requests == []
    assert colours[False] == colours[True]
    assert (sum(colours[False]["background"]) < 150) is (preference == "dark")


def test_before_the_theme_script_a_readers_own_choice_wins(browser, server: Server) -> None:  # type: ignore[no-untyped-def]
    """Until the theme's bundle runs, a dark-preferring reader sees the dark palette, unless they chose the light one
    with the toggle (kept by the theme, applied by its inline script): the bundle is blocked to see that moment."""
    watch = Watch()
    context = watched_context(browser, server.host, watch, color_scheme="dark", bypass_csp=True)
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    page.locator('label[for="__palette_0"]').click()  # «Passa al tema chiaro»
    page.wait_for_function("document.body.dataset.mdColorScheme === 'default'")
    context.route(re.compile(r"/bundle\.[^/]*\.js$"), lambda route: route.abort())
    page.reload()
    chosen = page.evaluate(COLOURS, "body")
    page.evaluate("localStorage.clear()")
    page.reload()
    preferred = page.evaluate(COLOURS, "body")
    context.close()
    assert watch.foreign_requests == []
    assert sum(chosen["background"]) > 700 and sum(preferred["background"]) < 150
