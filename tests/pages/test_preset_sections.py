"""Long rows of model presets are shown by family, with a filter box the page's script reveals (issue 23)."""

from __future__ import annotations

import re

import pytest

from calculator import CALCULATORS
from calculator.form.render import SECTIONED_ROW, render


def model_rows(calculator_id: str) -> dict[str, list[str]]:
    calc = CALCULATORS[calculator_id]
    rows: dict[str, list[str]] = {}
    for preset in calc.presets:
        rows.setdefault(preset.group, []).append(preset.section)
    return rows


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_a_long_row_of_models_is_shown_by_family_with_a_hidden_filter_box(calculator_id: str) -> None:
    calc = CALCULATORS[calculator_id]
    html = render(calc)
    sectioned = [group for group, sections in model_rows(calculator_id).items()
                 if len(sections) >= SECTIONED_ROW and all(sections)]
    assert html.count("data-preset-filter") == len(sectioned)
    assert html.count("data-preset-filter hidden") == len(sectioned)  # no script, no filter
    for group in sectioned:
        presets = [preset for preset in calc.presets if preset.group == group]
        families = list(dict.fromkeys(preset.section for preset in presets))
        shown = re.findall(r'data-section="([^"]+)"', html)
        assert shown[:len(families)] == families or set(families) <= set(shown)
        for family in families:
            section = html.split(f'data-section="{family}">', 1)[1].split("</button></span>", 1)[0]
            labels = re.findall(r'aria-pressed="(?:true|false)">([^<]+)', section)
            assert labels == [p.label for p in presets if p.section == family]


def test_the_pages_with_many_models_have_sections() -> None:
    """The VRAM, activation, LoRA and time pages offer many catalogue models: each gets families."""
    html = {calc_id: render(calc) for calc_id, calc in CALCULATORS.items()}
    assert 'data-section="Llama"' in html["vram-addestramento-llm"]
    assert 'data-section="Qwen"' in html["memoria-attivazioni"]
    assert "data-preset-filter" not in html["accumulo-del-gradiente"]  # GPUs only: a short row
