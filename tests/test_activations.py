"""The activation-memory calculator: the paper's equations, properties, the catalogue, bad combinations."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculator import CALCULATORS, respond
from calculator.activations import EAGER, FULL, NONE, SELECTIVE, Shape, estimate, layer_terms
from calculator.catalogue import MODELS
from calculator.numbers import format_decimal

CALC = CALCULATORS["memoria-attivazioni"]

# Korthikanti, Casper, Lym, McAfee, Andersch, Shoeybi, Catanzaro, "Reducing Activation Recomputation in Large
# Transformer Models", arXiv:2205.05198 (MLSys 2023). Table 3: the GPT-3-style models they train, all with
# s = 2048 and tensor-parallel size t = 8.
PAPER_MODELS = {  # name: (attention heads a, hidden size h, layers L)
    "22B": (64, 6144, 48),
    "175B (GPT-3)": (96, 12288, 96),
    "530B (MT-NLG)": (128, 20480, 105),
    "1T": (160, 25600, 128),
}
S, T = 2048, 8


def table_2(s: int, b: int, h: int, a: int, t: int, row: str) -> Decimal:
    """Table 2 of the paper, activation bytes per transformer layer, written independently of the module."""
    quadratic = Decimal(5 * a * s) / (h * t)
    linear = {
        "nessun parallelismo": Decimal(34) + Decimal(5 * a * s) / h,
        "tensoriale": 10 + Decimal(24) / t + quadratic,
        "tensoriale e di sequenza": Decimal(34) / t + quadratic,
        "tensoriale e selettivo": 10 + Decimal(24) / t,
        "tensoriale, di sequenza e selettivo": Decimal(34) / t,
        "completo": Decimal(2),  # §4.3: full recomputation keeps 2sbh per layer
    }[row]
    return s * b * h * linear


SETTINGS = {  # row of Table 2 → the calculator's fields
    "nessun parallelismo": {"tensor_parallel": "1"},
    "tensoriale": {},
    "tensoriale e di sequenza": {"sequence_parallel": "on"},
    "tensoriale e selettivo": {"checkpointing": SELECTIVE},
    "tensoriale, di sequenza e selettivo": {"sequence_parallel": "on", "checkpointing": SELECTIVE},
    "completo": {"tensor_parallel": "1", "checkpointing": FULL},
}


def paper_shape(a: int, h: int, layers: int, **changes: object) -> Shape:
    """A GPT-3-style layer as the paper counts it: fp16, dropout, a plain 4h MLP, eager attention, fused norms."""
    values: dict[str, object] = dict(
        layers=layers, hidden=h, heads=a, kv_heads=a, head_dim=h // a, intermediate=4 * h, gated=False,
        vocab=51200, sequence=S, micro_batch=1, precision=2, loss_precision=4, flash=False, dropout=True,
        norm_fp32=False, tensor_parallel=T, sequence_parallel=False, checkpointing=NONE,
    )
    values.update(changes)
    return Shape(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize("row", list(SETTINGS))
@pytest.mark.parametrize("model", list(PAPER_MODELS))
def test_table_2_for_the_papers_models(model: str, row: str) -> None:
    a, h, layers = PAPER_MODELS[model]
    t = 1 if SETTINGS[row].get("tensor_parallel") == "1" else T
    values = {
        "layers": str(layers), "hidden_size": str(h), "attention_heads": str(a), "kv_heads": str(a),
        "head_dim": str(h // a), "intermediate_size": str(4 * h), "mlp": "plain", "vocab_size": "51200",
        "sequence_length": str(S), "micro_batch": "1", "precision": "fp16", "attention": EAGER, "dropout": "on",
        "norm_fp32": "", "tensor_parallel": str(T), **SETTINGS[row],
    }
    shape = paper_shape(a, h, layers, tensor_parallel=t, sequence_parallel=values.get("sequence_parallel") == "on",
                        checkpointing=values.get("checkpointing", NONE))
    assert sum(layer_terms(shape).values()) == table_2(S, 1, h, a, t, row)
    answer = respond({"calculator": CALC.id, "values": {**CALC.defaults, **values}})
    assert answer["status"] == "ok", answer["errors"]
    assert answer["results"]["per_layer_mb"] == format_decimal(table_2(S, 1, h, a, t, row) / 10**6) + " MB"  # type: ignore[index]


def test_the_papers_gpt3_figure_in_the_article() -> None:
    """GPT-3 175B, t = 8: 23·sbh per layer without the paper's techniques, 4,25·sbh with both (§5, Table 2)."""
    sbh = S * 12288
    assert sum(layer_terms(paper_shape(96, 12288, 96)).values()) == 23 * sbh
    both = paper_shape(96, 12288, 96, sequence_parallel=True, checkpointing=SELECTIVE)
    assert sum(layer_terms(both).values()) == Decimal("4.25") * sbh


shapes = st.builds(
    lambda kv, groups, d, i, s, b, p, flash, dropout, gated, norm32: Shape(
        layers=2, hidden=kv * groups * d, heads=kv * groups, kv_heads=kv, head_dim=d, intermediate=i, gated=gated,
        vocab=1000, sequence=s, micro_batch=b, precision=p, loss_precision=4, flash=flash, dropout=dropout,
        norm_fp32=norm32, tensor_parallel=1, sequence_parallel=False, checkpointing=NONE),
    st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]), st.sampled_from([32, 64, 128]),
    st.integers(64, 20_000), st.integers(1, 8192), st.integers(1, 16), st.sampled_from([2, 4]),
    st.booleans(), st.booleans(), st.booleans(), st.booleans(),
)


def total(shape: Shape) -> Decimal:
    return sum(estimate(shape).values(), Decimal(0))


@given(shapes)
def test_linear_in_the_micro_batch(shape: Shape) -> None:
    from dataclasses import replace

    assert total(replace(shape, micro_batch=shape.micro_batch * 3)) == 3 * total(shape)


@given(shapes)
def test_eager_scores_grow_with_the_square_of_the_sequence(shape: Shape) -> None:
    from dataclasses import replace

    eager = replace(shape, flash=False)
    longer = replace(eager, sequence=eager.sequence * 2)
    assert layer_terms(longer)["scores"] == 4 * layer_terms(eager)["scores"]
    flash = replace(shape, flash=True)
    assert layer_terms(replace(flash, sequence=flash.sequence * 2))["scores"] == 2 * layer_terms(flash)["scores"]


@given(shapes)
def test_checkpointing_never_adds_memory(shape: Shape) -> None:
    from dataclasses import replace

    none, selective, full = (total(replace(shape, checkpointing=c)) for c in (NONE, SELECTIVE, FULL))
    assert none >= selective >= full


@given(shapes, st.sampled_from([2, 4, 8]), st.booleans())
def test_tensor_parallelism_never_adds_memory_per_gpu(shape: Shape, t: int, sequence_parallel: bool) -> None:
    from dataclasses import replace

    split = replace(shape, tensor_parallel=t, sequence_parallel=sequence_parallel)
    assert total(split) <= total(shape)
    assert total(replace(split, sequence_parallel=True)) <= total(replace(split, sequence_parallel=False))


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"attention_heads": "32", "tensor_parallel": "3"}, "tensor_parallel", "non dividono le 32 teste"),
        ({"kv_heads": "5"}, "kv_heads", "devono dividere esattamente"),
        ({"kv_heads": "64"}, "kv_heads", "devono dividere esattamente"),
        ({"attention_heads": "24", "kv_heads": "6", "tensor_parallel": "4", "hidden_size": "3072"},
         "tensor_parallel", "teste chiave/valore"),
        ({"sequence_length": "2000000"}, "sequence_length", "al massimo 1.048.576"),
        ({"micro_batch": "0"}, "micro_batch", "almeno 1"),
        ({"head_dim": "abc"}, "head_dim", "scrivi un numero"),
    ],
)
def test_impossible_combinations_get_italian_messages(changes: dict[str, str], field: str, words: str) -> None:
    answer = respond({"calculator": CALC.id, "values": {**CALC.defaults, **changes}})
    assert answer["status"] == "invalid"
    assert words in answer["errors"][field]  # type: ignore[index]
    assert all(text == "—" for text in answer["results"].values())  # type: ignore[union-attr]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.id)
def test_catalogue_counts_match_what_publishers_state(model) -> None:  # type: ignore[no-untyped-def]
    """Within 0,5 % of the count each model's Hugging Face page states (safetensors metadata); see model.source."""
    assert model.source.startswith("https://huggingface.co/")
    assert abs(model.parameters() - model.stated_parameters) <= model.stated_parameters * Decimal("0.005")


@pytest.mark.parametrize("preset", CALC.presets, ids=lambda p: p.id)
def test_every_preset_computes(preset) -> None:  # type: ignore[no-untyped-def]
    answer = respond({"calculator": CALC.id, "values": {**CALC.defaults, **preset.values}})
    assert answer["status"] == "ok", answer["errors"]


def test_links_carry_the_results_to_the_siblings() -> None:
    answer = respond({"calculator": CALC.id, "values": {**CALC.defaults, "micro_batch": "2"}})
    links = answer["links"]
    assert links["accumulo"].startswith("?activation_unit=GB&mode=diretto&activation_per_sample_gb=")  # type: ignore[index]
    assert "micro_batch=2" in links["accumulo"]  # type: ignore[index]
    a = answer["results"]["per_sample_gb"].removesuffix(" GB")  # type: ignore[index]
    m = answer["results"]["per_micro_batch_gb"].removesuffix(" GB")  # type: ignore[index]
    from urllib.parse import parse_qs

    assert parse_qs(links["accumulo"][1:])["activation_per_sample_gb"] == [a]  # type: ignore[index]
    assert parse_qs(links["vram"][1:])["activation_gb"] == [m]  # type: ignore[index]
    broken = respond({"calculator": CALC.id, "values": {**CALC.defaults, "layers": "x"}})
    assert broken["links"] == {}
