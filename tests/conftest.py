"""Shared fixtures: the built site, a local server for it, and Chromium pages that
fail the test on any page error or on any request to another host."""

from __future__ import annotations

import functools
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per test session by the same code as scripts/build."""
    from build_site import build

    target = tmp_path_factory.mktemp("site")
    try:
        build(target)
    except subprocess.CalledProcessError as error:
        pytest.fail(error.stdout + error.stderr)
    return target


class _Handler(SimpleHTTPRequestHandler):
    """Serves a directory, optionally under a path prefix (as a sub-path host would)."""

    prefix = "/"
    site_headers: dict[str, str] = {}  # noqa: RUF012 - set per server class
    delays: dict[str, float] = {}  # noqa: RUF012 - path suffix → seconds to wait before answering

    def do_GET(self) -> None:
        for suffix, seconds in self.delays.items():
            if self.path.endswith(suffix):
                time.sleep(seconds)
        super().do_GET()

    def end_headers(self) -> None:
        for name, value in self.site_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__no_such_file__")
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class Server:
    """A loopback HTTP server for a directory."""

    url: str
    host: str
    httpd: ThreadingHTTPServer

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def site_headers(directory: Path) -> dict[str, str]:
    """The headers that the site's ``_headers`` file sets on every path, as a host would send them."""
    headers: dict[str, str] = {}
    file = directory / "_headers"
    if file.exists():
        block = file.read_text().split("\n/", 2)[0]
        for line in block.splitlines()[1:]:
            name, _, value = line.strip().partition(": ")
            headers[name] = value
    return headers


def serve(directory: Path, prefix: str = "/", delays: dict[str, float] | None = None) -> Server:
    """Serve ``directory`` on a free loopback port, under ``prefix``, with the site's own headers."""
    attributes = {"prefix": prefix, "site_headers": site_headers(directory), "delays": delays or {}}
    handler_class = type("Handler", (_Handler,), attributes)
    handler = functools.partial(handler_class, directory=str(directory))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    host = f"127.0.0.1:{httpd.server_address[1]}"
    return Server(f"http://{host}{prefix}", host, httpd)


@pytest.fixture(scope="session")
def server(site_dir: Path) -> Iterator[Server]:
    running = serve(site_dir)
    yield running
    running.stop()


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
    csp_violations: list[str] = field(default_factory=list)


@pytest.fixture
def watch() -> Watch:
    return Watch()


def watched_context(browser, host: str, watch: Watch, **options):  # type: ignore[no-untyped-def]
    """A browser context that records requests to hosts other than ``host`` and blocks them."""
    context = browser.new_context(**options)

    def on_request(request) -> None:  # type: ignore[no-untyped-def]
        parts = urlsplit(request.url)
        if parts.scheme not in {"data", "blob", "file"} and parts.netloc != host:
            watch.foreign_requests.append(request.url)

    context.on("request", on_request)
    context.route(lambda url: urlsplit(url).netloc not in {host, ""}, lambda route: route.abort())
    return context


def watch_page(page, watch: Watch) -> None:  # type: ignore[no-untyped-def]
    page.on("pageerror", lambda error: watch.page_errors.append(str(error)))

    def on_console(message) -> None:  # type: ignore[no-untyped-def]
        if message.type == "error":
            watch.console_errors.append(message.text)
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            watch.csp_violations.append(message.text)

    page.on("console", on_console)


def assert_clean(watch: Watch) -> None:
    assert watch.foreign_requests == [], "requests to other hosts"
    assert watch.page_errors == [], "page errors"
    assert watch.csp_violations == [], "Content-Security-Policy violations"


@pytest.fixture
def page(browser, server: Server, watch: Watch):  # type: ignore[no-untyped-def]
    """A fresh page; the test fails if it raised an error or asked another host for anything."""
    context = watched_context(browser, server.host, watch)
    new_page = context.new_page()
    watch_page(new_page, watch)
    yield new_page
    context.close()
    assert_clean(watch)
