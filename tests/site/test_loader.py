"""Pyodide's loader as the site ships it, trimmed (sitebuild/trim_loader.py): pinned, and the same runtime."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sitebuild.content_names import engine_build_dir
from sitebuild.engine import LOADER_FILE, PYODIDE_PACKAGE, engine_path
from sitebuild.trim_loader import CHECKED_SHA256, EDITS, LoaderChangedError, trim_loader

from ..conftest import ROOT

ORIGINAL = PYODIDE_PACKAGE / LOADER_FILE


def test_the_trim_is_checked_against_the_pinned_loader() -> None:
    """npm's Pyodide is the one the trim was checked against; a build with another stops until it is checked again."""
    import hashlib

    assert hashlib.sha256(ORIGINAL.read_bytes()).hexdigest() == CHECKED_SHA256


@pytest.mark.parametrize("change", [
    pytest.param(lambda text: text + b"\n", id="one byte more"),
    pytest.param(lambda text: text.replace(b"var GOT={};", b"var GOT = {};"), id="an edit's anchor moved"),
])
def test_another_loader_is_refused(change: Any) -> None:
    with pytest.raises(LoaderChangedError, match="checked against"):
        trim_loader(change(ORIGINAL.read_bytes()))


def test_each_edit_is_made_once() -> None:
    trimmed = trim_loader(ORIGINAL.read_bytes()).decode()
    for old, new in EDITS:
        assert trimmed.count(new) == 1
        assert old not in trimmed


def test_the_site_ships_the_trimmed_loader_with_its_build(site_dir: Path) -> None:
    build = engine_build_dir(site_dir)
    assert (build / LOADER_FILE).read_bytes() == trim_loader(ORIGINAL.read_bytes())
    assert not (site_dir / engine_path() / LOADER_FILE).exists()  # Pyodide's own would only be precached unused


@pytest.fixture(scope="module")
def restored_twice(site_dir: Path) -> dict[str, Any]:
    """The site's snapshot restored in Node with Pyodide's loader and with the trimmed one (loader_check.mjs)."""
    node = shutil.which("node")
    assert node, "Node.js is needed for these tests"
    done = subprocess.run(
        [node, str(ROOT / "tests" / "node" / "loader_check.mjs"), str(site_dir / engine_path()),
         str(engine_build_dir(site_dir)), str(ORIGINAL)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_every_function_keeps_its_table_slot(restored_twice: dict[str, Any]) -> None:
    """A function pointer in the restored memory is an index into this table: the same function at every index."""
    table = restored_twice["table"]
    assert table["original"] == table["trimmed"] > 10_000
    assert table["firstDifference"] == -1


def test_every_symbol_keeps_its_value(restored_twice: dict[str, Any]) -> None:
    assert restored_twice["symbols"] > 8_000
    assert restored_twice["differing"] == []


def test_the_start_makes_only_the_globals_it_imports(restored_twice: dict[str, Any]) -> None:
    """What the trim saves: Pyodide's loader makes a Global for every symbol; the trimmed one only those the
    runtime imports, the others when first read (above, every one of them was read, with the same value)."""
    made = restored_twice["globalsMade"]
    assert made["original"] == restored_twice["symbols"]
    assert made["trimmed"] < 500


def test_the_same_answer_through_either_loader(restored_twice: dict[str, Any]) -> None:
    original, trimmed = restored_twice["answers"]
    assert original["status"] == "ok"
    assert trimmed == original


def test_the_bootstrap_keeps_the_same_objects_without_parsing(restored_twice: dict[str, Any]) -> None:
    """Restoring, the trimmed loader gets by calls what Pyodide's gets by parsing four snippets: its internal dict
    with the same names bound to the same objects, importlib, sys, os, and ``__main__``'s dict as the page's globals."""
    original, trimmed = restored_twice["bootstrap"]
    assert original == [["__builtins__", "importlib", "__main__", "builtins"], *[True] * 8]
    assert trimmed == original
