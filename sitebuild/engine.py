"""The engine's constants, in one place: Pyodide's version (read from package.json), its files, and ours.

The version is written only in package.json and package-lock.json; everything else asks here.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYODIDE_PACKAGE = ROOT / "node_modules" / "pyodide"
# Pyodide's own files the site serves, copied from the npm package.
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
# Pyodide's loader, trimmed (sitebuild/trim_loader.py): one of the engine's own build files, beside the snapshot.
LOADER_FILE = "pyodide.asm.mjs"
LOCK_FILE = "pyodide-lock.json"
SNAPSHOT_FILE = "snapshot.csn1.gz"
EMPTY_STDLIB_FILE = "python_stdlib.empty.zip"
OUR_PACKAGES = frozenset({"calculator"})


@functools.cache
def pyodide_version() -> str:
    """The pinned Pyodide version: package.json's dependency, checked against package-lock.json."""
    wanted = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    locked = json.loads((ROOT / "package-lock.json").read_text())["packages"]["node_modules/pyodide"]["version"]
    if wanted != locked:
        raise SystemExit(f"package.json wants pyodide {wanted}, package-lock.json has {locked}: run npm install")
    return str(wanted)


def engine_path() -> str:
    """The engine's directory, relative to the site's root (versioned, so hosts may cache it for ever)."""
    return f"assets/engine/{pyodide_version()}"


def engine_dir(docs: Path = ROOT / "docs") -> Path:
    """Where the build puts the engine's files among the site's sources."""
    return docs / engine_path()
