"""Content-Security-Policy: present, strict, and enforced by the browser."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from ..conftest import Server, Watch, serve, site_headers, watched_context


def test_policy_allows_only_the_site_and_wasm(site_dir: Path) -> None:
    csp = site_headers(site_dir)["Content-Security-Policy"]
    directives = dict(d.split(" ", 1) for d in csp.split("; "))
    assert directives["default-src"] == "'self'"
    script_sources = directives["script-src"].split()
    assert script_sources[:2] == ["'self'", "'wasm-unsafe-eval'"]
    assert all(s.startswith("'sha256-") for s in script_sources[2:])
    assert "'unsafe-eval'" not in csp and "'unsafe-inline'" not in directives["script-src"]
    assert directives["style-src"] == "'self'"  # no inline style anywhere (issue 27, point 11)
    assert "http" not in csp
    for page in site_dir.rglob("*.html"):
        assert '<meta http-equiv="Content-Security-Policy"' in page.read_text(), page


@pytest.mark.browser
def test_browser_blocks_injected_inline_script(browser, site_dir: Path) -> None:  # type: ignore[no-untyped-def]
    server: Server = serve(site_dir)
    context = watched_context(browser, server.host, Watch())
    page = context.new_page()
    try:
        page.goto(server.url + "accumulo-del-gradiente/")
        blocked = page.evaluate(
            """() => new Promise((resolve) => {
                document.addEventListener("securitypolicyviolation", (e) => resolve(e.violatedDirective));
                const script = document.createElement("script");
                script.textContent = "window.__injected = true";
                document.body.append(script);
                setTimeout(() => resolve(window.__injected ? "ran" : "silent"), 2000);
            })"""
        )
        assert blocked.startswith("script-src")
        expect(page.locator("form[data-calculator]")).to_have_attribute("data-state", "ready", timeout=60_000)
    finally:
        context.close()
        server.stop()
