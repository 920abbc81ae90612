"""Screenshot pages of a running site with headless Chromium, waiting for the engine.

Usage: python -m tools.screenshot URL OUT.png [--dark] [--width N]
"""

from __future__ import annotations

import argparse

from .chromium import launch_chromium


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url")
    parser.add_argument("out")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args()
    with launch_chromium() as browser:
        page = browser.new_page(
            viewport={"width": args.width, "height": 900},
            color_scheme="dark" if args.dark else "light",
        )
        page.goto(args.url)
        if page.locator("[data-calculator]").count():
            page.wait_for_selector("[data-calculator][data-state=ready], [data-calculator][data-state=error]")
        page.screenshot(path=args.out, full_page=True)


if __name__ == "__main__":
    main()
