"""The activation page under pipeline parallelism: a GPU of the first stage holds L/PP layers for the micro-batches the
schedule keeps in flight (``calculator/llm/parallelism.py``, as Korthikanti et al. and Megatron-LM count them), the
logits are the last stage's, and the layers that do not divide among the stages are said in Italian."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from urllib.parse import parse_qs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculator import CALCULATORS, respond
from calculator.form.family import carried
from calculator.llm import parallelism as par
from calculator.llm.activation_memory import estimate
from calculator.llm.units import BYTES_PER_GB
from calculator.pages.activations import shape_of

from ..support.outputs import evaluation, outputs

CALC = CALCULATORS["memoria-attivazioni"]
GPT3 = CALC.examples["gpt3_sp_selettivo"]  # GPT-3 175B as Korthikanti et al. train it: t = 8, SP, selective
PRESETS = {preset.id: dict(preset.values) for preset in CALC.presets}
DECODERS = sorted(key for key, values in PRESETS.items() if values.get("decoder_layers") in (None, "0"))
# Decoders whose layers are all alike: a stack with dense first layers (DeepSeek) puts unlike layers in the first stage.
UNIFORM = [key for key in DECODERS if PRESETS[key].get("dense_layers") in (None, "0")]


def _number(value: object) -> Decimal:
    assert isinstance(value, Decimal), value
    return value


def test_the_first_stage_is_its_layers_times_the_micro_batches_in_flight() -> None:
    """Golden values from parallelism.py and the estimate itself: Llama 3.1 8B (32 layers) on 4 stages."""
    base = evaluation(CALC.id).values
    shape = shape_of(base)
    stage = estimate(replace(shape, layers=8))
    layers_of_stage = sum(stage.values(), Decimal(0)) - stage["logits"]
    for extra, flight in (({}, 4), ({"accumulation_steps": "8"}, 4), ({"accumulation_steps": "2"}, 2),
                          ({"virtual_stages": "2"}, Decimal("5.5")), ({"virtual_stages": "4"}, Decimal("4.75"))):
        layout = par.Layout(pipeline=4, virtual=int(str(extra.get("virtual_stages", "1"))))
        m = int(str(extra.get("accumulation_steps", 4 * layout.virtual)))
        assert par.in_flight(layout, m) == flight
        typed = outputs(CALC.id, pipeline_parallel="4", **extra)
        assert typed["in_flight"] == flight and typed["stage_layers"] == 8
        assert _number(typed["per_micro_batch_gb"]) == layers_of_stage * flight / BYTES_PER_GB
        assert typed["logits_gb"] == 0  # the logits are the last stage's
        last = par.in_flight(layout, m, 3)
        assert _number(typed["last_stage_gb"]) == (layers_of_stage * last + stage["logits"]) / BYTES_PER_GB


def test_korthikanti_the_first_stage_holds_the_whole_models_layers() -> None:
    """§4.2.3: with 1F1B the first stage keeps L/p layers for p micro-batches, the activations of the whole model's
    layers at once (without the output layer); interleaved, times 1 + (p − 1)/(p·v). GPT-3 175B, p = 8 as in the
    paper's Table 3 (96 layers, 12 per stage), v = 2 and 3."""
    whole = outputs(CALC.id, GPT3)
    layers = _number(whole["layers_gb"])
    plain = outputs(CALC.id, GPT3, pipeline_parallel="8")
    assert abs(_number(plain["per_micro_batch_gb"]) - layers) < Decimal("1e-9")
    for v in (2, 3, 4):
        interleaved = outputs(CALC.id, GPT3, pipeline_parallel="8", virtual_stages=str(v))
        penalty = 1 + Decimal(8 - 1) / (8 * v)
        assert abs(_number(interleaved["per_micro_batch_gb"]) - layers * penalty) < Decimal("1e-9"), v


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(UNIFORM), stages=st.sampled_from([2, 3, 4, 6, 8, 12, 16]),
       micro_batches=st.integers(1, 24), checkpointing=st.sampled_from(["nessuno", "selettivo", "completo", "selettivo_op"]),
       sequence=st.sampled_from(["1024", "4096"]), micro_batch=st.sampled_from(["1", "2"]))
def test_the_first_stage_never_holds_more_than_the_whole_model(model: str, stages: int, micro_batches: int,
                                                               checkpointing: str, sequence: str,
                                                               micro_batch: str) -> None:
    """What holds exactly, under 1F1B, for decoder-only models of alike layers that divide by PP: a GPU of the first
    stage keeps (the PP = 1 activations less the logits) × min(PP, m)/PP, so never more than with PP = 1, and exactly
    the whole model's layers once the pipeline is full (m ≥ PP). Not claimed: stacks with dense first layers,
    interleaved schedules (they add (PP − 1)/v micro-batches), offloaded checkpoints (a fixed number of layers stays on
    the GPU per micro-batch in flight), and BLOOM's norm after the embeddings (the first stage keeps it for every
    micro-batch in flight)."""
    values = {**PRESETS[model], "checkpointing": checkpointing, "sequence_length": sequence,
              "micro_batch": micro_batch}
    layers = int(values["layers"])
    if layers % stages:
        answer = evaluation(CALC.id, values, pipeline_parallel=str(stages))
        assert answer.status == "invalid" and "non si dividono in parti uguali" in answer.errors["pipeline_parallel"]
        return
    whole = outputs(CALC.id, values)
    piped = outputs(CALC.id, values, pipeline_parallel=str(stages), accumulation_steps=str(micro_batches))
    first, total, logits = (_number(piped["per_micro_batch_gb"]), _number(whole["per_micro_batch_gb"]),
                            _number(whole["logits_gb"]))
    expected = (total - logits) * min(stages, micro_batches) / stages
    assert abs(first - expected) <= total * Decimal("1e-20") + Decimal("1e-15")
    assert first <= total


@pytest.mark.parametrize(("changes", "words"), [
    ({"pipeline_parallel": "3"}, "Parallelismo a pipeline: i 32 strati non si dividono in parti uguali tra 3 stadi;"
                                 " Megatron-LM vuole lo stesso numero di strati per stadio. Stadi possibili: 2, 4, 8,"
                                 " 16, 32."),
    ({"pipeline_parallel": "4", "virtual_stages": "3"}, "tra 12 blocchi (4 stadi × 3 stadi virtuali)"),
    ({"pipeline_parallel": "64"}, "i 32 strati non si dividono in parti uguali tra 64 stadi"),
])
def test_layers_that_do_not_divide_get_an_italian_message(changes: dict[str, str], words: str) -> None:
    answer = evaluation(CALC.id, changes)
    assert answer.status == "invalid" and words in answer.errors["pipeline_parallel"]


@pytest.mark.parametrize(("changes", "field", "words"), [
    ({"virtual_stages": "2"}, "virtual_stages", "servono almeno 2 stadi di pipeline"),
    ({"pipeline_parallel": "4", "virtual_stages": "2", "accumulation_steps": "6"}, "virtual_stages",
     "multiplo dei 4 stadi"),
])
def test_impossible_schedules_get_italian_messages(changes: dict[str, str], field: str, words: str) -> None:
    answer = evaluation(CALC.id, changes)
    assert answer.status == "invalid" and words in answer.errors[field]


def test_an_encoder_decoder_is_not_split_into_stages() -> None:
    answer = evaluation(CALC.id, PRESETS["flan-t5-large"], pipeline_parallel="2")
    assert "solo decoder" in answer.errors["pipeline_parallel"]


def test_without_a_pipeline_nothing_changes() -> None:
    plain, one = outputs(CALC.id), outputs(CALC.id, pipeline_parallel="1", accumulation_steps="7")
    assert plain == one and plain["in_flight"] is None and plain["last_stage_gb"] is None


def test_the_links_carry_the_pipeline() -> None:
    """The fields the siblings share travel by name: PP to the accumulation page, PP and the virtual stages to the
    VRAM page; the micro-batches per step only when written (empty: each sibling keeps its own)."""
    feeds = {feed.id: feed for feed in CALC.feeds}
    accumulation, _ = carried(CALC, feeds["accumulo"])
    vram, _ = carried(CALC, feeds["vram"])
    assert {"pipeline_parallel", "accumulation_steps"} <= set(accumulation)
    assert {"pipeline_parallel", "virtual_stages", "accumulation_steps"} <= set(vram)
    links = respond({"calculator": CALC.id, "values": {**CALC.defaults, "pipeline_parallel": "4"}})["links"]
    query = parse_qs(links["accumulo"][1:])  # type: ignore[index]
    assert query["pipeline_parallel"] == ["4"] and "accumulation_steps" not in query
    written = respond({"calculator": CALC.id, "values": {**CALC.defaults, "pipeline_parallel": "4",
                                                         "accumulation_steps": "8"}})["links"]
    assert parse_qs(written["vram"][1:])["accumulation_steps"] == ["8"]  # type: ignore[index]
    assert parse_qs(written["vram"][1:])["pipeline_parallel"] == ["4"]  # type: ignore[index]
