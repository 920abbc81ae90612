"""Shared fixtures: the built site, a local server for it, and Chromium pages that
fail the test on any page error or on any request to another host."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, settings
from playwright.sync_api import expect

from tools.local_server import Server, serve, site_headers

# Playwright's waits (its expect, 5 s by default) are for the page to get there, not speed targets (the benchmark
# measures speed): on a busy two-core machine an answer or a change of mode has taken longer than 5 s.
expect.set_options(timeout=15_000)

ROOT = Path(__file__).resolve().parent.parent
__all__ = ["ROOT", "Server", "serve", "site_headers"]

# Hypothesis, the same on every machine whatever its load: no deadline and no slow-generation health
# check (a busy 2-core machine once took 1.5 s for a first draw), examples derived from each test (so a
# failure is reproduced by the next run, and CI never depends on a database left by an earlier run).
settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
# "dev" explores new examples at each run (random seed, local database): HYPOTHESIS_PROFILE=dev.
settings.register_profile("dev", parent=settings.get_profile("ci"), derandomize=False, database=settings.default.database)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per test session by the same code as scripts/build."""
    return build_site(tmp_path_factory.mktemp("site"))


def build_site(target: Path, root: Path = ROOT) -> Path:
    """Build the project at ``root`` into ``target``; the test fails with MkDocs' output if it cannot."""
    from sitebuild.build import build

    try:
        build(target, root)
    except subprocess.CalledProcessError as error:
        pytest.fail(error.stdout + error.stderr)
    return target


PROJECT_FILES = ("calculator", "sitebuild", "docs", "mkdocs.yml", "pyproject.toml", "package.json", "package-lock.json")


def copy_project(target: Path) -> Path:
    """A copy of what the site is built from (without the engine, which its build makes), sharing node_modules."""
    import shutil

    target.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("engine", "__pycache__"))
        else:
            shutil.copy2(source, target / name)
    (target / "node_modules").symlink_to(ROOT / "node_modules")
    return target


@contextmanager
def serving(site: Path, **options: Any) -> Iterator[Server]:
    running = serve(site, **options)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def server(site_dir: Path) -> Iterator[Server]:
    with serving(site_dir) as running:
        yield running


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from tools.chromium import launch_chromium

    with launch_chromium() as chromium:
        yield chromium


@dataclass
class Watch:
    """What a page did that a test must not allow."""

    foreign_requests: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)
    expected_errors: list[str] = field(default_factory=list)  # substrings of errors a test provokes


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


@contextmanager
def watched_page(browser, host: str, watch: Watch | None = None):  # type: ignore[no-untyped-def]
    """A page in a fresh context; on exit, fails on page errors, CSP violations or other hosts asked."""
    watch = watch or Watch()
    context = watched_context(browser, host, watch)
    new_page = context.new_page()
    watch_page(new_page, watch)
    yield new_page
    context.close()
    assert_clean(watch)


@pytest.fixture
def page(browser, server: Server, watch: Watch):  # type: ignore[no-untyped-def]
    """A fresh page; the test fails if it raised an error or asked another host for anything."""
    with watched_page(browser, server.host, watch) as new_page:
        yield new_page


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/browser runs in Chromium: marked once here, not in each file."""
    browser = Path(__file__).resolve().parent / "browser"
    for item in items:
        if browser in item.path.parents:
            item.add_marker(pytest.mark.browser)
