"""One source for every rule: Python decides, and says so as data (issue 11)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import settings

from calculator import CALCULATORS, handle, respond
from calculator.form.evaluate import evaluate
from calculator.form.model import (
    BLANK,
    FLAG_TRUE_TEXTS,
    Calculator,
    Field,
    Format,
    Kind,
    Option,
    Problem,
    Result,
    flag_value,
)
from calculator.form.registry import _Registry
from calculator.form.render import render

from ..conftest import ROOT
from ..support.toy import TOY, TOY_ID, registered

JS = ROOT / "docs" / "assets" / "javascripts"


def test_hypothesis_runs_under_the_ci_profile() -> None:
    current = settings()
    assert current.deadline is None and current.derandomize and current.database is None


@pytest.mark.parametrize(
    ("field", "text", "problem"),
    [
        ("n", "", Problem.EMPTY),
        ("n", "abc", Problem.NOT_A_NUMBER),
        ("n", "1,5", Problem.NOT_AN_INTEGER),
        ("n", "0", Problem.TOO_SMALL),
        ("n", "2000000", Problem.TOO_LARGE),
        ("n", "1.000.00", Problem.BAD_GROUPING),
        ("n", "1" * 50, Problem.TOO_LONG),
        ("size", "0,1234567", Problem.TOO_MANY_DECIMALS),
        ("unit", "TB", Problem.NOT_AN_OPTION),
        ("parts", "3", Problem.INCONSISTENT),
    ],
)
def test_a_field_error_carries_its_kind(monkeypatch: pytest.MonkeyPatch, field: str, text: str,
                                        problem: Problem) -> None:
    with registered(monkeypatch, TOY):
        answer = respond({"calculator": TOY_ID, "values": {**TOY.defaults, field: text}})
    assert answer["problems"] == {field: problem.value}
    assert set(answer["errors"]) == {field}  # type: ignore[arg-type]
    assert answer["status"] == ("incomplete" if problem is Problem.EMPTY else "invalid")


@pytest.mark.parametrize(("text", "checked"), [
    *((t, True) for t in FLAG_TRUE_TEXTS), ("SI", True), (" On ", True), ("Sì", True),
    ("", False), ("0", False), ("off", False), ("no", False), ("false", False), ("x", False),
])
def test_what_a_checkbox_text_means(text: str, checked: bool) -> None:
    assert flag_value(text) is checked
    # The page applies the same list (lower-cased, trimmed), written on every checkbox.
    assert (text.strip().lower() in FLAG_TRUE_TEXTS) is checked


def test_checkboxes_carry_pythons_list_and_send_its_value() -> None:
    html = render(TOY)
    boxes = re.findall(r'<input type="checkbox"[^>]*>', html)
    assert boxes
    for box in boxes:
        assert f'data-true="{" ".join(FLAG_TRUE_TEXTS)}"' in box and 'value="on"' in box


@pytest.mark.parametrize("mode", ["bogus", "", "<b>", "DETTAGLIO"])
def test_an_unknown_mode_is_the_first_one(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    with registered(monkeypatch, TOY):
        answer = respond({"calculator": TOY_ID, "values": {**TOY.defaults, "mode": mode}})
    assert answer["mode"] == "semplice"
    assert answer["status"] == "ok"
    assert 'data-mode="semplice"' in render(TOY, {"mode": mode})


@pytest.mark.parametrize(("unit", "label"), [("MB", "MB"), ("GiB", "GiB"), ("TB", "GB")])
def test_units_chosen_in_a_field_come_from_python(monkeypatch: pytest.MonkeyPatch, unit: str, label: str) -> None:
    with registered(monkeypatch, TOY):
        answer = respond({"calculator": TOY_ID, "values": {**TOY.defaults, "mode": "dettaglio", "unit": unit}})
    assert answer["units"] == {"size": label}
    if unit == label:  # a valid choice: the results are in it too
        assert str(answer["results"]["total"]).endswith(f" {label}")
    html = render(TOY, {"unit": unit})
    assert f'<span class="calc__unit" data-unit-of="size">{label}</span>' in html


def test_the_blank_result_text_is_rendered_for_the_page() -> None:
    for calc in CALCULATORS.values():
        assert f'data-blank="{BLANK}"' in render(calc)
    script = (JS / "form.mjs").read_text()
    assert BLANK not in script and "form.dataset.blank" in script


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_the_loading_message_carries_its_progress_bar(calculator_id: str) -> None:
    """The bar's label is Python's; the page script only sets its maximum and value, the bytes the worker counts
    (no number formatted, no Italian text in JavaScript)."""
    html = render(CALCULATORS[calculator_id])
    bar = re.search(r'<span class="calc__progress" data-engine-progress hidden><label for="([^"]+)">'
                    r"Scaricamento del motore:</label> <progress id=\"([^\"]+)\"></progress></span></p>", html)
    assert bar and bar[1] == bar[2] == f"{calculator_id}--download-motore", html
    assert html.index('data-when="loading"') < bar.start() < html.index('data-when="failed"')
    script = (JS / "form.mjs").read_text()
    assert "Scaricat" not in script and "Intl." not in script and "toFixed" not in script


class _Elements(HTMLParser):
    """Each field's wrapper and each result row, with whether it is hidden."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden: dict[str, bool] = {}
        self.stack: list[bool] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        hidden = (self.stack[-1] if self.stack else False) or "hidden" in found
        if tag not in {"input", "br", "img", "meta", "link"}:
            self.stack.append(hidden)
        for key in ("name", "data-output"):
            if found.get(key):
                self.hidden[str(found[key])] = hidden

    def handle_endtag(self, tag: str) -> None:
        if self.stack and tag not in {"input", "br", "img", "meta", "link"}:
            self.stack.pop()


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_every_field_and_result_of_the_default_mode_is_rendered_visible(calculator_id: str) -> None:
    calc = CALCULATORS[calculator_id]
    parser = _Elements()
    parser.feed(render(calc))
    mode = calc.mode(calc.defaults)
    absent = evaluate(calc, calc.defaults).absent  # fields the defaults have no use for (a LoRA target not there)
    for spec in calc.fields:
        assert parser.hidden[spec.id] is (not spec.in_mode(mode) or spec.id in absent), spec.id
    for result in calc.results:
        assert parser.hidden[result.id] is (not result.in_mode(mode)), result.id


def _broken(error: Exception) -> Calculator:
    def compute(values: object) -> dict[str, Decimal]:
        raise error

    return Calculator(id="guasto", title="Guasto", summary="Guasto.", compute=compute,  # type: ignore[arg-type]
                      fields=(Field(id="n", label="N", default="1", help="N."),), results=(Result("r", "R"),))


@pytest.mark.parametrize(("error", "reason"), [
    (AssertionError("x"), "defect"), (KeyError("x"), "defect"), (TypeError("x"), "defect"),
    (RecursionError(), "defect"), (ModuleNotFoundError("decimal"), "missing_module"),
])
def test_the_api_never_raises(monkeypatch: pytest.MonkeyPatch, error: Exception, reason: str) -> None:
    registry = _Registry()
    registry._found = {**CALCULATORS, "guasto": _broken(error)}
    monkeypatch.setattr("calculator.form.api.CALCULATORS", registry)
    answer = json.loads(handle(json.dumps({"calculator": "guasto", "values": {"n": "1"}})))
    assert answer["status"] == "error" and answer["reason"] == reason and answer["message"]


def test_no_assert_in_the_package() -> None:
    """``python -O`` drops asserts, and an AssertionError would be a defect: the package uses none."""
    modules = sorted((ROOT / "calculator").rglob("*.py"))
    assert len(modules) > 20
    for module in modules:
        assert not re.search(r"^\s*assert\b", module.read_text(), re.M), module.name


def test_the_inline_start_script_speaks_the_protocol() -> None:
    protocol = (JS / "engine-protocol.mjs").read_text()
    start = (JS / "engine-start.js").read_text()
    assert 'export const START = "start";' in protocol
    assert "export const start = (version) => ({ type: START, version });" in protocol
    assert 'worker.postMessage({ type: "start", version });' in start
    # The worker is named by the engine's version, written out the same way; its directory likewise.
    assert 'export const workerOptions = (version) => ({ type: "module", name: version });' in protocol
    assert '{ type: "module", name: version }' in start
    assert "export const engineDirectory = (version, base) => new URL(`../engine/${version}/`, base);" in protocol
    worker = (JS / "engine-worker.mjs").read_text()
    assert "const engineDirectory = (version) => new URL(`../engine/${version}/`, import.meta.url);" in worker
    for script in ("engine-client.mjs", "engine-worker.mjs"):
        text = (JS / script).read_text()
        assert re.search(r'from "\./engine-protocol\.mjs"|import\("\./engine-protocol\.mjs"\)', text)
        assert not re.search(r'type: "(start|compute|ready|result|failed)"', text), script


def test_each_package_says_what_it_is() -> None:
    for package in ("calculator", "calculator/form", "calculator/llm", "calculator/pages", "sitebuild", "tools"):
        source = (ROOT / package / "__init__.py").read_text()
        assert source.startswith('"""'), package
    assert sorted(p.name for p in (ROOT / "scripts").iterdir()) == ["bench", "build", "lighthouse", "serve", "setup", "test"]


def test_readme_layout_table_matches_the_tree() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^\| `([^`]+)` \|", table, re.M))
    assert named == {"calculator/", "calculator/form/", "calculator/llm/", "calculator/pages/", "sitebuild/", "tools/",
                     "scripts/", "docs/", "tests/", "reports/"}
    for folder in named:
        assert Path(ROOT / folder).is_dir()
    rows = {folder: table.split(f"| `{folder}` |", 1)[1].split("\n", 1)[0] for folder in named}
    for module in [*(ROOT / "sitebuild").glob("*.py"), *(ROOT / "tools").glob("*.py"), *(ROOT / "calculator").rglob("*.py")]:
        if module.name != "__init__.py":
            row = rows[module.parent.relative_to(ROOT).as_posix() + "/"]
            assert f"`{module.stem}`" in row or f"`{module.name}`" in row or f"`{module.stem} " in row, module


def test_the_engine_status_is_a_live_region_that_is_never_hidden_itself() -> None:
    """A live region that appears at the moment its text does may not be announced (issue 27, point 13): the
    status is always in the page, only its messages are hidden, and the scripts never hide it."""
    html = render(TOY)
    status = re.search(r"<div [^>]*data-engine-status[^>]*>", html)
    assert status is not None and 'role="status"' in status.group(0) and "hidden" not in status.group(0)
    for script in ("form.mjs", "file-protocol.js"):
        assert "status.hidden" not in (JS / script).read_text(), script


def _with_absent() -> Calculator:
    """Two boxes and a choice that says which one this 'model' has: the other is absent unless ticked."""
    def compute(values: Mapping[str, object]) -> dict[str, Decimal]:
        return {"n": Decimal(sum(values[k] is True for k in ("a", "b")))}

    def absent(values: Mapping[str, object]) -> set[str]:
        missing = "b" if values.get("kind") == "a" else "a"
        return set() if values.get(missing) is True else {missing}

    def check(values: Mapping[str, object]) -> dict[str, str]:
        missing = "b" if values.get("kind") == "a" else "a"
        return {missing: "Questo modello non ha questa casella."} if values.get(missing) is True else {}

    return Calculator(
        id="assenti", title="t", summary="s",
        fields=(Field(id="kind", label="Tipo", default="a", help="", kind=Kind.CHOICE,
                      options=(Option("a", "A"), Option("b", "B"))),
                Field(id="a", label="A", default="on", help="", kind=Kind.FLAG),
                Field(id="b", label="B", default="", help="", kind=Kind.FLAG)),
        results=(Result("n", "Quante", format=Format.COUNT),), compute=compute, check=check, absent=absent)


def test_a_field_the_values_have_no_use_for_is_listed_and_rendered_hidden() -> None:
    """Issue 25: the LoRA page offered fused and latent targets to every model. ``Calculator.absent`` names them for
    each answer (``absent`` in the JSON), the renderer marks every field for the page script and hides them."""
    calc = _with_absent()
    assert evaluate(calc, calc.defaults).as_dict()["absent"] == ["b"]
    assert evaluate(calc, {**calc.defaults, "kind": "b", "a": ""}).absent == ["a"]
    assert evaluate(calc, {**calc.defaults, "kind": "b"}).absent == []  # ticked: in view with its message
    parser = _Elements()
    html = render(calc)
    parser.feed(html)
    assert parser.hidden == {"kind": False, "a": False, "b": True, "n": False}
    assert html.count("data-absent-field=") == 3
    assert "applyAbsent" in (JS / "form.mjs").read_text() and "answer.absent" in (JS / "form.mjs").read_text()


def test_a_ticked_field_the_model_lacks_stays_in_view_with_its_message() -> None:
    """A box ticked for a model that lacks it is shown, with its Italian message, so that it can be unticked."""
    calc = _with_absent()
    answer = evaluate(calc, {**calc.defaults, "b": "on"})
    assert answer.absent == [] and answer.errors == {"b": "Questo modello non ha questa casella."}
    parser = _Elements()
    parser.feed(render(calc, {**calc.defaults, "b": "on"}))
    assert parser.hidden["b"] is False


def test_a_calculator_without_absent_fields_lists_none_and_marks_none() -> None:
    calc = _broken(ValueError("x"))
    assert evaluate(calc, calc.defaults).as_dict()["absent"] == []
    assert "data-absent-field" not in render(calc)
