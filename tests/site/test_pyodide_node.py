"""The golden vectors again, inside Pyodide in Node, through the wheel and lock the site ships."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from calculator import respond
from sitebuild.content_names import engine_build_dir
from sitebuild.engine import engine_path

from ..conftest import ROOT
from ..support.golden import ERRORS, RESULTS

REQUESTS: list[dict[str, Any]] = [req for req, _ in RESULTS] + [req for req, _, _ in ERRORS] + [
    {"calculator": "nessuno", "values": {}},
]


@pytest.fixture(scope="module", params=["wheel", "snapshot"])
def pyodide_answers(
    request: pytest.FixtureRequest, site_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """Answers from Pyodide booted normally with the wheel, or restored from the snapshot."""
    node = shutil.which("node")
    assert node, "Node.js is needed for these tests"
    requests = tmp_path_factory.mktemp("pyodide") / "requests.json"
    requests.write_text(json.dumps(REQUESTS))
    mode = ["--snapshot"] if request.param == "snapshot" else []
    done = subprocess.run(
        [node, str(ROOT / "tests" / "node" / "run_in_pyodide.mjs"),
         str(site_dir / engine_path()), str(engine_build_dir(site_dir)), str(requests), *mode],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    answers: dict[str, Any] = json.loads(done.stdout)
    return answers


def test_runs_on_pyodide_python(pyodide_answers: dict[str, Any], site_dir: Path) -> None:
    assert pyodide_answers["python"].startswith("3.14.")
    lock = json.loads((engine_build_dir(site_dir) / "pyodide-lock.json").read_text())
    assert pyodide_answers["wheel"] in {"", lock["packages"]["calculator"]["sha256"]}


@pytest.mark.parametrize("index", range(len(REQUESTS)))
def test_same_answer_as_native(pyodide_answers: dict[str, Any], index: int) -> None:
    assert pyodide_answers["responses"][index] == respond(REQUESTS[index])


def test_the_snapshot_runs_optimised(pyodide_answers: dict[str, Any]) -> None:
    """The snapshot is made with PYTHONOPTIMIZE=2 (sitebuild/make_snapshot.mjs) and keeps it; a normal boot does not.
    The answers above are the native ones all the same (the package neither asserts nor reads a docstring)."""
    restored = "importWithoutLibrary" in pyodide_answers
    assert pyodide_answers["optimize"] == (2 if restored else 0)


def test_golden_results_in_pyodide(pyodide_answers: dict[str, Any]) -> None:
    for (_, expected), answer in zip(RESULTS, pyodide_answers["responses"], strict=False):
        assert {key: answer["results"][key] for key in expected} == expected


def test_snapshot_answers_without_the_standard_library_until_it_comes(pyodide_answers: dict[str, Any]) -> None:
    """Restored with an empty standard library, as in the browser, the snapshot answered every request above;
    a module it had not imported fails until the real library is written in, then imports."""
    if "importWithoutLibrary" not in pyodide_answers:  # normal boot: the library is there from the start
        assert "importWithLibrary" not in pyodide_answers
        return
    assert "Error" in pyodide_answers["importWithoutLibrary"]
    assert pyodide_answers["importWithLibrary"] == 0
