"""Gzip copies of the site's text and WebAssembly files, for servers that send precompressed files.

``name.ext.gz`` sits beside ``name.ext``; the local server (tools/local_server.py) sends it with
``Content-Encoding: gzip`` to browsers that accept it. Compressed deterministically (no timestamp).
"""

from __future__ import annotations

import gzip
from pathlib import Path

SUFFIXES = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".wasm", ".txt", ".map"}
MINIMUM_SIZE = 1024


def is_precompressed_copy(file: Path) -> bool:
    """Whether ``file`` is one of these copies (``name.ext.gz`` beside ``name.ext``), not a file of its own."""
    return file.suffix == ".gz" and file.with_suffix("").is_file()


def precompress(site: Path) -> int:
    """Write the .gz copies; returns how many."""
    count = 0
    for file in site.rglob("*"):
        if file.is_file() and file.suffix in SUFFIXES and file.stat().st_size >= MINIMUM_SIZE:
            data = gzip.compress(file.read_bytes(), compresslevel=9, mtime=0)
            if len(data) < file.stat().st_size:
                file.with_name(file.name + ".gz").write_bytes(data)
                count += 1
    return count
