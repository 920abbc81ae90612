"""The update notice's "Ricarica" (docs/assets/javascripts/offline.mjs) reloads the page once the new service worker
has taken over, once only, and after offline.mjs's TAKEOVER_MS even if it never does: Chromium lets a waiting worker
take over only when the old one has no request in flight, and one CI run saw it wait 120 s with no reload at all."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sitebuild.update_notice import NOTICE, RELOAD, TEMPLATE_ID, notice_template

from ..conftest import ROOT


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    node = shutil.which("node")
    assert node, "Node.js is needed for these tests"
    done = subprocess.run([node, str(ROOT / "tests" / "node" / "offline_check.mjs")],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("scenario", ["controllerChange", "activated", "bothSignals"])
def test_the_page_reloads_once_when_the_new_worker_takes_over(report: dict[str, Any], scenario: str) -> None:
    outcome = report[scenario]
    assert outcome["posted"] == [{"type": "skip-waiting"}]
    assert outcome["reloads"] == 1 and outcome["atOnce"] == 0
    assert outcome["reloadedAt"] < 40  # at the signal (5 ms in), not at the 60 ms wait


def test_a_worker_already_in_charge_reloads_at_once(report: dict[str, Any]) -> None:
    outcome = report["alreadyActive"]
    assert (outcome["reloads"], outcome["atOnce"], outcome["posted"]) == (1, 1, [])  # within the call, no message


def test_a_worker_that_never_takes_over_still_reloads_after_the_wait(report: dict[str, Any]) -> None:
    outcome = report["neverTakesOver"]
    assert outcome["posted"] == [{"type": "skip-waiting"}]
    assert outcome["reloads"] == 1
    assert 50 <= outcome["reloadedAt"] < 290
    assert 3000 <= report["takeoverMs"] <= 15000  # long enough for a normal takeover (1-3 s), short enough to be felt


def test_every_page_carries_the_notice_words(site_dir: Path) -> None:
    """The notice can come on any page, the 404 page included: each has its template once, before ``</body>``."""
    pages = sorted(site_dir.rglob("*.html"))
    assert site_dir / "404.html" in pages and site_dir / "index.html" in pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert text.count(f'id="{TEMPLATE_ID}"') == 1, page
        assert notice_template() + "</body>" in text, page
    assert NOTICE in notice_template() and f">{RELOAD}</button>" in notice_template()
