"""The activation-memory calculator: the paper's equations, properties, the catalogue, bad combinations."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from urllib.parse import parse_qs

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculator import CALCULATORS, respond
from calculator.form.numbers import format_integer, parse_number
from calculator.llm.activation_memory import (
    EAGER,
    FULL,
    FUSED_NORM,
    LLAMA_NORM,
    NONE,
    SELECTIVE,
    Shape,
    estimate,
    layer_terms,
)
from calculator.llm.catalogue import MODELS

from ..support.outputs import outputs

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
        norm=FUSED_NORM, tensor_parallel=T, sequence_parallel=False, checkpointing=NONE,
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
        "norms": "fuso", "softmax_fp32": "", "tensor_parallel": str(T), **SETTINGS[row],
    }
    shape = paper_shape(a, h, layers, tensor_parallel=t, sequence_parallel=values.get("sequence_parallel") == "on",
                        checkpointing=values.get("checkpointing", NONE))
    assert sum(layer_terms(shape).values()) == table_2(S, 1, h, a, t, row)
    assert outputs(CALC.id, values)["per_layer_mb"] == table_2(S, 1, h, a, t, row) / 10**6


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
        norm=LLAMA_NORM if norm32 else FUSED_NORM, tensor_parallel=1, sequence_parallel=False, checkpointing=NONE),
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
        ({"sequence_length": "2000000"}, "sequence_length", f"al massimo {format_integer(1_048_576)}"),
        ({"micro_batch": "0"}, "micro_batch", "almeno 1"),
        ({"head_dim": "abc"}, "head_dim", "scrivi un numero"),
        ({"experts": "8", "experts_per_token": "9"}, "experts_per_token", "più degli esperti per strato (8)"),
        ({"experts": "8"}, "experts_per_token", "ne serve almeno 1"),
        ({"experts_per_token": "2"}, "experts_per_token", "servono gli esperti per strato"),
        ({"shared_intermediate_size": "1408"}, "shared_intermediate_size", "solo in un modello a esperti"),
        ({"decoder_layers": "24"}, "encoder_sequence", "serve anche questa"),
        ({"encoder_sequence": "512"}, "encoder_sequence", "solo per i modelli encoder–decoder"),
        ({"mel_bins": "80"}, "mel_bins", "solo negli encoder–decoder come Whisper"),
        ({"dense_layers": "1"}, "dense_layers", "solo in un modello a esperti"),
        ({"experts": "8", "experts_per_token": "2", "dense_layers": "1"}, "dense_intermediate_size",
         "serve la loro dimensione"),
        ({"v_head_dim": "128"}, "kv_lora_rank", "valgono solo con kv_lora_rank"),
        ({"kv_lora_rank": "512", "qk_rope_head_dim": "64"}, "v_head_dim", "servono v_head_dim"),
        ({"attention": "flash_attention_2", "precision": "fp32"}, "attention", "non accettano attivazioni a 32 bit"),
    ],
)
def test_impossible_combinations_get_italian_messages(changes: dict[str, str], field: str, words: str) -> None:
    answer = respond({"calculator": CALC.id, "values": {**CALC.defaults, **changes}})
    assert answer["status"] == "invalid"
    assert words in answer["errors"][field]  # type: ignore[index]
    assert all(text == "—" for text in answer["results"].values())  # type: ignore[union-attr]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.id)
def test_catalogue_counts_match_what_publishers_state(model) -> None:  # type: ignore[no-untyped-def]
    """Within 0,5 % of the count each model's Hugging Face page states (safetensors metadata); see model.source.
    A publisher that states a rounded count (SmolLM3's "3B") is met to its digits."""
    assert model.source.startswith("https://huggingface.co/")
    margin = max(model.stated_parameters * Decimal("0.005"), Decimal(model.stated_rounding) / 2)
    assert abs(model.parameters() - model.stated_parameters) <= margin


@pytest.mark.parametrize("preset", CALC.presets, ids=lambda p: p.id)
def test_every_preset_computes(preset) -> None:  # type: ignore[no-untyped-def]
    answer = respond({"calculator": CALC.id, "values": {**CALC.defaults, **preset.values}})
    assert answer["status"] == "ok", answer["errors"]


def test_links_carry_the_results_to_the_siblings() -> None:
    answer = respond({"calculator": CALC.id, "values": {**CALC.defaults, "micro_batch": "2"}})
    links = answer["links"]
    query = parse_qs(links["accumulo"][1:])  # type: ignore[index]
    assert (query["activation_unit"], query["mode"]) == (["GB"], ["diretto"]) and query["activation_per_sample_gb"]
    # Fields both pages have travel by name too (form/family): the same run's TP and CP.
    assert (query["tensor_parallel"], query["context_parallel"]) == (["1"], ["1"])
    assert "micro_batch=2" in links["accumulo"]  # type: ignore[index]
    typed = outputs(CALC.id, micro_batch="2")
    a, m = typed["per_sample_gb"], typed["per_micro_batch_gb"]
    assert isinstance(a, Decimal) and isinstance(m, Decimal)
    # Each link carries the result to two decimals, as the page shows it (both are above 1 GB here).
    [carried_a] = parse_qs(links["accumulo"][1:])["activation_per_sample_gb"]  # type: ignore[index]
    [carried_m] = parse_qs(links["vram"][1:])["activation_gb"]  # type: ignore[index]
    assert (parse_number(carried_a), parse_number(carried_m)) == (round(a, 2), round(m, 2))
    broken = respond({"calculator": CALC.id, "values": {**CALC.defaults, "layers": "x"}})
    assert broken["links"] == {}


def measured_shape(style: str, flash: bool, layers: int, h: int, heads: int, kv: int, i: int, s: int, b: int,
                   **extra: int) -> Shape:
    """A case of tools/measure_activations.py: GPT-style (LayerNorm, GELU, dropout) or Llama-style (RMSNorm in
    fp32, SwiGLU, no dropout), bf16, vocabulary 2048, logits in fp32."""
    gpt = style == "gpt"
    return Shape(layers=layers, hidden=h, heads=heads, kv_heads=kv, head_dim=h // heads, intermediate=i,
                 gated=not gpt, vocab=2048, sequence=s, micro_batch=b, precision=2, loss_precision=4, flash=flash,
                 dropout=gpt, norm=FUSED_NORM if gpt else LLAMA_NORM, tensor_parallel=1, sequence_parallel=False,
                 checkpointing=NONE, **extra)


# The bytes PyTorch 2.13 (CPU) kept for backward in tools/measure_activations.py, as the README's table prints them
# (MB): the estimate must stay within 0,2 % of each, as it did when measured.
MEASURED = [
    (measured_shape("gpt", False, 2, 256, 4, 4, 1024, 128, 2), "8.13"),
    (measured_shape("llama", False, 2, 512, 8, 2, 1408, 256, 2), "34.62"),
    (measured_shape("llama", True, 2, 1024, 16, 4, 2816, 1024, 1), "107.11"),
    (measured_shape("llama", True, 2, 512, 8, 2, 512, 256, 2, experts=8, experts_per_token=2), "32.13"),
    (measured_shape("llama", False, 2, 512, 8, 8, 128, 256, 1, experts=16, experts_per_token=4,
                    shared_intermediate=1024), "24.74"),
    (measured_shape("llama", True, 2, 512, 8, 2, 128, 512, 1, experts=32, experts_per_token=8), "51.28"),
    (measured_shape("gpt", False, 2, 256, 4, 4, 1024, 128, 2, decoder_layers=2, encoder_sequence=192), "22.11"),
    (measured_shape("llama", True, 2, 512, 8, 8, 1408, 128, 2, decoder_layers=3, encoder_sequence=512), "84.83"),
]


@pytest.mark.parametrize(("shape", "megabytes"), MEASURED,
                         ids=["gpt", "llama-eager", "llama-sdpa", "mixtral", "qwen-shared", "qwen3", "encdec-gpt",
                              "encdec-llama"])
def test_the_estimate_matches_the_measurement(shape: Shape, megabytes: str) -> None:
    measured = Decimal(megabytes) * 10**6
    assert abs(total(shape) - measured) <= measured * Decimal("0.002")


def test_a_mixture_of_experts_written_out() -> None:
    """Mixtral 8x7B's MLP per token in bf16, independently: its input (h), for each of the k = 2 chosen experts
    a copy of the input, the SwiGLU's four i-wide tensors, the output and the weighted output (3h + 4i), the
    routing weight; the router's fp32 probabilities (4 bytes × 8), the normalised weights and the indices."""
    h, i, k, e = 4096, 14336, 2, 8
    shape = measured_shape("llama", True, 32, h, 32, 8, i, 4096, 1, experts=e, experts_per_token=k)
    per_token = 2 * h + 2 * k * (3 * h + 4 * i + 1) + (4 * e + 28 * k + 4)
    assert layer_terms(shape)["mlp"] == 4096 * per_token
    dense = replace(shape, experts=0, experts_per_token=0)
    assert layer_terms(shape)["attention"] == layer_terms(dense)["attention"]  # the experts change the MLP only


def test_an_encoder_decoder_written_out() -> None:
    """Flan-T5-style, eager, no dropout, fused norms: the encoder's layers at s_enc, the decoder's at s with a
    cross-attention block (its norm and query input over s, Q and output over s, K and V over s_enc, scores
    a·s·s_enc), and the encoder's output and final norm kept once."""
    h, a, i, se, sd, p = 1024, 16, 2816, 512, 128, 2
    shape = measured_shape("llama", False, 24, h, a, a, i, sd, 1, decoder_layers=24, encoder_sequence=se)
    shape = replace(shape, norm=FUSED_NORM)

    def layer(s: int) -> int:  # Korthikanti's layer without dropout, gated MLP: norms 4, QKV/O, scores, MLP
        return p * s * h * 2 + p * s * h + 4 * p * s * h + p * a * s * s + p * s * h + 4 * p * s * i

    cross = p * sd * h + p * sd * h + p * (2 * sd * h + 2 * se * h) + p * a * sd * se
    layers = 24 * layer(se) + 24 * (layer(sd) + cross) + 2 * p * se * h
    logits = 2 * p * sd * h + 4 * sd * shape.vocab
    assert total(shape) == layers + logits


@given(shapes, st.integers(2, 64), st.integers(1, 8))
def test_experts_cost_k_times_the_mlp_and_a_router(shape: Shape, experts: int, k: int) -> None:
    """Only the chosen experts keep anything: the memory grows with k, not with the number of experts (but for
    the router's probabilities, 4 bytes per expert and token)."""
    k = min(k, experts)
    moe = replace(shape, experts=experts, experts_per_token=k)
    more = replace(moe, experts=experts + 1)
    tokens = shape.sequence * shape.micro_batch
    assert total(more) - total(moe) == shape.layers * 4 * tokens
    if k < experts:
        assert total(replace(moe, experts_per_token=k + 1)) > total(moe)


@given(shapes, st.integers(1, 4), st.integers(64, 4096))
def test_a_decoder_adds_layers_and_cross_attention(shape: Shape, decoder: int, source: int) -> None:
    both = replace(shape, decoder_layers=decoder, encoder_sequence=source)
    # More than its encoder alone (the same layers at s_enc) plus the decoder's self-attention and MLP.
    alone = replace(shape, sequence=source)
    assert total(both) > total(alone) - estimate(alone)["logits"]
    assert total(replace(both, encoder_sequence=source + 64)) > total(both)
