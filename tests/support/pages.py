"""Helpers for driving calculator pages in the browser tests."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from calculator import CALCULATORS, respond

from ..conftest import Server

READY_TIMEOUT = 60_000


def calculator(page: Page, calculator_id: str) -> Locator:
    return page.locator(f'form[data-calculator="{calculator_id}"]')


def open_ready(page: Page, server: Server, calculator_id: str) -> Locator:
    """Open a calculator's page and wait until its engine answers."""
    page.goto(f"{server.url}{calculator_id}/")
    form = calculator(page, calculator_id)
    expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
    return form


def field(form: Locator, name: str) -> Locator:
    """A field, its folded group opened first (a preset folds the model's shape, as a reader would find it)."""
    control = form.locator(f'[name="{name}"]')
    fold = form.locator(f'details[data-fold]:not([open]):has([name="{name}"])')
    if fold.count():
        fold.locator("summary").click()
    return control


def output(form: Locator, result_id: str) -> Locator:
    """The result as the results column shows it (not its copy kept in view on narrow screens)."""
    return form.locator(f'[data-output="{result_id}"]:not(.calc__glance *)')


def answer(calculator_id: str, values: dict[str, str]) -> dict[str, object]:
    """Python's answer for these values over the calculator's defaults (which must compute)."""
    calc = CALCULATORS[calculator_id]
    result = respond({"calculator": calculator_id, "values": {**calc.defaults, **values}})
    assert result["status"] == "ok", result["errors"]
    return result
