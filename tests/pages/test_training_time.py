"""The time and cost page: properties of its answers, its links, and its presets."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from calculator import CALCULATORS
from calculator.form.numbers import format_exact_field
from calculator.llm.gpus import GPUS

from ..support.outputs import evaluation, outputs

TIME = "tempo-di-addestramento"
gpus = st.integers(min_value=1, max_value=65_536)
prices = st.decimals(min_value=Decimal("0.01"), max_value=Decimal(100), places=2)
tokens = st.decimals(min_value=Decimal("0.001"), max_value=Decimal(100_000), places=3)
mfus = st.decimals(min_value=Decimal("0.1"), max_value=Decimal(100), places=1)


def number(value: object) -> Decimal:
    assert isinstance(value, Decimal)
    return value


@given(gpus, prices, tokens, mfus)
def test_cost_is_gpu_hours_times_price(g: int, price: Decimal, billions: Decimal, mfu: Decimal) -> None:
    out = outputs(TIME, gpus=str(g), price_per_gpu_hour=format_exact_field(price),
                  tokens_billion=format_exact_field(billions), mfu_percent=format_exact_field(mfu))
    assert abs(number(out["cost_eur"]) - number(out["gpu_hours"]) * price) <= number(out["cost_eur"]) * Decimal("1e-20")


@given(gpus, tokens)
def test_time_scales_as_one_over_gpus_and_linearly_in_tokens(g: int, billions: Decimal) -> None:
    one = number(outputs(TIME, gpus="1", tokens_billion=format_exact_field(billions))["time_hours"])
    many = number(outputs(TIME, gpus=str(g), tokens_billion=format_exact_field(billions))["time_hours"])
    twice = number(outputs(TIME, gpus=str(g), tokens_billion=format_exact_field(2 * billions))["time_hours"])
    assert abs(many * g - one) <= one * Decimal("1e-20")
    assert abs(twice - 2 * many) <= twice * Decimal("1e-20")


@given(mfus)
def test_mfu_and_measured_tokens_per_second_invert_each_other(mfu: Decimal) -> None:
    forward = outputs(TIME, mfu_percent=format_exact_field(mfu))
    back = outputs(TIME, mfu_percent="", measured_tokens_per_s=format_exact_field(number(forward["tokens_per_second"])))
    assert abs(number(back["mfu_result"]) - mfu) <= Decimal("0.000001")  # the field keeps six decimals


def test_a_deadline_gets_the_fewest_gpus_that_meet_it() -> None:
    needed = outputs(TIME, question="scadenza", deadline_days="2")
    assert number(needed["gpus_needed"]) == 12 and number(needed["time_days"]) <= 2
    fewer = outputs(TIME, gpus="11")
    assert number(fewer["time_days"]) > 2


def test_a_frozen_base_saves_a_third_of_the_compute_not_95_percent() -> None:
    full = outputs(TIME, attention_flops="")
    lora = outputs(TIME, attention_flops="", method="lora", adapter_million="0")
    assert number(lora["flops_per_token_g"]) / number(full["flops_per_token_g"]) == Decimal(4) / 6


def test_links_carry_the_model_and_the_gpus_both_ways() -> None:
    ours = evaluation(TIME, gpus="16")
    assert "gpus=16" in ours.links["vram"] and "parameters_billion=8%2C03" in ours.links["vram"]
    assert "target_effective_batch=256" in ours.links["accumulo"] and "mode=obiettivo" in ours.links["accumulo"]
    from_vram = evaluation("vram-addestramento-llm", gpus="8", parameters_billion="70")
    assert "parameters_billion=70" in from_vram.links["tempo"] and "gpus=8" in from_vram.links["tempo"]
    from_accumulation = evaluation("accumulo-del-gradiente", data_parallel_gpus="4")
    assert "effective_batch=128" in from_accumulation.links["tempo"] and "gpus=4" in from_accumulation.links["tempo"]
    assert "sequence_length" not in from_accumulation.links["tempo"]  # left empty there: the time page keeps its own
    with_sequence = evaluation("accumulo-del-gradiente", sequence_length="2048")
    assert "sequence_length=2048" in with_sequence.links["tempo"]


def test_gpu_buttons_fill_the_datasheets_dense_peaks() -> None:
    presets = {p.id: dict(p.values) for p in CALCULATORS[TIME].presets}
    assert presets["h100-80-bf16"] == {"peak_tflops": "989", "gpu_power_w": "700"}
    assert presets["h100-80-fp8"]["peak_tflops"] == "1.979" or presets["h100-80-fp8"]["peak_tflops"] == "1979"
    assert all(f"{gpu.id}-bf16" in presets for gpu in GPUS)
    assert "a100-80-fp8" not in presets  # no fp8 on Ampere


def test_sliding_windows_shrink_the_attention_of_their_layers_only() -> None:
    """Gemma 3 27B at 32768 tokens: 52 of its 62 layers see 1024 tokens; the button fills the window, and the FLOPs
    per token are those of the workload with the window (and fewer than with every layer global)."""
    from calculator.llm.catalogue import model
    from calculator.llm.training_compute import Workload
    from calculator.pages.presets import field_texts

    gemma = model("gemma-3-27b")
    texts = {k: v for k, v in field_texts(gemma).items() if k in {f.id for f in CALCULATORS[TIME].fields}}
    assert (texts["sliding_window"], texts["sliding_layers"]) == ("1024", "52")
    windowed = outputs(TIME, texts, sequence_length="32768")
    everywhere = outputs(TIME, texts, sequence_length="32768", sliding_layers="0")
    assert number(windowed["flops_per_token_g"]) < number(everywhere["flops_per_token_g"])
    width = gemma.heads * gemma.dim
    saved = Workload(1, layers=62, attention_width=width, context=32768).attention_flops - Workload(
        1, layers=62, attention_width=width, context=32768, window=1024, window_layers=52).attention_flops
    assert saved == 12 * width * 52 * (32768 - 1024)
    difference = (number(everywhere["flops_per_token_g"]) - number(windowed["flops_per_token_g"])) * 10**9
    assert abs(difference - saved) <= Decimal("0.01") * saved  # the figures are rounded for display


def test_a_window_needs_its_size_and_at_most_every_layer() -> None:
    assert "al più gli strati del modello (32)" in evaluation(TIME, sliding_layers="33", sliding_window="128").errors[
        "sliding_layers"]
    assert "indica quanti token" in evaluation(TIME, sliding_layers="4", sliding_window="0").errors["sliding_window"]


def test_latent_attention_counts_the_narrower_values() -> None:
    """DeepSeek-V3's button fills queries and keys 192 wide and values 128: the attention term is 6·L·H·(Q + V)·T,
    not PaLM's 12·L·H·Q·T; setting the values' width to 0 (or to 192) gives PaLM's."""
    texts = {p.id: dict(p.values) for p in CALCULATORS[TIME].presets}["deepseek-v3"]
    assert (texts["attention_heads"], texts["head_dim"], texts["v_head_dim"], texts["layers"]) == ("128", "192",
                                                                                                   "128", "61")
    latent = number(outputs(TIME, texts, sequence_length="4096")["flops_per_token_g"])
    palm = number(outputs(TIME, texts, sequence_length="4096", v_head_dim="0")["flops_per_token_g"])
    assert palm == number(outputs(TIME, texts, sequence_length="4096", v_head_dim="192")["flops_per_token_g"])
    saved = 6 * 128 * (192 - 128) * 61 * 4096
    assert abs((palm - latent) * 10**9 - saved) <= Decimal("0.01") * saved  # the figures are rounded for display
