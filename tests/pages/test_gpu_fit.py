"""The plan fits a real GPU: the catalogue, the verdict, the largest micro-batch, and the accumulation page agreeing."""

from __future__ import annotations

from decimal import Decimal
from urllib.parse import parse_qs

import pytest

from calculator import CALCULATORS, respond
from calculator.form.numbers import format_field, parse_number
from calculator.llm.gpus import GPUS
from calculator.pages.gpu_fields import gpu_size

from ..support.outputs import evaluation, outputs

VRAM, ACC = "vram-addestramento-llm", "accumulo-del-gradiente"
REQUIRED = {"A100 40GB", "A100 80GB", "H100 80GB", "H200 141GB", "B200 180GB", "L40S 48GB", "RTX 4090 24GB",
            "RTX 3090 24GB", "MI300X 192GB"}


def answer(calculator_id: str, values: dict[str, str]) -> dict[str, object]:
    calc = CALCULATORS[calculator_id]
    result = respond({"calculator": calculator_id, "values": {**calc.defaults, **values}})
    assert result["status"] == "ok", result["errors"]
    return result


def count(value: Decimal | str | None) -> int:
    """A typed output that must be a whole number."""
    assert isinstance(value, Decimal) and value == int(value), value
    return int(value)


def test_the_gpu_catalogue() -> None:
    assert {gpu.label for gpu in GPUS} >= REQUIRED
    for gpu in GPUS:
        assert gpu.source.startswith("https://")
        assert gpu.memory_gb == gpu.stated_gib * Decimal(1_073_741_824) / 10**9  # the vendor's GB are GiB
    presets = {p.label: p.values["gpu_memory_gb"] for p in CALCULATORS[VRAM].presets if p.group == "Compila con una GPU:"}
    assert presets["H100 80GB"] == "85,9" and presets["RTX 4090 24GB"] == "25,77"


CASES = [  # parameters (billions), per-sample activations A (GB), GPUs, ZeRO stage, GPU
    ("7", "0,5", "1", "0", "h100-80"), ("7", "0,5", "8", "3", "a100-80"), ("13", "1,25", "8", "2", "h200-141"),
    ("1,3", "0,3", "1", "0", "rtx-4090"), ("70", "2,5", "64", "3", "mi300x-192"), ("8", "0,75", "4", "1", "l40s-48"),
    ("3", "0,4", "2", "3", "a100-40"), ("30", "1,5", "16", "3", "b200-180"),
]


@pytest.mark.parametrize(("params", "a", "gpus", "stage", "gpu_id"), CASES)
def test_the_largest_micro_batch_fits_and_one_more_does_not(params: str, a: str, gpus: str, stage: str,
                                                           gpu_id: str) -> None:
    memory = format_field(next(g for g in GPUS if g.id == gpu_id).memory_gb)
    base = {"parameters_billion": params, "gpus": gpus, "zero_stage": stage, "gpu_memory_gb": memory}
    b = count(outputs(VRAM, base, activation_per_sample_gb=a)["max_micro_batch"])
    per_sample = parse_number(a)
    fits = answer(VRAM, {**base, "activation_gb": format_field(b * per_sample)})["results"]["fit"]  # type: ignore[index]
    too_many = answer(VRAM, {**base, "activation_gb": format_field((b + 1) * per_sample)})["results"]["fit"]  # type: ignore[index]
    assert str(fits).startswith("Entra") or b == 0
    assert str(too_many).startswith("Non entra")


@pytest.mark.parametrize(("params", "a", "gpus", "stage", "gpu_id"), CASES)
def test_the_accumulation_page_agrees(params: str, a: str, gpus: str, stage: str, gpu_id: str) -> None:
    """The link opens the accumulation page's GPU mode with the same GPU, reserve and model states: it picks
    the same micro-batch, says it fits, and its margin is the VRAM page's for that micro-batch."""
    memory = format_field(next(g for g in GPUS if g.id == gpu_id).memory_gb)
    vram_values = {"parameters_billion": params, "gpus": gpus, "zero_stage": stage, "gpu_memory_gb": memory}
    vram = evaluation(VRAM, vram_values, activation_per_sample_gb=a)
    assert vram.status == "ok", vram.errors
    b = count(vram.outputs["max_micro_batch"])
    if b == 0:
        assert "accumulo" not in vram.links
        return
    query = {k: v[0] for k, v in parse_qs(vram.links["accumulo"][1:]).items()}
    assert query["mode"] == "gpu" and query["data_parallel_gpus"] == gpus and query["gpu_memory_gb"] == memory
    target = b * int(gpus) * 4  # a target the largest micro-batch divides: the plan then takes it whole
    acc = evaluation(ACC, query, target_effective_batch=str(target))
    assert acc.status == "ok", acc.errors
    assert (acc.outputs["micro_batch_fit"], acc.outputs["accumulation_needed"]) == (Decimal(b), Decimal(4))
    assert str(acc.outputs["gpu_fit"]).startswith(f"Entra in una GPU da {gpu_size(parse_number(memory))}:")
    per_sample = parse_number(a)
    same = outputs(VRAM, {**vram_values, "activation_gb": format_field(b * per_sample)})
    vram_margin, acc_margin = same["headroom_gb"], acc.outputs["gpu_headroom_gb"]
    assert isinstance(vram_margin, Decimal) and isinstance(acc_margin, Decimal)
    assert 0 <= vram_margin - acc_margin <= Decimal("0.02")  # the states travel rounded up to 0,01 GB


def test_the_verdict_names_the_gpu_and_the_margin() -> None:
    results = answer(VRAM, {"parameters_billion": "1", "activation_gb": "4", "gpu_memory_gb": "25,77",
                            "reserve_gb": "2"})["results"]
    assert results == {**results, "per_gpu_gb": "20 GB", "headroom_gb": "3,77 GB",  # type: ignore[dict-item]
                       "fit": "Entra in una GPU da 24 GiB = 25,77 GB: restano 3,77 GB oltre la riserva."}
    results = answer(VRAM, {"parameters_billion": "2", "gpu_memory_gb": "25,77"})["results"]
    assert results["fit"] == "Non entra in una GPU da 24 GiB = 25,77 GB: mancano 10,23 GB."  # type: ignore[index]


@pytest.mark.browser
def test_a_gpu_button_fills_the_memory_and_the_verdict_follows(page, server) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from ..support.pages import open_ready, output

    form = open_ready(page, server, VRAM)
    form.get_by_role("button", name="RTX 4090 24GB").click()
    expect(form.locator('[name="gpu_memory_gb"]')).to_have_value("25,77")
    form.locator('[name="parameters_billion"]').fill("1")
    form.locator('[name="activation_per_sample_gb"]').fill("0,5")
    expected = answer(VRAM, {"parameters_billion": "1", "gpu_memory_gb": "25,77", "activation_per_sample_gb": "0,5"})
    expect(output(form, "fit")).to_have_text(expected["results"]["fit"])  # type: ignore[index]
    expect(output(form, "max_micro_batch")).to_have_text(expected["results"]["max_micro_batch"])  # type: ignore[index]
    expect(form.locator('a[data-feed="accumulo"]')).to_be_visible()
    # The link opens the accumulation page on the same GPU: its own verdict, micro-batch and buttons.
    form.locator('a[data-feed="accumulo"]').click()
    acc = page.locator(f'form[data-calculator="{ACC}"]')
    expect(acc).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(acc.locator('[name="mode"]')).to_have_value("gpu")
    expect(acc.locator('[name="gpu_memory_gb"]')).to_be_visible()
    expect(output(acc, "micro_batch_fit")).to_have_text(expected["results"]["max_micro_batch"])  # type: ignore[index]
    expect(output(acc, "gpu_fit")).to_contain_text("Entra in una GPU da 24 GiB = 25,77 GB")
    acc.get_by_role("button", name="A100 40GB").click()
    expect(acc.locator('[name="gpu_memory_gb"]')).to_have_value("42,95")
    expect(output(acc, "gpu_fit")).to_contain_text("Entra in una GPU da 40 GiB = 42,95 GB")
    acc.locator('[name="mode"]').select_option("diretto")
    expect(acc.get_by_role("button", name="A100 40GB")).to_be_hidden()
    expect(acc.locator('[name="gpu_memory_gb"]')).to_be_hidden()
    expect(acc.locator("legend", has_text="GPU")).to_be_hidden()


@pytest.mark.parametrize("calculator_id", [VRAM, ACC])
def test_each_gpu_button_shows_both_units_as_the_verdict_writes_them(calculator_id: str) -> None:
    """Issue 25: «RTX 4090 24GB» on the button, «GPU da 25,77 GB» in the verdict. The button keeps the vendor's
    name and shows under it the memory in both units, the very text the verdict uses («24 GiB = 25,77 GB»)."""
    from calculator.form.render import render

    calc = CALCULATORS[calculator_id]
    html = render(calc)
    buttons = [preset for preset in calc.presets if "gpu_memory_gb" in preset.values]
    assert {preset.label for preset in buttons} == {gpu.label for gpu in GPUS}
    for preset, gpu in zip(buttons, GPUS, strict=True):
        assert preset.note == gpu_size(gpu.memory_gb)
        assert f"{gpu.stated_gib} GiB = " in preset.note and preset.note.endswith(" GB")
        assert f'data-name="{preset.label}" aria-describedby="' in html  # its name is the vendor's
        assert f'>{preset.label} <span class="calc__preset-note" id="' in html
        assert f'" aria-hidden="true">{preset.note}</span></button>' in html
    rtx = next(preset for preset in buttons if preset.label == "RTX 4090 24GB")
    assert rtx.note == "24 GiB = 25,77 GB"
    mode = {"mode": "gpu"} if calculator_id == ACC else {}
    verdict = evaluation(calculator_id, {**dict(rtx.values), **mode}).outputs
    assert any(isinstance(text, str) and rtx.note in text for text in verdict.values())
