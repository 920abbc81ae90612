"""The LoRA parameters calculator: properties and presets."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from calculator import respond
from calculator.lora import CALCULATOR, MODULES, compute

from .golden import LORA

ranks = st.integers(min_value=1, max_value=1024)
module_sets = st.sets(st.sampled_from(sorted(MODULES)), min_size=1)


@st.composite
def architectures(draw: st.DrawFn) -> dict[str, int]:
    head_dim = draw(st.sampled_from([32, 64, 128]))
    kv_heads = draw(st.integers(min_value=1, max_value=16))
    heads = kv_heads * draw(st.integers(min_value=1, max_value=8))
    return {
        "layers": draw(st.integers(min_value=1, max_value=128)),
        "hidden_size": heads * head_dim,
        "intermediate_size": draw(st.integers(min_value=1, max_value=65_536)),
        "attention_heads": heads,
        "kv_heads": kv_heads,
    }


def trainable(rank: int, arch: dict[str, int], modules: set[str]) -> Decimal:
    values: dict[str, Decimal | bool | None] = {k: Decimal(v) for k, v in arch.items()}
    values.update({name: name in modules for name in MODULES})
    values.update(rank=Decimal(rank), total_parameters_billion=None)
    out = compute(values)
    assert out["trainable_percent"] is None
    value = out["trainable_parameters"]
    assert value is not None
    return value


@given(ranks, architectures(), module_sets, st.integers(min_value=2, max_value=8))
def test_linear_in_rank(rank: int, arch: dict[str, int], modules: set[str], factor: int) -> None:
    assert trainable(rank * factor, arch, modules) == factor * trainable(rank, arch, modules)


@given(ranks, architectures(), module_sets, st.sampled_from(["layers", "intermediate_size"]))
def test_grows_with_sizes(rank: int, arch: dict[str, int], modules: set[str], key: str) -> None:
    bigger = {**arch, key: arch[key] + 1}
    if key == "intermediate_size" and not modules & {"gate_proj", "up_proj", "down_proj"}:
        assert trainable(rank, bigger, modules) == trainable(rank, arch, modules)
    else:
        assert trainable(rank, bigger, modules) > trainable(rank, arch, modules)


@given(ranks, architectures(), module_sets, module_sets)
def test_more_modules_more_parameters(rank: int, arch: dict[str, int], first: set[str], second: set[str]) -> None:
    assert trainable(rank, arch, first | second) >= trainable(rank, arch, first)


@given(ranks, architectures())
def test_matches_the_per_matrix_formula(rank: int, arch: dict[str, int]) -> None:
    h, i = arch["hidden_size"], arch["intermediate_size"]
    kv = arch["kv_heads"] * h // arch["attention_heads"]
    per_layer = rank * ((h + h) * 2 + (h + kv) * 2 + (h + i) * 3)
    assert trainable(rank, arch, set(MODULES)) == arch["layers"] * per_layer


def test_presets_are_public_configs() -> None:
    presets = {p.label: dict(p.values) for p in CALCULATOR.presets}
    assert presets == {
        "Llama 2 7B": {"hidden_size": "4096", "intermediate_size": "11008", "layers": "32",
                       "attention_heads": "32", "kv_heads": "32", "total_parameters_billion": "6,74"},
        "Mistral 7B": {"hidden_size": "4096", "intermediate_size": "14336", "layers": "32",
                       "attention_heads": "32", "kv_heads": "8", "total_parameters_billion": "7,24"},
        "Llama 3 8B": {"hidden_size": "4096", "intermediate_size": "14336", "layers": "32",
                       "attention_heads": "32", "kv_heads": "8", "total_parameters_billion": "8,03"},
    }
    for values in presets.values():
        answer = respond({"calculator": LORA, "values": {**CALCULATOR.defaults, **values}})
        assert answer["status"] == "ok"
