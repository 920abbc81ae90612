"""Build the static site: engine files, MkDocs (strict), then the offline and host files.

Usage: python -m sitebuild.build [SITE_DIR]   (default: site/)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .content_security import add_meta_policy, policy
from .engine import ROOT
from .host_headers import write_host_headers
from .precompress import precompress
from .prepare_engine import prepare_engine
from .service_worker import write_service_worker
from .theme_fixes import apply_theme_fixes


def build(site: Path, root: Path = ROOT) -> None:
    """Build the project at ``root`` into ``site``; raises CalledProcessError with MkDocs' output on failure."""
    prepare_engine(root)
    # The project's own packages come first: a copy of the project (tests) builds its own calculators.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(root)}
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=root, env=env, check=True, capture_output=True, text=True,
    )
    apply_theme_fixes(site)
    csp = policy(site)
    add_meta_policy(site)
    write_service_worker(site)
    write_host_headers(site, csp)
    precompress(site)


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "site").resolve()
    try:
        build(target)
    except subprocess.CalledProcessError as error:
        sys.stderr.write(error.stdout + error.stderr)
        sys.exit("build failed")
    print(f"site built in {target}")
