"""Training compute: FLOPs per token by method, utilisation both ways, time and GPUs."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculator.llm.training_compute import Workload, gpus_for, tokens_per_second, training_seconds, utilisation

params = st.integers(min_value=1_000_000, max_value=2 * 10**12)
fractions = st.decimals(min_value=Decimal("0.01"), max_value=Decimal(1), places=4)
peaks = st.decimals(min_value=Decimal(10**12), max_value=Decimal(10**16), places=0)


@pytest.mark.parametrize(("workload", "model", "hardware"), [
    pytest.param(Workload(10**9, attention=False), 6 * 10**9, 6 * 10**9, id="dense-6N"),
    pytest.param(Workload(10**9, attention=False, recompute=True), 6 * 10**9, 8 * 10**9, id="recompute-8N"),
    # PaLM appendix B: 6N + 12·L·H·Q·T; 32 layers of 32 heads of 128, 4096 tokens of context.
    pytest.param(Workload(10**9, 32, 4096, 4096), 6 * 10**9 + 12 * 32 * 4096 * 4096,
                 6 * 10**9 + 12 * 32 * 4096 * 4096, id="palm-attention"),
    pytest.param(Workload(10**9, 32, 4096, 4096, recompute=True), 6 * 10**9 + 12 * 32 * 4096 * 4096,
                 8 * 10**9 + 16 * 32 * 4096 * 4096, id="palm-attention-recompute"),
    # A frozen base: forward 2N and the activations' gradients 2N, no weight gradients; adapters 6 each.
    pytest.param(Workload(10**9, attention=False, frozen_base=True, adapters=10**7), 4 * 10**9 + 6 * 10**7,
                 4 * 10**9 + 6 * 10**7, id="lora-4N"),
])
def test_flops_per_token(workload: Workload, model: int, hardware: int) -> None:
    assert (workload.model_flops_per_token(), workload.hardware_flops_per_token()) == (model, hardware)


@given(fractions, peaks, params)
def test_utilisation_and_throughput_invert_each_other(mfu: Decimal, peak: Decimal, n: int) -> None:
    fpt = Workload(n, attention=False).model_flops_per_token()
    assert abs(utilisation(tokens_per_second(mfu, peak, fpt), peak, fpt) - mfu) <= mfu * Decimal("1e-20")


@given(st.integers(min_value=1, max_value=100_000), fractions, peaks)
def test_time_scales_as_one_over_gpus(gpus: int, mfu: Decimal, peak: Decimal) -> None:
    total = Decimal(6 * 7 * 10**9 * 10**12)
    one = training_seconds(total, 1, peak, mfu)
    assert abs(training_seconds(total, gpus, peak, mfu) * gpus - one) <= one * Decimal("1e-20")
    assert abs(training_seconds(2 * total, gpus, peak, mfu) - 2 * training_seconds(total, gpus, peak, mfu)) \
        <= one * Decimal("1e-20")


@given(st.decimals(min_value=Decimal(3600), max_value=Decimal(10**8), places=0), fractions, peaks)
def test_gpus_for_a_deadline_are_the_fewest_that_make_it(seconds: Decimal, mfu: Decimal, peak: Decimal) -> None:
    total = Decimal(6 * 8 * 10**9 * 10**12)
    gpus = gpus_for(total, seconds, peak, mfu)
    assert training_seconds(total, gpus, peak, mfu) <= seconds
    assert gpus == 1 or training_seconds(total, gpus - 1, peak, mfu) > seconds


@pytest.mark.parametrize(("window", "window_layers", "covered"), [
    (0, 12, 24 * 8192),  # no window: every layer covers the whole context
    (128, 12, 12 * 8192 + 12 * 128),  # gpt-oss: one layer in two sees 128 tokens
    (16384, 12, 24 * 8192),  # a window longer than the context changes nothing
    (128, 99, 24 * 128),  # more windowed layers than layers: all of them, not more
], ids=["senza", "gpt-oss", "finestra-lunga", "troppi-strati"])
def test_a_sliding_window_bounds_its_layers_attention(window: int, window_layers: int, covered: int) -> None:
    work = Workload(parameters=10**9, layers=24, attention_width=64 * 64, context=8192, window=window,
                    window_layers=window_layers)
    assert work.attention_flops == 12 * 64 * 64 * covered
    assert Workload(parameters=10**9, layers=24, attention_width=4096, context=8192, window=window,
                    window_layers=window_layers, attention=False).attention_flops == 0


def test_latent_attention_counts_values_at_their_own_width() -> None:
    # DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json): 128 heads, queries and keys 128 + 64 wide, values 128;
    # per layer and token of context, QKᵀ costs 2·128·192 forward and the scores times V 2·128·128.
    latent = Workload(parameters=10**9, layers=61, attention_width=128 * 192, context=4096, value_width=128 * 128)
    assert latent.attention_flops == 3 * (2 * 128 * 192 + 2 * 128 * 128) * 61 * 4096
    assert latent.hardware_flops_per_token() == latent.model_flops_per_token()
    recomputed = Workload(parameters=10**9, layers=61, attention_width=128 * 192, context=4096, value_width=128 * 128,
                          recompute=True)
    assert recomputed.hardware_flops_per_token() - recomputed.model_flops_per_token() == (
        2 * 10**9 + (2 * 128 * 192 + 2 * 128 * 128) * 61 * 4096)
    same = Workload(parameters=10**9, layers=61, attention_width=128 * 192, context=4096, value_width=128 * 192)
    assert same.attention_flops == Workload(parameters=10**9, layers=61, attention_width=128 * 192,
                                            context=4096).attention_flops
