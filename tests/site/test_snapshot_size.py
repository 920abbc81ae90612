"""The engine snapshot stays small: every visit downloads it, inflates it and copies it into the runtime's memory
before the engine can answer (issue 26).

Pyodide alone, with nothing imported, makes a snapshot of 30.0 MiB of memory, 14.3 MiB of it not zero (measured in
Node with the pinned Pyodide, 2026-12-04). Answering the warm-up's requests while keeping them all (as the build did until
2026-12-04) grew the memory to 36.0 MiB and its non-zero pages to 19.8 MiB; one at a time, with nothing kept,
it stays at 30.0 and 16.5 MiB. Zeroing the heap's free blocks before the snapshot (sitebuild/make_snapshot.mjs,
2026-12-06) brought the non-zero pages to 14.8 MiB, 0.5 MB less to download. Making it with Python optimised
(PYTHONOPTIMIZE=2: no docstrings, no asserts, 2026-12-07) brought them to 14.1 MiB, and the download from 6.2 MB to
5.8 MB: the budget below fails if either stops.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

from sitebuild.content_names import engine_build_dir
from sitebuild.engine import SNAPSHOT_FILE

from ..conftest import ROOT

MIB = 1 << 20
MEMORY_BUDGET = 32 * MIB
NONZERO_BUDGET = 14.5 * MIB


def test_the_snapshot_memory_stays_within_its_budget(site_dir: Path) -> None:
    packed = gzip.decompress((engine_build_dir(site_dir) / SNAPSHOT_FILE).read_bytes())
    magic, memory, runs = struct.unpack_from("<III", packed)
    assert magic == 0x314E5343  # "CSN1"
    data = len(packed) - 12 - 8 * runs  # the non-zero pages
    assert memory <= MEMORY_BUDGET, f"snapshot memory {memory / MIB:.1f} MiB"
    assert data <= NONZERO_BUDGET, f"non-zero pages {data / MIB:.1f} MiB"


def test_the_package_means_the_same_without_docstrings_and_asserts() -> None:
    """The snapshot's Python runs with PYTHONOPTIMIZE=2, which drops every assert and docstring: the calculator package
    must use neither (an assert that checked input would vanish in the browser, a docstring read would be None)."""
    import ast

    found = []
    for path in sorted((ROOT / "calculator").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Assert):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: assert")
            elif isinstance(node, ast.Attribute) and node.attr == "__doc__":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: __doc__")
            elif isinstance(node, ast.Name) and node.id in {"__debug__", "getdoc"}:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.id}")
    assert found == []


def test_the_same_sources_make_the_same_snapshot(site_dir: Path, tmp_path: Path) -> None:
    """Made again from the shipped runtime, wheel and lock file, the snapshot is the shipped one, byte for byte: a
    rebuild keeps the engine's content name, and returning readers their cached engine (sitebuild/make_snapshot.mjs
    fixes Python's hash seed and makes the clocks and the entropy it hands Python deterministic while it runs)."""
    import shutil
    import subprocess

    from sitebuild.engine import LOCK_FILE, engine_path

    node = shutil.which("node")
    assert node, "Node.js is needed (scripts/setup installs it)"
    build = engine_build_dir(site_dir)
    for file in [*(site_dir / engine_path()).glob("pyodide*"), site_dir / engine_path() / "python_stdlib.zip",
                 build / LOCK_FILE, build / "pyodide.asm.mjs", *build.glob("*.whl")]:
        shutil.copy(file, tmp_path / file.name)
    subprocess.run([node, str(ROOT / "sitebuild" / "make_snapshot.mjs"), str(tmp_path), LOCK_FILE, SNAPSHOT_FILE],
                   check=True, capture_output=True)
    assert (tmp_path / SNAPSHOT_FILE).read_bytes() == (build / SNAPSHOT_FILE).read_bytes()
