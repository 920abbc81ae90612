"""Put the browser engine into docs/: Pyodide's files, our wheel and its lock file.

Output, under ``docs/assets/engine/<pyodide version>/``:

* ``pyodide.mjs``, ``pyodide.asm.wasm``, ``python_stdlib.zip``, copied from the pinned npm package;
* ``pyodide.asm.mjs``: the package's loader, trimmed for a faster start (``sitebuild/trim_loader.py``);
* ``calculator-<version>-py3-none-any.whl``, built with ``python -m build``
  (reproducibly: SOURCE_DATE_EPOCH is fixed);
* ``pyodide-lock.json``: the shipped lock's ``info`` block plus our wheel,
  added by pyodide-build's ``pyodide lockfile add-wheels``, then trimmed to our
  package so that the browser can never ask for a wheel we do not serve;
* ``python_stdlib.empty.zip``: an empty archive, the standard library a restored
  snapshot starts with (all it needs is already imported); the worker installs
  the real one once the engine is ready, so that a first visit downloads 2.5 MB
  less before it can compute;
* ``snapshot.csn1.gz``: a Pyodide memory snapshot with the package imported,
  without its zero pages (format: ``docs/assets/javascripts/snapshot-file.mjs``),
  made in Node by ``sitebuild/make_snapshot.mjs`` (the worker restores it in a
  fraction of a second, and boots normally if it cannot); reproducibly too, so
  that a rebuild from the same sources keeps the engine's content name.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .engine import (
    EMPTY_STDLIB_FILE,
    LOADER_FILE,
    LOCK_FILE,
    OUR_PACKAGES,
    PYODIDE_PACKAGE,
    ROOT,
    RUNTIME_FILES,
    SNAPSHOT_FILE,
    engine_dir,
    pyodide_version,
)
from .trim_loader import LoaderChangedError, trim_loader

BIN = Path(sys.executable).parent
MAKE_SNAPSHOT = Path(__file__).with_name("make_snapshot.mjs")


def run(command: list[str], env: dict[str, str] | None = None) -> None:
    """Run a tool quietly; show its output only if it fails."""
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.stderr.write(done.stdout + done.stderr)
        sys.exit(f"failed: {' '.join(command)}")


def build_wheel(outdir: Path, root: Path = ROOT) -> Path:
    """Build the calculator wheel; same sources give the same bytes."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "315532800"}
    run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(outdir), str(root)], env)
    shutil.rmtree(root / "build", ignore_errors=True)
    (wheel,) = outdir.glob("calculator-*.whl")
    return wheel


def write_lock(wheel: Path, target: Path) -> None:
    """Register the wheel with pyodide-build, keeping only our packages."""
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / LOCK_FILE
        run([
            str(BIN / "pyodide"), "lockfile", "add-wheels",
            "--input", str(PYODIDE_PACKAGE / LOCK_FILE),
            "--output", str(full),
            "--base-path", str(wheel.parent),
            str(wheel),
        ])
        lock = json.loads(full.read_text())
    lock["packages"] = {name: entry for name, entry in lock["packages"].items() if name in OUR_PACKAGES}
    target.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")


def prepare_engine(root: Path = ROOT) -> Path:
    """Fill docs/assets/engine/<version>/ of the project at ``root`` (see the module docstring)."""
    version = pyodide_version()
    shipped = json.loads((PYODIDE_PACKAGE / "package.json").read_text())["version"]
    if shipped != version:
        raise SystemExit(f"node_modules has pyodide {shipped}, expected {version}: run npm ci")
    target = engine_dir(root / "docs")
    if target.parent.exists():
        shutil.rmtree(target.parent)
    target.mkdir(parents=True)
    for name in RUNTIME_FILES:
        shutil.copy2(PYODIDE_PACKAGE / name, target / name)
    try:
        (target / LOADER_FILE).write_bytes(trim_loader((PYODIDE_PACKAGE / LOADER_FILE).read_bytes()))
    except LoaderChangedError as error:
        raise SystemExit(str(error)) from None
    with zipfile.ZipFile(target / EMPTY_STDLIB_FILE, "w"):
        pass
    with tempfile.TemporaryDirectory() as tmp:
        wheel = build_wheel(Path(tmp), root)
        shutil.copy2(wheel, target / wheel.name)
    write_lock(target / wheel.name, target / LOCK_FILE)
    make_snapshot(target)
    return target


STAMP = ".stamp"  # a dotfile: MkDocs and Zensical leave it out of the site


def engine_sources(root: Path = ROOT) -> list[Path]:
    """Every file the engine is made from: the package's Python, its packaging, and the snapshot's makers."""
    here = Path(__file__).resolve().parent
    return [*sorted((root / "calculator").rglob("*.py")), root / "pyproject.toml", root / "package-lock.json",
            here / "prepare_engine.py", here / "trim_loader.py", MAKE_SNAPSHOT,
            root / "docs" / "assets" / "javascripts" / "snapshot-file.mjs"]


def sources_stamp(root: Path = ROOT) -> str:
    """A digest of ``engine_sources``: the engine is remade only when it changes."""
    digest = hashlib.sha256()
    for path in engine_sources(root):
        digest.update(path.relative_to(root).as_posix().encode() if path.is_relative_to(root) else path.name.encode())
        digest.update(b"\0" + (path.read_bytes() if path.is_file() else b"") + b"\0")
    return digest.hexdigest()


def ensure_engine(root: Path = ROOT) -> bool:
    """Prepare the engine unless it was made from these very sources; returns whether it was made now."""
    target = engine_dir(root / "docs")
    stamp = sources_stamp(root)
    if (target / STAMP).is_file() and (target / STAMP).read_text() == stamp:
        return False
    prepare_engine(root)
    (target / STAMP).write_text(stamp)
    return True


def make_snapshot(directory: Path) -> None:
    """A memory snapshot with the calculator imported, made in Node from the same runtime and wheel."""
    node = shutil.which("node")
    if not node:
        raise SystemExit("Node.js is needed to make the engine snapshot")
    run([node, str(MAKE_SNAPSHOT), str(directory), LOCK_FILE, SNAPSHOT_FILE])


if __name__ == "__main__":
    print(f"engine ready in {prepare_engine().relative_to(ROOT)}")
