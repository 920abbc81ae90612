"""Build the site with Zensical, Material for MkDocs' successor, and complete it like the MkDocs plugin does.

Zensical reads ``mkdocs.yml`` and runs the Markdown extension, but not MkDocs plugins:
this runs the plugin's two steps around it (the engine before, ``finish_site`` after).
It builds into the configuration's ``site_dir`` (``site/``).

Usage: python -m sitebuild.zensical_build [PROJECT_DIR]   (default: this project)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .engine import ROOT
from .postbuild import finish_site
from .prepare_engine import ensure_engine


def zensical_build(root: Path = ROOT) -> Path:
    """Build the project at ``root`` with Zensical into ``root/site``; returns that directory."""
    ensure_engine(root)
    site = root / "site"
    shutil.rmtree(site, ignore_errors=True)
    zensical = Path(sys.executable).with_name("zensical")
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run([str(zensical), "build", "--strict", "--clean", "-f", "mkdocs.yml"],
                   cwd=root, env=env, check=True, capture_output=True, text=True)
    finish_site(site)
    return site


if __name__ == "__main__":
    project = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT
    try:
        built = zensical_build(project)
    except subprocess.CalledProcessError as error:
        sys.stderr.write(error.stdout + error.stderr)
        sys.exit("build failed")
    print(f"site built with Zensical in {built}")
