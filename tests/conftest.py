"""Shared fixtures: the built site, a local server for it, and Chromium pages that
fail the test on any page error or on any request to another host."""

from __future__ import annotations

import functools
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "docs" / "assets" / "engine" / "314.0.7"


def build_site(target: Path) -> subprocess.CompletedProcess[str]:
    """Build the site with MkDocs (strict) into ``target``."""
    if not (ENGINE / "pyodide-lock.json").exists():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "prepare_engine.py")], check=True)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin",
             "PYTHONPATH": f"{ROOT}:{ROOT / 'scripts'}"},
        check=False,
    )


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    done = build_site(target)
    assert done.returncode == 0, done.stdout + done.stderr
    return target


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class Server:
    """A loopback HTTP server for a directory."""

    url: str
    host: str
    httpd: ThreadingHTTPServer


def serve(directory: Path) -> Server:
    handler = functools.partial(_QuietHandler, directory=str(directory))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    host = f"127.0.0.1:{httpd.server_address[1]}"
    return Server(f"http://{host}/", host, httpd)


@pytest.fixture(scope="session")
def server(site_dir: Path) -> Iterator[Server]:
    running = serve(site_dir)
    yield running
    running.httpd.shutdown()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from .browser import launch_chromium

    with launch_chromium() as chromium:
        yield chromium


@dataclass
class Watch:
    """What a page did that a test must not allow."""

    foreign_requests: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def page(browser, server: Server, watch: Watch):  # type: ignore[no-untyped-def]
    """A fresh page; the test fails if it raised an error or asked another host for anything."""
    context = browser.new_context()

    def on_request(request) -> None:  # type: ignore[no-untyped-def]
        parts = urlsplit(request.url)
        if parts.scheme in {"data", "blob"}:
            return
        if parts.netloc != server.host:
            watch.foreign_requests.append(request.url)

    context.on("request", on_request)
    context.route(lambda url: urlsplit(url).netloc not in {server.host, ""}, lambda route: route.abort())
    new_page = context.new_page()
    new_page.on("pageerror", lambda error: watch.page_errors.append(str(error)))
    new_page.on("console", lambda m: m.type == "error" and watch.console_errors.append(m.text))
    yield new_page
    context.close()
    assert watch.foreign_requests == [], "requests to other hosts"
    assert watch.page_errors == [], "page errors"
