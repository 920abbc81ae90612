"""The engine snapshot's file format: zero pages left out, everything else given back exactly."""

from __future__ import annotations

import gzip
import json
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sitebuild.content_names import engine_build_dir

from ..conftest import ROOT


@pytest.fixture(scope="module")
def report(site_dir: Path) -> dict[str, Any]:
    node = shutil.which("node")
    assert node, "Node.js is needed for these tests"
    done = subprocess.run(
        [node, str(ROOT / "tests" / "node" / "snapshot_file_check.mjs"),
         str(engine_build_dir(site_dir) / "snapshot.csn1.gz")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_random_memories_come_back_whatever_the_chunks(report: dict[str, Any]) -> None:
    assert report["failures"] == []
    assert report["roundtrips"] == 300


def test_damaged_files_are_refused(report: dict[str, Any]) -> None:
    assert report["refused"] >= 3 * 300


def test_the_shipped_snapshot_unpacks_to_its_memory(report: dict[str, Any]) -> None:
    assert report["real"]["same"] is True
    assert report["real"]["size"] > 16 * 2**20  # Pyodide's whole memory, not a part of it


def test_the_shipped_snapshot_leaves_out_its_zero_pages(site_dir: Path) -> None:
    """Read with an independent decoder: runs in order, inside the memory, and no zero page stored."""
    packed = gzip.decompress((engine_build_dir(site_dir) / "snapshot.csn1.gz").read_bytes())
    magic, size, count = struct.unpack_from("<4sII", packed)
    assert magic == b"CSN1"
    runs = [struct.unpack_from("<II", packed, 12 + 8 * i) for i in range(count)]
    data = memoryview(packed)[12 + 8 * count:]
    assert len(data) == sum(length for _, length in runs) < size * 0.7
    end = at = 0
    for offset, length in runs:
        assert offset >= end and offset % 4096 == 0 and offset + length <= size
        for page in range(0, length, 4096):
            assert any(data[at + page:at + min(page + 4096, length)])
        end, at = offset + length, at + length
