"""Reverse solving, framework configs and the chart of the gradient-accumulation calculator."""

from __future__ import annotations

import ast
import json
import xml.etree.ElementTree as ET
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculator import CALCULATORS, respond
from calculator.form.evaluate import evaluate
from calculator.form.numbers import format_exact_field, format_integer, parse_number, scale_memory
from calculator.form.svg import svg_part
from calculator.llm.accumulation_plan import largest_divisor_at_most, plan, plan_exact
from calculator.pages.gradient_accumulation import plan_note

from ..support.golden import ACC, request
from ..support.outputs import evaluation, outputs

# (target, budget, gpus, activation) → (micro-batch, steps, reached, exact)
PLANS = [
    ((512, "20", 1, "0.5"), (40, 13, 520, False)),  # 40 fits; 512 is not a multiple of 40
    ((480, "20", 1, "0.5"), (40, 12, 480, True)),
    ((32, "100", 1, "0.5"), (32, 1, 32, True)),  # the whole target fits in one micro-batch
    ((512, "20", 3, "0.5"), (40, 5, 600, False)),  # 512 is not a multiple of 3 GPUs
    ((1024, "16", 8, "1"), (16, 8, 1024, True)),
    ((100, "3", 1, "1"), (3, 34, 102, False)),
    ((1, "1", 1, "1"), (1, 1, 1, True)),
    ((7, "1", 1, "0.3"), (3, 3, 9, False)),
]


@pytest.mark.parametrize(("args", "expected"), PLANS)
def test_plan_golden(args: tuple[int, str, int, str], expected: tuple[int, int, int, bool]) -> None:
    target, budget, gpus, activation = args
    result = plan(target, Decimal(budget), gpus, Decimal(activation))
    assert (result.micro_batch, result.accumulation_steps, result.effective_batch, result.exact) == expected


def test_not_divisible_target_explains_the_nearest_options() -> None:
    note = plan_note(plan(512, Decimal(20), 1, Decimal("0.5")))
    assert "512 non è un multiplo di 40" in note
    assert "480 con 12 passi (sotto)" in note and "520 con 13 passi (sopra)" in note
    assert "usa un micro-batch di 32 con 16 passi di accumulo" in note
    other = plan_note(plan(512, Decimal(20), 3, Decimal("0.5")))
    assert "sempre un multiplo di 3" in other and "480 con 4 passi (sotto)" in other


def test_impossible_target_has_its_own_message() -> None:
    answer = respond(request(ACC, mode="obiettivo", activation_per_sample_gb="30", memory_budget="20"))
    assert answer["status"] == "invalid"
    assert answer["errors"] == {"memory_budget": (
        "Budget di memoria per GPU: un solo campione richiede 30 GB, più dei 20 GB disponibili. Riduci la"
        " lunghezza delle sequenze, usa il checkpointing delle attivazioni o aumenta il budget."
    )}


def test_reverse_mode_results() -> None:
    answer: dict[str, Any] = respond(request(ACC, mode="obiettivo"))
    results = answer["results"]
    # By default the target exactly: 40 samples fit, 32 divide 512.
    assert (results["micro_batch_plan"], results["accumulation_needed"], results["effective_batch"],
            results["micro_batch_fit"]) == ("32", "16", "512", "40")
    assert results["activation_memory"] == "16 GB"
    assert results["plan_note"].startswith("Il batch effettivo desiderato si raggiunge esattamente: 32 campioni per GPU")
    assert "con il micro-batch più grande (40) servono 13 passi e il batch diventa 520" in results["plan_note"]
    largest: dict[str, Any] = respond(request(ACC, mode="obiettivo", plan_goal="massimo"))["results"]
    assert (largest["micro_batch_plan"], largest["accumulation_needed"], largest["effective_batch"]) == ("40", "13", "520")
    assert largest["activation_memory"] == "20 GB"
    assert "Per raggiungere esattamente 512" in largest["plan_note"]
    # Fields of the other mode do not matter, even when they are invalid.
    assert respond(request(ACC, mode="obiettivo", micro_batch="abc"))["status"] == "ok"
    assert respond(request(ACC, target_effective_batch="abc"))["status"] == "ok"


# On a GPU: (GPU memory, model states, reserve, A, target) → (b, a, verdict, margin). The budget is what the
# GPU leaves: 85,9 − 16 − 2 = 67,9 GB → 135 samples of 0,5 GB; 25,77 − 14 − 2 = 9,77 GB → 4 samples of 2 GB.
GPU_PLANS = [
    (("85,9", "16", "2", "0,5", "512"),
     ("135", "4", "Entra in una GPU da 80 GiB = 85,9 GB: restano 400 MB oltre la riserva.", "400 MB")),
    (("25,77", "14", "2", "2", "64"),
     ("4", "16", "Entra in una GPU da 24 GiB = 25,77 GB: restano 1,77 GB oltre la riserva.", "1,77 GB")),
    (("150,32", "40", "0", "1,5", "96"),
     ("73", "2", "Entra in una GPU da 140 GiB = 150,32 GB: restano 820 MB oltre la riserva.", "820 MB")),
]


@pytest.mark.parametrize(("inputs", "expected"), GPU_PLANS)
def test_target_on_a_gpu(inputs: tuple[str, ...], expected: tuple[str, ...]) -> None:
    gpu, states, reserve, a, target = inputs
    answer: dict[str, Any] = respond(request(ACC, mode="gpu", gpu_memory_gb=gpu, model_states_gb=states,
                                             reserve_gb=reserve, activation_per_sample_gb=a,
                                             target_effective_batch=target, plan_goal="massimo"))
    results = answer["results"]
    assert (results["micro_batch_fit"], results["accumulation_needed"], results["gpu_fit"],
            results["gpu_headroom_gb"]) == expected
    # The budget mode with the same memory left gives the same plan.
    left = parse_number(gpu) - parse_number(states) - parse_number(reserve)
    same = respond(request(ACC, mode="obiettivo", memory_budget=format_exact_field(left), plan_goal="massimo",
                           activation_per_sample_gb=a, target_effective_batch=target))["results"]
    assert (same["micro_batch_fit"], same["accumulation_needed"]) == expected[:2]  # type: ignore[index]


def test_a_gpu_without_room_for_one_sample_says_it_does_not_fit_and_what_would_make_it_fit() -> None:
    """Issue 25: the verdict, a micro-batch of 0 and, for each change, the figure it must reach (computed: the
    activations that fit after the states, the states that fit beside one sample, the smallest card that holds it),
    in the verdict's tone; no plan and no configs."""
    answer = respond(request(ACC, mode="gpu", gpu_memory_gb="25,77", model_states_gb="23", reserve_gb="2",
                             activation_per_sample_gb="1", sequence_length="4096"))
    assert answer["status"] == "ok", answer["errors"]
    results: dict[str, str] = answer["results"]  # type: ignore[assignment]
    assert results["gpu_fit"] == "Non entra in una GPU da 24 GiB = 25,77 GB: mancano 230 MB."
    assert results["micro_batch_fit"] == "0"
    assert results["effective_batch"] == results["micro_batch_plan"] == "—" and results["config_hf"] == ""
    assert results["advice"] == (
        "Per far entrare almeno un campione, una di queste: attivazioni per campione fino a 770 MB (ora 1 GB), con il"
        " gradient checkpointing o sequenze più corte (circa 3.153 token invece di 4.096, se le attivazioni crescono"
        " in proporzione); stati del modello per GPU fino a 22,77 GB (ora 23 GB), con ZeRO-3 o FSDP (se ora non sono"
        " divisi, su almeno 2 GPU), un ottimizzatore a 8 bit o LoRA; una GPU con almeno 26 GB: la più piccola del"
        " catalogo è la A100 40GB (40 GiB = 42,95 GB)."
    )
    assert answer["chart"] == ""
    calc = CALCULATORS[ACC]
    tones = calc.tones(evaluate(calc, {**calc.defaults, "mode": "gpu", "gpu_memory_gb": "25,77",
                                       "model_states_gb": "23", "activation_per_sample_gb": "1"}).outputs)
    assert tones == {"gpu_fit": "bad", "micro_batch_fit": "bad", "advice": "bad"}
    # States larger than the card: only the states or the card can change; past every card, more GPUs.
    said = respond(request(ACC, mode="gpu", gpu_memory_gb="25,77", model_states_gb="300", reserve_gb="2",
                           activation_per_sample_gb="1"))["results"]["advice"]  # type: ignore[index]
    assert "attivazioni per campione" not in said and "almeno 14 GPU" in said
    assert said.endswith("nessuna GPU del catalogo ha 303 GB: servono più GPU.")
    # Activations in MB are compared in MB: 500 MB fit in the 0,77 GB left.
    fits = respond(request(ACC, mode="gpu", gpu_memory_gb="25,77", model_states_gb="23", reserve_gb="2",
                           activation_unit="MB", activation_per_sample_gb="500", target_effective_batch="8"))
    assert fits["status"] == "ok" and fits["results"]["micro_batch_fit"] == "1"  # type: ignore[index]


def test_gpu_fields_and_buttons_belong_to_the_gpu_mode() -> None:
    from calculator import CALCULATORS
    from calculator.form.render import render

    calc = CALCULATORS[ACC]
    html = render(calc)
    assert '<div class="calc__presets" role="group" aria-labelledby="accumulo-del-gradiente--preimpostati-0"' \
           ' data-modes="gpu" hidden>' in html
    # The GPU buttons sit in the GPU group, first thing after its legend.
    assert '<fieldset class="calc__group" data-modes="gpu" hidden>\n<legend>GPU</legend>\n' \
           '<div class="calc__presets" role="group" aria-labelledby="accumulo-del-gradiente--preimpostati-0"' in html
    assert '<div class="calc__field" data-modes="gpu" hidden><label for="accumulo-del-gradiente--gpu_memory_gb">' in html
    shown = render(calc, {"mode": "gpu"})
    assert 'data-modes="gpu">' in shown and 'data-preset="{&quot;gpu_memory_gb&quot;: &quot;25,77&quot;}"' in shown
    # In the other modes the GPU fields do not matter, even when invalid.
    assert respond(request(ACC, mode="obiettivo", gpu_memory_gb="abc"))["status"] == "ok"


@given(st.integers(1, 100_000), st.integers(1, 5_000), st.integers(1, 64), st.integers(1, 8))
def test_plan_properties(target: int, budget: int, gpus: int, activation: int) -> None:
    if activation > budget:
        return
    result = plan(target, Decimal(budget), gpus, Decimal(activation))
    assert result.micro_batch * activation <= budget  # it fits
    assert result.effective_batch == result.micro_batch * result.accumulation_steps * gpus
    assert result.effective_batch >= target  # at least the target ...
    assert result.effective_batch - target < result.micro_batch * gpus  # ... by less than one step
    assert result.exact == (result.effective_batch == target)


@given(st.integers(1, 10**6), st.integers(1, 10**6))
def test_largest_divisor(n: int, limit: int) -> None:
    d = largest_divisor_at_most(n, limit)
    assert n % d == 0 and d <= max(1, limit)
    assert all(n % k for k in range(d + 1, min(limit, n) + 1)) if limit < 2000 else True


@pytest.mark.parametrize("mode", ["diretto", "obiettivo", "gpu"])
@pytest.mark.parametrize("gpus", ["1", "4", "3"])
def test_configs_parse_back_and_agree_with_the_effective_batch(mode: str, gpus: str) -> None:
    results: dict[str, str] = respond(request(ACC, mode=mode, data_parallel_gpus=gpus))["results"]  # type: ignore[assignment]
    effective = outputs(ACC, mode=mode, data_parallel_gpus=gpus)["effective_batch"]
    deepspeed = json.loads(results["config_deepspeed"])
    assert set(deepspeed) == {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"}
    micro, steps = deepspeed["train_micro_batch_size_per_gpu"], deepspeed["gradient_accumulation_steps"]
    assert deepspeed["train_batch_size"] == micro * steps * int(gpus) == effective

    def keywords(source: str, function: str) -> dict[str, Any]:
        tree = ast.parse(source)  # also proves that the snippet is valid Python
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == function]
        assert len(calls) == 1, function
        return {k.arg: ast.literal_eval(k.value) for k in calls[0].keywords if k.arg}

    hf = keywords(results["config_hf"], "TrainingArguments")
    assert (hf["per_device_train_batch_size"], hf["gradient_accumulation_steps"]) == (micro, steps)
    lightning = keywords(results["config_lightning"], "Trainer")
    assert (lightning["devices"], lightning["accumulate_grad_batches"]) == (int(gpus), steps)
    assert keywords(results["config_lightning"], "DataLoader")["batch_size"] == micro
    accelerate = keywords(results["config_accelerate"], "Accelerator")
    assert accelerate == {"gradient_accumulation_steps": steps}
    assert f"--num_processes {gpus}" in results["config_accelerate"]


@pytest.mark.parametrize(("steps", "points"), [("8", 16), ("1", 8), ("3", 8), ("40", 64), ("500", 64)])
def test_chart_points_and_flat_memory(steps: str, points: int) -> None:
    svg = ET.fromstring(svg_part(str(respond(request(ACC, accumulation_steps=steps))["chart"])))
    ns = "{http://www.w3.org/2000/svg}"
    lines = {line.get("data-series"): line.get("points", "").split() for line in svg.iter(f"{ns}polyline")}
    assert len(lines["batch"]) == len(lines["memory"]) == points
    memory_y = {p.split(",")[1] for p in lines["memory"]}
    assert len(memory_y) == 1  # flat
    batch_y = [float(p.split(",")[1]) for p in lines["batch"]]
    assert batch_y == sorted(batch_y, reverse=True)  # rising (SVG y grows downwards)
    desc = svg.find(f"{ns}desc")
    assert desc is not None and "resta 2 GB" in (desc.text or "")


@pytest.mark.parametrize(("unit", "activation", "memory", "shown"), [
    ("MB", "500", 2000, "2 GB"), ("MB", "100", 400, "400 MB"), ("GiB", "0,5", 2, "2 GiB"), ("GiB", "0,1", "0.4", "0,4 GiB"),
    ("GB", "0,5", 2, "2 GB"), ("GB", "0,1", "0.4", "400 MB"),
])
def test_units_follow_the_choice(unit: str, activation: str, memory: int | str, shown: str) -> None:
    answer = evaluation(ACC, activation_unit=unit, activation_per_sample_gb=activation)
    assert answer.outputs["activation_memory"] == Decimal(memory)  # in the unit chosen ...
    assert answer.results["activation_memory"] == shown  # ... shown in MB or GB as reads best; GiB stays GiB


@given(st.decimals(min_value=Decimal("0.001"), max_value=Decimal(10**7), places=3), st.sampled_from(["MB", "GB"]))
def test_one_unit_policy_for_memory(value: Decimal, unit: str) -> None:
    """A decimal memory reads in MB under 1 GB and in GB from 1 000 MB, and means the same amount."""
    scaled, shown_unit = scale_memory(value, unit)
    in_mb = {"MB": Decimal(1), "GB": Decimal(1000)}
    assert scaled * in_mb[shown_unit] == value * in_mb[unit]
    assert (1 <= scaled < 1000) or (shown_unit == "MB" and scaled < 1) or (shown_unit == "GB" and scaled >= 1000)
    assert scale_memory(value, "GiB") == (value, "GiB")


def test_optional_extras() -> None:
    results = outputs(ACC, dataset_size="100.000", sequence_length="4096")
    assert (results["steps_per_epoch"], results["tokens_per_step"]) == (Decimal(3125), Decimal(131_072))
    results = outputs(ACC, dataset_size="100")
    assert results["steps_per_epoch"] == 4  # 100 / 32, rounded up
    assert results["tokens_per_step"] is None  # no sequence length, no tokens


# The case: 8 GPUs, a target of 256 planned exactly (16 × 2 × 8), not 304 or 320.
@pytest.mark.parametrize(("mode", "memory"), [("gpu", {"gpu_memory_gb": "85,9", "model_states_gb": "16"}),
                                              ("obiettivo", {"memory_budget": "20"})])
def test_eight_gpus_plan_the_target_exactly(mode: str, memory: dict[str, str]) -> None:
    for target in ("256", "512"):
        results = outputs(ACC, mode=mode, data_parallel_gpus="8", target_effective_batch=target, **memory)
        assert results["effective_batch"] == Decimal(target)
        micro, steps = results["micro_batch_plan"], results["accumulation_needed"]
        assert isinstance(micro, Decimal) and isinstance(steps, Decimal) and micro * steps * 8 == Decimal(target)


def agreement(mode: str, goal: str, target: int, gpus: int, memory: str) -> None:
    """The headline, every config and the effective batch say the same plan; the exact goal reaches the target
    whenever the GPUs divide it; the plan's micro-batch fits."""
    budget = {"gpu_memory_gb": memory, "model_states_gb": "10", "reserve_gb": "2"} if mode == "gpu" \
        else {"memory_budget": memory}
    values = {"mode": mode, "plan_goal": goal, "target_effective_batch": str(target), "data_parallel_gpus": str(gpus),
              "activation_per_sample_gb": "0,5", **budget}
    answer: dict[str, Any] = respond(request(ACC, **values))
    assert answer["status"] == "ok", answer.get("errors")
    typed = outputs(ACC, **values)
    results = answer["results"]
    micro, steps, effective = (int(typed[k]) for k in ("micro_batch_plan", "accumulation_needed", "effective_batch"))  # type: ignore[arg-type]
    assert micro * steps * gpus == effective
    assert results["effective_batch"] == format_integer(effective)
    assert micro <= int(typed["micro_batch_fit"])  # type: ignore[arg-type]
    if goal == "esatto" and target % gpus == 0:
        assert effective == target
    assert target <= effective < target + micro * gpus
    deepspeed = json.loads(results["config_deepspeed"])
    assert deepspeed == {"train_batch_size": effective, "train_micro_batch_size_per_gpu": micro,
                         "gradient_accumulation_steps": steps}
    assert f"per_device_train_batch_size={micro}," in results["config_hf"]
    assert f"gradient_accumulation_steps={steps}," in results["config_hf"]
    assert f"--nproc_per_node={gpus} " in results["config_hf"]
    assert f"batch_size={micro})" in results["config_lightning"]
    assert f"Trainer(devices={gpus}, accumulate_grad_batches={steps})" in results["config_lightning"]
    assert f"Accelerator(gradient_accumulation_steps={steps})" in results["config_accelerate"]
    assert f"batch_size={micro})" in results["config_accelerate"]
    assert f"--num_processes {gpus} " in results["config_accelerate"]
    svg = str(answer["chart"])
    assert svg.startswith("<svg")


@pytest.mark.parametrize("mode", ["obiettivo", "gpu"])
@pytest.mark.parametrize("goal", ["esatto", "massimo"])
@pytest.mark.parametrize("gpus", [1, 2, 3, 8])
@pytest.mark.parametrize("target", [1, 7, 96, 256, 500, 512, 1000])
def test_headline_configs_and_effective_batch_agree_on_a_grid(mode: str, goal: str, gpus: int, target: int) -> None:
    agreement(mode, goal, target, gpus, "20" if mode == "obiettivo" else "40")


@given(st.sampled_from(["obiettivo", "gpu"]), st.sampled_from(["esatto", "massimo"]), st.integers(1, 20_000),
       st.integers(1, 64), st.integers(13, 200))
def test_headline_configs_and_effective_batch_agree(mode: str, goal: str, target: int, gpus: int, memory: int) -> None:
    agreement(mode, goal, target, gpus, str(memory))


@given(st.integers(1, 100_000), st.integers(1, 5_000), st.integers(1, 64), st.integers(1, 8))
def test_exact_plan_properties(target: int, budget: int, gpus: int, activation: int) -> None:
    if activation > budget:
        return
    result = plan_exact(target, Decimal(budget), gpus, Decimal(activation))
    assert result.micro_batch * activation <= budget
    assert result.effective_batch == result.micro_batch * result.accumulation_steps * gpus
    assert result.exact == (target % gpus == 0)
    if result.exact:  # no larger micro-batch that fits divides the target per GPU
        per_gpu = target // gpus
        assert all(per_gpu % m for m in range(result.micro_batch + 1, min(result.fits, per_gpu) + 1)) \
            if result.fits < 3000 else True
    else:
        assert result == plan(target, Decimal(budget), gpus, Decimal(activation))
