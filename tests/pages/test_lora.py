"""The LoRA parameters calculator: properties and presets."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculator import respond
from calculator.pages.lora import CALCULATOR, MODULES, compute

from ..support.golden import LORA
from ..support.outputs import outputs

ranks = st.integers(min_value=1, max_value=1024)
SEPARATE_GATED = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
module_sets = st.sets(st.sampled_from(SEPARATE_GATED), min_size=1)


@st.composite
def architectures(draw: st.DrawFn) -> dict[str, int]:
    head_dim = draw(st.sampled_from([32, 64, 128]))
    kv_heads = draw(st.integers(min_value=1, max_value=16))
    heads = kv_heads * draw(st.integers(min_value=1, max_value=8))
    return {
        "layers": draw(st.integers(min_value=1, max_value=128)),
        "decoder_layers": draw(st.sampled_from([0, 0, 6, 24])),
        "hidden_size": heads * head_dim,
        "intermediate_size": draw(st.integers(min_value=1, max_value=65_536)),
        "attention_heads": heads,
        "kv_heads": kv_heads,
        # Usually hidden / heads; some configs set another (Gemma 2: 2304 / 8 heads, head_dim 256).
        "head_dim": draw(st.sampled_from([head_dim, head_dim * 2, 256])),
        "experts": draw(st.sampled_from([0, 0, 8, 64])),
        "shared_intermediate_size": 0,
        "vocab_size": draw(st.integers(min_value=1, max_value=300_000)),
    }


def trainable(rank: int, arch: dict[str, int], modules: set[str] | tuple[str, ...], dora: bool = False,
              labels: int = 0, head_layout: str = "linear") -> Decimal:
    values: dict[str, Decimal | bool | str | None] = {k: Decimal(v) for k, v in arch.items()}
    values.update({name: name in modules for name in MODULES})
    values.update(rank=Decimal(rank), total_parameters_billion=None, base_parameters=None, use_dora=dora,
                  num_labels=Decimal(labels), head_layout=head_layout, bias="none", linear_bias="none",
                  model_biases=None)
    out = compute(values)
    assert out["trainable_percent"] is None and str(out["peft_printout"]).startswith("Indica i parametri esatti")
    value = out["trainable_parameters"]
    assert isinstance(value, Decimal)
    return value


@given(ranks, architectures(), module_sets, st.integers(min_value=2, max_value=8))
def test_linear_in_rank(rank: int, arch: dict[str, int], modules: set[str], factor: int) -> None:
    assert trainable(rank * factor, arch, modules) == factor * trainable(rank, arch, modules)


@given(ranks, architectures(), module_sets, st.sampled_from(["layers", "intermediate_size", "decoder_layers"]))
def test_grows_with_sizes(rank: int, arch: dict[str, int], modules: set[str], key: str) -> None:
    bigger = {**arch, key: arch[key] + 1}
    if key == "intermediate_size" and not modules & {"gate_proj", "up_proj", "down_proj"}:
        assert trainable(rank, bigger, modules) == trainable(rank, arch, modules)
    else:
        assert trainable(rank, bigger, modules) > trainable(rank, arch, modules)


@given(ranks, architectures(), module_sets, module_sets, st.booleans())
def test_adding_a_target_never_lowers_the_count(rank: int, arch: dict[str, int], first: set[str], second: set[str],
                                                dora: bool) -> None:
    assert trainable(rank, arch, first | second, dora) >= trainable(rank, arch, first, dora)
    extras = first | {"embed_tokens"}
    assert trainable(rank, arch, extras) - trainable(rank, arch, first) == rank * (arch["vocab_size"]
                                                                                   + arch["hidden_size"])


@given(ranks, architectures())
def test_matches_the_per_matrix_formula(rank: int, arch: dict[str, int]) -> None:
    h, i = arch["hidden_size"], arch["intermediate_size"]
    q, kv = arch["attention_heads"] * arch["head_dim"], arch["kv_heads"] * arch["head_dim"]
    attention, mlp = rank * ((h + q) * 2 + (h + kv) * 2), rank * (h + i) * 3 * max(arch["experts"], 1)
    stacks = arch["layers"] * (attention + mlp) + arch["decoder_layers"] * (2 * attention + mlp)
    assert trainable(rank, arch, SEPARATE_GATED) == stacks


@given(ranks, architectures())
def test_a_fused_projection_is_one_input_and_the_sum_of_the_outputs(rank: int, arch: dict[str, int]) -> None:
    fused = {**arch, "experts": 0}
    parts = sum(trainable(rank, fused, {name}) for name in ("q_proj", "k_proj", "v_proj"))
    layers = fused["layers"] + 2 * fused["decoder_layers"]  # attention blocks
    assert trainable(rank, fused, {"qkv_proj"}) == parts - 2 * rank * fused["hidden_size"] * layers
    gate_up = trainable(rank, fused, {"gate_up_proj"})
    assert gate_up == trainable(rank, fused, {"gate_proj", "up_proj"}) - rank * fused["hidden_size"] * (
        fused["layers"] + fused["decoder_layers"])


@given(ranks, architectures(), module_sets, st.integers(1, 1000), st.sampled_from(["linear", "linear_bias",
                                                                                  "dense_proj"]))
def test_a_head_in_modules_to_save_adds_its_own_size(rank: int, arch: dict[str, int], modules: set[str], labels: int,
                                                     layout: str) -> None:
    h = arch["hidden_size"]
    size = {"linear": h * labels, "linear_bias": h * labels + labels, "dense_proj": h * h + h + h * labels + labels}
    added = trainable(rank, arch, modules, labels=labels, head_layout=layout) - trainable(rank, arch, modules)
    assert added == size[layout]


@given(ranks, architectures(), module_sets)
def test_dora_adds_one_magnitude_per_output(rank: int, arch: dict[str, int], modules: set[str]) -> None:
    with_dora = trainable(rank, arch, modules, dora=True) - trainable(rank, arch, modules)
    assert with_dora == trainable(1, arch, modules, dora=True) - trainable(1, arch, modules) > 0


def test_presets_are_public_configs() -> None:
    """Each preset is a catalogue entry, its values those of the model's config.json (see the entry's source)."""
    labels = [p.label for p in CALCULATOR.presets]
    assert labels[:3] == ["Llama 2 7B", "Llama 3.1 8B", "Llama 3.2 1B"] and "Gemma 2 2B" in labels
    llama2 = dict(CALCULATOR.presets[0].values)
    assert {k: llama2[k] for k in ("hidden_size", "intermediate_size", "layers", "attention_heads", "kv_heads",
                                   "head_dim", "total_parameters_billion")} == {
        "hidden_size": "4096", "intermediate_size": "11008", "layers": "32", "attention_heads": "32",
        "kv_heads": "32", "head_dim": "", "total_parameters_billion": "6,738416"}  # head_dim derived: not in the config
    for preset in CALCULATOR.presets:
        answer = respond({"calculator": LORA, "values": {**CALCULATOR.defaults, **preset.values}})
        assert answer["status"] == "ok"


# Attention projections sized from the head dimension (config.json's head_dim), not hidden / heads: the
# published configs of these models set one that differs from hidden / heads, or use grouped-query attention.
# Expected counts written out from each config, r = 8 on q_proj and v_proj (PEFT's default for Llama-style
# models): r·(d_in + d_out) per matrix, times the layers.
HEAD_DIM_CASES = {
    # id: (layers, hidden, heads, kv heads, head_dim)
    "gemma-2-2b": (26, 2304, 8, 4, 256),  # hidden / heads = 288, head_dim 256
    "qwen3-8b": (36, 4096, 32, 8, 128),
    "llama-3.2-1b": (16, 2048, 32, 8, 64),
    "qwen2.5-7b": (28, 3584, 28, 4, 128),
}


@pytest.mark.parametrize("model_id", list(HEAD_DIM_CASES))
def test_attention_is_sized_from_the_head_dimension(model_id: str) -> None:
    from calculator.llm.catalogue import model
    from calculator.pages.presets import field_texts

    layers, hidden, heads, kv, head_dim = HEAD_DIM_CASES[model_id]
    expected = layers * 8 * ((hidden + heads * head_dim) + (hidden + kv * head_dim))
    assert outputs(LORA, field_texts(model(model_id)))["trainable_parameters"] == expected


def test_gemma_2_2b_is_no_longer_counted_from_hidden_over_heads() -> None:
    """The old rule (q_proj 2304 → 2304, k/v 2304 → 4 · 288) gave 1.677.312: 5 % too many."""
    from calculator.llm.catalogue import model
    from calculator.pages.presets import field_texts

    assert outputs(LORA, field_texts(model("gemma-2-2b")))["trainable_parameters"] == 1_597_440


def test_head_dim_left_empty_follows_the_hidden_size_and_the_heads() -> None:
    """Issue 23: a hand-typed shape cannot keep a stale head dimension."""
    from calculator.form.api import respond

    def trainable(**texts: str) -> str:
        answer = respond({"calculator": "parametri-lora", "values": {**CALCULATOR.defaults, **texts}})
        return str(answer["results"]["trainable_parameters"]) if answer["status"] == "ok" else str(answer["errors"])

    derived = trainable(hidden_size="2048", attention_heads="16", kv_heads="16", head_dim="")
    assert derived == trainable(hidden_size="2048", attention_heads="16", kv_heads="16", head_dim="128")
    assert derived != trainable(hidden_size="2048", attention_heads="16", kv_heads="16", head_dim="256")
    assert "head_dim" in trainable(hidden_size="2050", attention_heads="16", kv_heads="16", head_dim="")


@pytest.mark.parametrize("preset", [p for p in CALCULATOR.presets if p.values.get("base_parameters")],
                         ids=lambda p: p.id)
def test_the_headline_percentage_is_pefts_trainable_percent(preset) -> None:  # type: ignore[no-untyped-def]
    """One percentage defined as PEFT defines it (trainable over all params, adapters included): with the model's
    exact size it agrees with PEFT's own line; the share of the model alone is the other, explained, and larger."""
    from calculator.form.numbers import format_exact_field

    base = int(preset.values["base_parameters"])
    values = {**preset.values, "total_parameters_billion": format_exact_field(Decimal(base) / 10**9)}
    out = outputs(LORA, values)
    share, of_model = out["trainable_percent"], out["model_percent"]
    assert isinstance(share, Decimal) and isinstance(of_model, Decimal)
    printed = Decimal(str(out["peft_printout"]).rsplit("trainable%: ", 1)[1])
    assert abs(share - printed) <= Decimal("0.00006")  # PEFT prints four decimals; the size is rounded to 10³
    trainable = out["trainable_parameters"]
    assert isinstance(trainable, Decimal) and of_model > share
    assert abs(of_model - trainable / (parse(values["total_parameters_billion"]) * 10**9) * 100) < Decimal("1e-20")


def parse(text: str) -> Decimal:
    from calculator.form.numbers import parse_number

    return parse_number(text)
