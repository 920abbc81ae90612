"""Planning tasks replayed as a reader would do them (issue 25): each starts from a preset and reaches its answer on
one page in at most eight edits; the answers are Python's for the same values."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from calculator import CALCULATORS
from calculator.form.numbers import format_integer

from ..conftest import Server
from ..support.pages import answer, open_ready, output

ACC, VRAM, LORA = "accumulo-del-gradiente", "vram-addestramento-llm", "parametri-lora"
MAX_EDITS = 8


class Edits:
    """Counts the reader's edits: a click on a preset, a choice, a typed value."""

    def __init__(self, form: Locator) -> None:
        self.form, self.count = form, 0

    def press(self, label: str) -> None:
        # A GPU button's name goes on with its memory in both units.
        self.form.get_by_role("button", name=re.compile(rf"^{re.escape(label)}( |$)")).click()
        self.count += 1

    def choose(self, name: str, value: str) -> None:
        self.form.locator(f'[name="{name}"]').select_option(value)
        self.count += 1

    def type(self, name: str, text: str) -> None:
        self.form.locator(f'[name="{name}"]').fill(text)
        self.count += 1

    def tick(self, name: str) -> None:
        self.form.locator(f'[name="{name}"]').check()
        self.count += 1


def replay(page: Page, server: Server, calculator_id: str, steps: Callable[[Edits], None]) -> Locator:
    form = open_ready(page, server, calculator_id)
    edits = Edits(form)
    steps(edits)
    assert edits.count <= MAX_EDITS
    return form


def test_full_fine_tuning_on_eight_gpus_with_zero3_reaches_the_target_batch_exactly(page: Page,
                                                                                   server: Server) -> None:
    """13B, full fine-tuning, ZeRO-3 on 8 H100 80GB: 16 B per parameter / 8 = 26 GB of states per GPU; A = 1 GB;
    a global batch of 256. Does it fit, with which micro-batch and steps, exactly 256?"""
    def steps(e: Edits) -> None:
        e.choose("mode", "gpu")
        e.press("H100 80GB")
        e.type("data_parallel_gpus", "8")
        e.type("target_effective_batch", "256")
        e.type("model_states_gb", "26")
        e.type("activation_per_sample_gb", "1")
    form = replay(page, server, ACC, steps)
    expected = answer(ACC, {"mode": "gpu", "gpu_memory_gb": "85,9", "data_parallel_gpus": "8",
                            "target_effective_batch": "256", "model_states_gb": "26",
                            "activation_per_sample_gb": "1"})["results"]
    expect(output(form, "effective_batch")).to_have_text("256")  # exactly the target
    micro, accumulation = expected["micro_batch_plan"], expected["accumulation_needed"]  # type: ignore[index]
    assert int(micro) * int(accumulation) * 8 == 256
    expect(output(form, "micro_batch_plan")).to_have_text(micro)
    expect(output(form, "accumulation_needed")).to_have_text(accumulation)
    expect(form.locator('.calc__glance-item[data-tone-for="gpu_fit"]')).to_have_attribute("data-tone", "good")
    expect(form.locator(".calc__glance")).to_contain_text("256")


def test_the_trainable_count_of_a_lora_on_a_mixture_of_experts(page: Page, server: Server) -> None:
    """Mixtral 8x7B, rank 16, every linear layer of every expert."""
    def steps(e: Edits) -> None:
        e.press("Mixtral 8x7B")
        e.type("rank", "16")
        for name in ("k_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
            e.tick(name)
    form = replay(page, server, LORA, steps)
    preset = next(p for p in CALCULATORS[LORA].presets if p.label == "Mixtral 8x7B")
    values = {**preset.values, "rank": "16", **dict.fromkeys(
        ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"), "on")}
    own = {f.id for f in CALCULATORS[LORA].fields}
    expected = answer(LORA, {k: v for k, v in values.items() if k in own})["results"]["trainable_parameters"]  # type: ignore[index]
    # 32 layers × 16 × (attention 4096+4096, 4096+1024 twice, 4096+4096; 8 experts × three 4096+14336 matrices)
    assert expected == format_integer(32 * 16 * (8192 + 5120 * 2 + 8192 + 8 * 3 * (4096 + 14336)))
    expect(output(form, "trainable_parameters")).to_have_text(expected)
    expect(form.locator(".calc__glance")).to_contain_text(expected)


def test_a_model_that_runs_out_of_memory_on_a_24_gb_card_says_what_to_change(page: Page, server: Server) -> None:
    def steps(e: Edits) -> None:
        e.press("Llama 3.1 8B")
        e.press("RTX 4090 24GB")
    form = replay(page, server, VRAM, steps)
    expect(form.locator('.calc__glance-item[data-tone-for="fit"]')).to_have_attribute("data-tone", "bad")
    expect(form.locator(".calc__glance")).to_contain_text("Non entra")
    advice = output(form, "advice")
    expect(advice).to_contain_text("GPU con ZeRO-3")
    expect(advice).to_contain_text("AdamW a 8 bit")


def test_a_qlora_run_on_a_24_gb_card_in_the_step_convention(page: Page, server: Server) -> None:
    """The VRAM page's own example: QLoRA r=16 on every linear layer of Llama 3.1 8B, 2048 tokens, micro-batch 2,
    full checkpointing, on a 24 GiB card."""
    def steps(e: Edits) -> None:
        e.choose("convention", "passo")
        e.press("Llama 3.1 8B")
        e.choose("method", "qlora")
        e.type("rank", "16")
        e.choose("lora_targets", "tutti")
        e.choose("checkpointing", "completo")
        e.type("micro_batch", "2")
        e.press("RTX 4090 24GB")
    form = replay(page, server, VRAM, steps)
    example = CALCULATORS[VRAM].examples["passo_qlora_8b"]
    expected = answer(VRAM, {**example, "gpu_memory_gb": "25,77",
                             "sequence_length": form.locator('[name="sequence_length"]').input_value(),
                             "precision_mode": form.locator('[name="precision_mode"]').input_value()})["results"]
    expect(output(form, "fit")).to_have_text(expected["fit"])  # type: ignore[index]
    expect(output(form, "smi_gib")).to_have_text(expected["smi_gib"])  # type: ignore[index]
    expect(form.locator('.calc__glance-item[data-tone-for="fit"]')).to_have_attribute("data-tone", "good")
