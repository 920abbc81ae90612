"""Lighthouse scores of every page (Performance, Accessibility, Best Practices, SEO).

Builds nothing: serve the site first or let scripts/lighthouse do it. Prints a
Markdown table and writes reports/lighthouse.json. Not a CI gate.
Usage: python -m tools.lighthouse BASE_URL [desktop|mobile]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from calculator import CALCULATORS

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["", *(f"{calculator_id}/" for calculator_id in CALCULATORS)]
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
FLAGS = ("--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
         " --disable-component-update --disable-sync --disable-dev-shm-usage")


def audit(url: str, preset: str) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run(
            [str(ROOT / "node_modules" / ".bin" / "lighthouse"), url, "--quiet", "--output=json",
             f"--output-path={report}", f"--only-categories={','.join(CATEGORIES)}",
             "--chrome-path=/usr/bin/chromium", f"--chrome-flags={FLAGS}",
             *(["--preset=desktop"] if preset == "desktop" else [])],
            check=True,
        )
        data = json.loads(report.read_text())
    return {name: round(data["categories"][name]["score"] * 100) for name in CATEGORIES}


def main() -> None:
    base = sys.argv[1]
    preset = sys.argv[2] if len(sys.argv) > 2 else "desktop"
    scores = {page or "/": audit(base + page, preset) for page in PAGES}
    print(f"Lighthouse, {preset} preset")
    print("| page | " + " | ".join(CATEGORIES) + " |")
    print("|---|" + "---:|" * len(CATEGORIES))
    for page, result in scores.items():
        print(f"| `{page}` | " + " | ".join(str(result[c]) for c in CATEGORIES) + " |")
    out = ROOT / "reports" / f"lighthouse-{preset}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(scores, indent=1) + "\n")


if __name__ == "__main__":
    main()
