"""The benchmark says whether its machine was fast enough to judge the targets: the reference page, unchanged
since the quiet runs, is the yardstick."""

from __future__ import annotations

import pytest

from tools.bench import FAST_REFERENCE_MS, NORMAL_REFERENCE_MS, machine, machine_line, ratio_interval

# (reference ready cold in ms, load average before, after, normal speed, faster than normal), from the runs in
# reports/measurements.md.
CASES = {
    "quiet run of 2026-12-05 09:18": (2880, 3.51, 1.87, True, False),
    "slowest quiet reference (2026-12-04)": (3324, 0.26, 0.20, True, False),
    "at the limit": (NORMAL_REFERENCE_MS, 0.5, 0.5, True, False),
    "fastest quiet day's edge": (FAST_REFERENCE_MS, 0.5, 0.5, True, False),
    "fast evening (2026-12-06 18:41)": (2286, 1.47, 1.4, True, True),
    "slow day, idle (2026-12-06)": (5091, 2.66, 2.10, False, False),
    "busy machine (helpers' test suites)": (18722, 11.9, 14.9, False, False),
}


@pytest.mark.parametrize(("reference", "before", "after", "normal", "fast"), CASES.values(), ids=CASES.keys())
def test_the_reference_page_judges_the_machine(
    reference: float, before: float, after: float, normal: bool, fast: bool,
) -> None:
    found = machine(reference, before, after)
    assert found["normal_speed"] is normal
    assert found["faster_than_normal"] is fast
    assert ("flatter the page" in machine_line(found)) is fast
    assert (found["reference_ready_cold_ms"], found["load_1min_before"], found["load_1min_after"]) == (
        round(reference), before, after)
    assert found["cores"] >= 1
    assert ("cannot be judged" in machine_line(found)) is not normal


# The ratio's 90 % bootstrap interval: (ours, reference, expected interval), computed by hand where the samples leave
# no choice, and bounds that any resampling must respect otherwise.
RATIO_CASES = {
    "every start alike": ([500.0] * 5, [2000.0] * 5, (0.25, 0.25)),
    "one sample each": ([480.0], [2400.0], (0.2, 0.2)),
}


@pytest.mark.parametrize(("ours", "reference", "expected"), RATIO_CASES.values(), ids=RATIO_CASES.keys())
def test_a_ratio_without_spread_has_no_interval(ours: list[float], reference: list[float],
                                                 expected: tuple[float, float]) -> None:
    assert tuple(ratio_interval(ours, reference)) == expected


def test_the_ratio_interval_holds_the_ratio_and_stays_within_the_extremes() -> None:
    ours, reference = [520.0, 540.0, 560.0, 600.0, 700.0], [2000.0, 2100.0, 2200.0, 2300.0, 2600.0]
    low, high = ratio_interval(ours, reference)
    assert min(ours) / max(reference) <= low < 560 / 2200 < high <= max(ours) / min(reference)
    assert ratio_interval(ours, reference) == [low, high]  # seeded: the same report gives the same interval
