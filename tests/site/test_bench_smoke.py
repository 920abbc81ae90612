"""A quick run of the benchmark, so that it keeps working (its numbers are not judged here): one page and the
reference, once (the plain server too; the three visits of a returning reader for the page only), one more cold visit
of each, a few edits and navigations, home → calculator once, no throttled visits (the throttle is tested in
test_local_server)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser


def test_benchmark_smoke_run(site_dir: Path, browser) -> None:  # type: ignore[no-untyped-def]
    from tools import bench

    report = bench.run(runs=1, edits=5, pages=["accumulo-del-gradiente", "riferimento"], built=site_dir, settle_ms=0,
                       browser=browser, navigations=3, throttled_runs=0, returning_visits=["accumulo-del-gradiente"],
                       returning_reading_ms=0, cold_runs=1)
    ours = report["loopback"]["accumulo-del-gradiente"]
    assert ours["ready_cold_ms"]["median"] > 0 and ours["ready_warm_ms"]["median"] > 0
    assert ours["first_paint_with_results_ms"]["median"] > 0
    assert ours["input_to_result_ms"]["edits"] == 5
    assert ours["first_visit_bytes"]["raw"] > ours["first_visit_bytes"]["gzip"] > 1_000_000
    assert ours["ratio_to_reference_cold"] > 0
    # The extra cold visit counts in the cold figures and the ratio, which gets its interval.
    assert len(ours["cold_starts_ms"]) == 2 and len(report["plain_server"]["riferimento"]["cold_starts_ms"]) == 2
    low, high = ours["ratio_interval_90"]
    assert 0 < low <= high
    assert "| accumulo-del-gradiente | 2 |" in bench.ratio_table(report)
    assert report["throttled_40mbit_20ms"] == {}
    assert "| accumulo-del-gradiente |" in bench.table(report)
    # The long tasks are attributed (our scripts or not), and every target gets a verdict.
    assert ours["long_tasks_during_load"]["our_longest_script_ms"] >= 0
    assert ours["long_tasks_during_load"]["caused_by_our_scripts"] >= 0
    # Moving between the calculators: instant (one document, one engine), timed.
    moving = report["navigation"]
    assert moving["navigations"] == 3 and moving["instant"] is True and moving["engine_workers_after"] == 1
    assert moving["click_to_ready_ms"]["p95"] >= moving["click_to_ready_ms"]["p50"] > 0
    assert "| 3 navigations |" in bench.navigation_table(moving)
    # A returning reader's visits (a persistent profile), and the same site from a plain server.
    back = ours["ready_returning_ms"]
    assert back["first"]["median"] > 0 and back["second"]["median"] > 0 and back["third"]["median"] > 0
    assert report["plain_server"]["accumulo-del-gradiente"]["ratio_to_reference_cold"] > 0
    assert "ready_returning_ms" not in report["loopback"]["riferimento"]  # the reference's three boots spared
    home = report["home_to_calculator"]
    assert home["runs"] == 1 and home["click_to_ready_ms"]["p50"] > 0 and home["ready_after_content_ms"]["max"] >= 0
    assert "| 1 visits," in bench.home_table(home)
    assert list(report["targets"]) == [*(name for name, _, _ in bench.TARGETS), bench.PLAIN_TARGET,
                                       bench.NAVIGATION_TARGET, bench.HOME_TARGET]
    assert all(isinstance(verdict["met"], bool) for verdict in report["targets"].values())
    # How quiet and how fast the machine was: the reference page is the yardstick.
    found = report["machine"]
    assert found["reference_ready_cold_ms"] == round(report["loopback"]["riferimento"]["ready_cold_ms"]["median"])
    assert found["load_1min_before"] >= 0 and found["load_1min_after"] >= 0
    assert isinstance(found["normal_speed"], bool)
