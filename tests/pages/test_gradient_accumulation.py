"""The gradient-accumulation calculator: golden tables and properties."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from calculator import respond
from calculator.form.model import Kind
from calculator.pages.gradient_accumulation import CALCULATOR, compute

from ..support.golden import ACC, request


def test_empty_field_asks_for_a_value() -> None:
    answer = respond(request(ACC, accumulation_steps=""))
    assert answer["status"] == "incomplete"
    assert answer["message"] == "Inserisci un valore per visualizzare i risultati."


def test_declared_fields_match_the_article() -> None:
    fields = {f.id: f for f in CALCULATOR.fields}
    seed = ["micro_batch", "accumulation_steps", "data_parallel_gpus", "activation_per_sample_gb"]
    assert [(f.id, f.label, f.default, f.group) for f in CALCULATOR.fields if f.id in seed] == [
        ("micro_batch", "Dimensione del micro-batch", "4", "Batching"),
        ("accumulation_steps", "Passi di accumulo", "8", "Batching"),
        ("data_parallel_gpus", "GPU con parallelismo dei dati", "1", "Batching"),
        ("activation_per_sample_gb", "Attivazione per campione", "0,5", "Memoria"),
    ]
    assert fields["activation_per_sample_gb"].unit == "GB"
    assert fields["activation_per_sample_gb"].kind is Kind.DECIMAL
    assert all(f.help and f.maximum > f.minimum for f in CALCULATOR.fields)
    labels = {r.id: r.label for r in CALCULATOR.results}
    assert labels["effective_batch"] == "Dimensione effettiva del batch"
    assert labels["activation_memory"] == "Memoria delle attivazioni per GPU"


counts = st.integers(min_value=1, max_value=1_000_000).map(Decimal)
activations = st.decimals(min_value=Decimal("0.000001"), max_value=Decimal(10_000), places=6)


def _outputs(b: Decimal, a: Decimal, g: Decimal, act: Decimal) -> tuple[Decimal, Decimal]:
    out = compute({"mode": "diretto", "micro_batch": b, "accumulation_steps": a, "data_parallel_gpus": g,
                   "activation_per_sample_gb": act, "activation_unit": "GB", "dataset_size": None,
                   "sequence_length": None, "target_effective_batch": None, "memory_budget": None,
                   "steps_rule": "eccesso", "generations": None, "plan_goal": None})
    e, m = out["effective_batch"], out["activation_memory"]
    assert isinstance(e, Decimal) and isinstance(m, Decimal)
    return e, m


@given(counts, counts, counts, activations, st.sampled_from(["b", "a", "g"]))
def test_effective_batch_grows_with_each_count(
    b: Decimal, a: Decimal, g: Decimal, act: Decimal, which: str
) -> None:
    e, _ = _outputs(b, a, g, act)
    bigger = {"b": (b + 1, a, g), "a": (b, a + 1, g), "g": (b, a, g + 1)}[which]
    e2, _ = _outputs(*bigger, act)
    assert e2 > e
    assert e == b * a * g


@given(counts, counts, counts, counts, counts, activations)
def test_memory_ignores_accumulation_and_gpus(
    b: Decimal, a1: Decimal, a2: Decimal, g1: Decimal, g2: Decimal, act: Decimal
) -> None:
    assert _outputs(b, a1, g1, act)[1] == _outputs(b, a2, g2, act)[1] == b * act
