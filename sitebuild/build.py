"""Build the static site: ``mkdocs build --strict``, whose plugin ``calcolatori`` does the rest.

The plugin (``sitebuild/mkdocs_plugin.py``) prepares the engine before the pages and
completes the site after them, so ``scripts/build``, ``mkdocs build`` and
``mkdocs gh-deploy`` give the same site.

Usage: python -m sitebuild.build [SITE_DIR]   (default: site/)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .engine import ROOT


def build(site: Path, root: Path = ROOT) -> None:
    """Build the project at ``root`` into ``site``; raises CalledProcessError with MkDocs' output on failure."""
    # The project's own packages come first: a copy of the project (tests) builds its own calculators.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(root)}
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=root, env=env, check=True, capture_output=True, text=True,
    )


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "site").resolve()
    try:
        build(target)
    except subprocess.CalledProcessError as error:
        sys.stderr.write(error.stdout + error.stderr)
        sys.exit("build failed")
    print(f"site built in {target}")
