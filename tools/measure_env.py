"""The environment of the measurement scripts: ``.venv-measure/`` with PyTorch (CPU) and what else they need.

The scripts are not part of scripts/test. When their imports fail, ``bootstrap`` makes the environment with
Python 3.11 (the CPU wheel of PyTorch in /opt/wheels is cp311; PyPI's ``torch`` otherwise), installs the
pinned packages a script asks for, and runs the script again there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What the Transformers-based measurements pin (measure_transformers, measure_step, peft_check).
TRANSFORMERS_PINS = ("transformers==4.57.1", "peft==0.17.1")
VENV = ROOT / ".venv-measure"
WHEELS = Path("/opt/wheels")


def bootstrap(script: str, packages: tuple[str, ...] = ()) -> None:
    """Re-run ``script`` in .venv-measure, making it first if needed; never returns."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():  # already there (the interpreters may be one binary)
        sys.exit("A package is missing in .venv-measure: delete that folder and run again.")
    if not python.exists():
        base = next((c for c in ("python3.11", "python3") if _runs(c)), None)
        if base is None:
            sys.exit("Python 3.11 is needed to make .venv-measure (the CPU build of PyTorch in /opt/wheels is cp311).")
        print(f"making {VENV.name} with {base} and PyTorch (CPU)", file=sys.stderr)
        subprocess.run([base, "-m", "venv", str(VENV)], check=True)
        wheels = sorted(WHEELS.glob("torch-*.whl")) if WHEELS.is_dir() else []
        target = [str(wheels[-1])] if wheels else ["torch"]
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", *target], check=False)
        if done.returncode:
            sys.exit("Could not install PyTorch. Install a CPU build of torch (pip install torch) into .venv-measure.")
    if packages:
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", *packages], check=False)
        if done.returncode:
            sys.exit(f"Could not install {' '.join(packages)} into .venv-measure.")
    os.execv(str(python), [str(python), script, *sys.argv[1:]])


def _runs(command: str) -> bool:
    try:
        return subprocess.run([command, "-c", "import venv"], capture_output=True, check=False).returncode == 0
    except OSError:
        return False
