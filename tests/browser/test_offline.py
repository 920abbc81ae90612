"""Offline and private: no other host, a service worker, file://, a sub-path."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from calculator import CALCULATORS
from sitebuild.content_names import engine_build_dir
from sitebuild.engine import engine_path
from sitebuild.precompress import is_precompressed_copy

from ..conftest import Server, Watch, assert_clean, serve, watch_page, watched_context, watched_page
from ..support.pages import READY_TIMEOUT, calculator, open_ready, output
from ..support.pages import field as field_of
from ..support.smoke import EDITS

PAGES = ["", *(f"{c}/" for c in CALCULATORS), "404.html"]


@pytest.mark.browser
@pytest.mark.parametrize("path", PAGES)
def test_pages_ask_no_other_host(page: Page, server: Server, watch: Watch, path: str) -> None:
    page.goto(server.url + path)
    if path.rstrip("/") in CALCULATORS:
        expect(calculator(page, path.rstrip("/"))).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
    page.wait_for_load_state("networkidle")
    assert watch.foreign_requests == []


FOREIGN_IN_CSS = re.compile(r"""url\(\s*['"]?(https?:)?//""", re.I)
FOREIGN_IN_JS = re.compile(r"""(import\s*\(?\s*|importScripts\(\s*|new Worker\(\s*|fetch\(\s*)["'`](https?:)?//""")
FOREIGN_IN_HTML = re.compile(
    r"""<(script|link|img|iframe|source|audio|video|embed|object)\b[^>]*?\b(src|href|data|srcset)=["']?(https?:)?//""",
    re.I,
)
CANONICAL = re.compile(r'<link rel="canonical" href="[^"]*">')


def test_built_files_reference_no_other_host(site_dir: Path) -> None:
    offenders = []
    for file in site_dir.rglob("*"):
        if file.suffix in {".css"} and FOREIGN_IN_CSS.search(file.read_text(errors="ignore")):
            offenders.append(file)
        if file.suffix in {".js", ".mjs"} and FOREIGN_IN_JS.search(file.read_text(errors="ignore")):
            offenders.append(file)
        # The canonical link names the published address (site_url): a name, not something loaded.
        html = CANONICAL.sub("", file.read_text(errors="ignore")) if file.suffix == ".html" else ""
        if FOREIGN_IN_HTML.search(html):
            offenders.append(file)
    assert offenders == []
    assert "http" not in (site_dir / "sw.js").read_text().split("const PRECACHE", 1)[1].split(";", 1)[0]


def test_service_worker_precaches_the_site_and_engine(site_dir: Path) -> None:
    script = (site_dir / "sw.js").read_text()
    assert re.search(r'const CACHE = "calcolatori-[0-9a-f]{16}";', script)
    engine = engine_path()
    pages = ['"./"', *(f'"{calculator_id}/"' for calculator_id in CALCULATORS)]
    build = engine_build_dir(site_dir).relative_to(site_dir).as_posix()
    ours = [*(site_dir / "assets" / "javascripts").glob("*.mjs"), *(site_dir / "assets" / "stylesheets").glob("calc*.css")]
    named = [p.relative_to(site_dir).as_posix() for p in ours]  # named by their content (sitebuild/content_names.py)
    assert {"engine-worker", "engine-protocol", "calculators"} <= {p.name.split(".")[0] for p in ours}
    for path in [*pages, '"search/search_index.json"', '"sitemap.xml"', f'"{engine}/pyodide.asm.wasm"',
                 f'"{engine}/python_stdlib.zip"', f'"{build}/pyodide-lock.json"', f'"{build}/snapshot.csn1.gz"',
                 *(f'"{name}"' for name in named)]:
        assert path in script, path
    wheel = next(engine_build_dir(site_dir).glob("*.whl")).name
    assert f'"{build}/{wheel}"' in script
    assert '.css.gz"' not in script and '.wasm.gz"' not in script  # precompressed copies: not for the browser


def test_cache_name_follows_the_content(site_dir: Path, tmp_path: Path) -> None:
    from sitebuild.service_worker import cache_name, precache_paths

    copy = tmp_path / "site"
    shutil.copytree(site_dir, copy)
    before = cache_name(copy, precache_paths(copy))
    assert before == cache_name(copy, precache_paths(copy))
    next((copy / "assets" / "stylesheets").glob("calculators.*.css")).write_text("/* changed */")
    assert cache_name(copy, precache_paths(copy)) != before


def test_host_header_files(site_dir: Path) -> None:
    netlify = (site_dir / "_headers").read_text()
    assert "/*.wasm\n  Content-Type: application/wasm" in netlify
    assert f"/{engine_path()}/pyodide.asm.wasm\n  Cache-Control: public, max-age=31536000, immutable" in netlify
    assert "/sw.js\n  Cache-Control: no-cache" in netlify
    apache = (site_dir / ".htaccess").read_text()
    assert "AddType application/wasm .wasm" in apache and "immutable" in apache


def test_files_named_by_content_are_kept_for_a_year_by_hosts_that_read_header_files(site_dir: Path) -> None:
    """The scripts and stylesheets a page loads (every name carries its content's digest) and the engine's own build get
    ``immutable`` in ``_headers`` and from ``.htaccess``'s rules; the page and the service worker do not."""
    page = (site_dir / "accumulo-del-gradiente" / "index.html").read_text()
    ours = r'(?:src|href)="(?:\.\./)+(assets/(?:javascripts|stylesheets)/[^"?#]+)"'
    loaded = {"/" + path for path in re.findall(ours, page)}
    build = {"/" + p.relative_to(site_dir).as_posix() for p in engine_build_dir(site_dir).iterdir()
             if not is_precompressed_copy(p)}  # a gzip copy is sent under its original's address, with its headers
    assert any(a.endswith(".mjs") for a in loaded) and any(a.endswith(".css") for a in loaded)
    assert sorted(address.rsplit("/", 1)[1] for address in build) == [
        "calculator-0.1.0-py3-none-any.whl", "pyodide-lock.json", "pyodide.asm.mjs", "snapshot.csn1.gz"]
    netlify = (site_dir / "_headers").read_text()
    rules = dict(re.findall(r"^(/\S*)\n((?:  .*\n)+)", netlify, re.MULTILINE))
    kept = {address for address, block in rules.items() if "Cache-Control: public, max-age=31536000, immutable" in block}
    assert loaded | build <= kept
    assert not {"/accumulo-del-gradiente/", "/accumulo-del-gradiente/index.html", "/sw.js"} & kept
    apache = (site_dir / ".htaccess").read_text()
    (by_name,) = [m for m in re.findall(r'<FilesMatch "([^"]+)">', apache) if "[0-9a-f]" in m]
    (by_address,) = re.findall(r"=~ m#([^#]+)#", apache)
    for address in loaded:
        assert re.search(by_name, address.rsplit("/", 1)[1]), address
    for address in build:
        assert re.search(by_address, address) and not re.search(by_name, address.rsplit("/", 1)[1]), address
    for address in ("/accumulo-del-gradiente/index.html", "/sw.js", "/sitemap.xml", f"/{engine_path()}/pyodide.mjs"):
        assert not re.search(by_address, address) and not re.search(by_name, address.rsplit("/", 1)[1]), address


@pytest.fixture
def own_server(site_dir: Path, tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    """A server of its own on a copy of the site, which a test may change or stop."""
    copy = tmp_path / "site"
    shutil.copytree(site_dir, copy)
    running = serve(copy, delays=DELAYS)
    yield running, copy
    running.stop()
    DELAYS.clear()
    DELAYS["/nessuna-attesa"] = 0


# Paths the own server keeps waiting before it answers: a test adds to it (a dict, kept by the server).
DELAYS: dict[str, float] = {"/nessuna-attesa": 0}


def wait_for_service_worker(page: Page) -> None:
    page.wait_for_function(
        "navigator.serviceWorker.ready.then(() => Boolean(navigator.serviceWorker.controller))", timeout=60_000
    )


def use_calculator(page: Page, calculator_id: str) -> None:
    """Type one of the calculator's own examples and see Python's answer (``tests/support/smoke.py``)."""
    edit = EDITS[calculator_id]
    form = calculator(page, calculator_id)
    expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
    for name, value in edit.values.items():
        field_of(form, name).fill(value)
    expect(output(form, edit.result)).to_have_text(edit.expected)


@pytest.fixture
def own_page(browser, own_server: tuple[Server, Path]) -> Iterator[Page]:  # type: ignore[no-untyped-def]
    """A page of a context of its own, watched like the ``page`` fixture, on ``own_server``."""
    with watched_page(browser, own_server[0].host) as page:
        yield page


@pytest.mark.browser
def test_works_offline_after_one_visit(own_page: Page, own_server: tuple[Server, Path]) -> None:
    server, _ = own_server
    page = own_page
    open_ready(page, server, "accumulo-del-gradiente")
    wait_for_service_worker(page)
    server.stop()
    page.reload()
    use_calculator(page, "accumulo-del-gradiente")
    # Offline too, the engine starts from its snapshot, not from a slow normal boot.
    expect(calculator(page, "accumulo-del-gradiente")).to_have_attribute("data-engine-boot", "snapshot")
    # Every calculator, the activation page included, reached by the navigation and used offline.
    for calc in [*(c for c in CALCULATORS if c != "accumulo-del-gradiente"), "accumulo-del-gradiente"]:
        page.locator(f'.md-nav a[href$="{calc}/"]').first.click()
        expect(page).to_have_url(re.compile(f"{calc}/$"))
        use_calculator(page, calc)
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("parametri", delay=30)
    expect(page.locator(".md-search-result__item").first).to_be_visible(timeout=20_000)


@pytest.mark.browser
def test_a_first_visit_downloads_the_engine_once(browser, site_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """The service worker's precache takes the files named by their content (or by Pyodide's version) from the
    browser's HTTP cache, where the page's own start has just put them: the snapshot and the standard library
    (6 and 2.5 MB) are asked of the host once, not again by the precache."""
    requested: list[str] = []
    running = serve(site_dir, requested=requested)
    context = browser.new_context()  # no routes: Playwright's routing would turn the HTTP cache off
    try:
        page = context.new_page()
        open_ready(page, running, "accumulo-del-gradiente")
        wait_for_service_worker(page)
    finally:
        context.close()
        running.stop()
    for name in ("snapshot.csn1.gz", "python_stdlib.zip"):
        assert sum(path.endswith("/" + name) for path in requested) == 1, (name, requested)


# How each entry of a visit was served: the service worker's static route that matched, if any.
ROUTES_SEEN = """() => Object.fromEntries(performance.getEntriesByType("navigation")
  .concat(performance.getEntriesByType("resource"))
  .map((entry) => [new URL(entry.name).pathname, entry.workerMatchedSourceType]))"""


@pytest.mark.browser
def test_a_returning_visit_takes_assets_from_the_cache_without_the_workers_handler(
    own_page: Page, own_server: tuple[Server, Path],
) -> None:
    """The Static Routing API: files under assets/ come from this deploy's cache, a page races network and handler."""
    server, _ = own_server
    page = own_page
    open_ready(page, server, "accumulo-del-gradiente")
    wait_for_service_worker(page)
    page.reload()
    expect(calculator(page, "accumulo-del-gradiente")).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
    seen = page.evaluate(ROUTES_SEEN)
    assets = {path: source for path, source in seen.items() if path.startswith("/assets/")}
    assert any(path.endswith(".css") for path in assets) and any(path.endswith(".js") for path in assets)
    assert set(assets.values()) == {"cache"}, assets
    assert seen["/accumulo-del-gradiente/"] == "race-network-and-fetch-handler"


def test_offline_addresses_find_their_page_or_the_404(own_page: Page, own_server: tuple[Server, Path]) -> None:
    """Offline, an address without its trailing slash or with index.html opens the page (redirected to the address
    the cache knows it by, so that its relative links hold); an unknown path gets the site's 404 page."""
    server, _ = own_server
    page = own_page
    open_ready(page, server, "accumulo-del-gradiente")
    wait_for_service_worker(page)
    server.stop()
    for address in ("parametri-lora", "parametri-lora/index.html", "parametri-lora?rank=16"):
        page.goto(server.url + address)
        expect(page).to_have_url(re.compile(r"parametri-lora/(\?rank=16)?$"))
        expect(calculator(page, "parametri-lora")).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
    missing = page.goto(server.url + "non-esiste/")
    assert missing is not None and missing.status == 404
    expect(page.locator("h1")).to_contain_text("404")


def test_a_page_whose_network_never_answers_comes_from_the_cache(own_page: Page,
                                                                  own_server: tuple[Server, Path]) -> None:
    """A connection that accepts and never answers: after a short wait the cached page opens."""
    server, _ = own_server
    page = own_page
    open_ready(page, server, "accumulo-del-gradiente")
    wait_for_service_worker(page)
    DELAYS["vram-addestramento-llm/"] = 120
    started = time.monotonic()
    page.goto(server.url + "vram-addestramento-llm/", timeout=30_000)
    expect(calculator(page, "vram-addestramento-llm")).to_be_visible()
    assert time.monotonic() - started < 15


@pytest.mark.browser
def test_new_version_is_offered_and_replaces_the_old_cache(own_page: Page, own_server: tuple[Server, Path]) -> None:
    server, copy = own_server
    page = own_page
    open_ready(page, server, "parametri-lora")
    wait_for_service_worker(page)
    old = page.evaluate("caches.keys()")
    publish_new_worker(copy)
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    reload_into_new_version(page)
    assert old != [NEW_CACHE]


@pytest.mark.browser
def test_a_new_version_still_installing_when_the_page_registers_is_offered(
    own_page: Page, own_server: tuple[Server, Path],
) -> None:
    """The page registers its worker only once its engine has answered and the reader is calm: a new worker found
    before that (as a navigation looks for one) is still installing then, its "updatefound" long gone, and is offered
    all the same."""
    server, copy = own_server
    page = own_page
    open_ready(page, server, "parametri-lora")
    wait_for_service_worker(page)
    publish_new_worker(copy)
    DELAYS["/404.html"] = 20  # a file the new worker precaches: it installs for twenty seconds at least
    page.goto(server.url + "parametri-lora/")
    assert page.evaluate(FOUND_BEFORE_REGISTERING) == {"found": "installing", "calm": False, "registered": "installing"}
    reload_into_new_version(page)


# Look for a new worker now, before the page has registered its own (it does once calm); then wait until it has.
FOUND_BEFORE_REGISTERING = """async () => {
  let calm = false;
  window.calcEngineCalm.then(() => { calm = true; });
  const registration = await navigator.serviceWorker.getRegistration();
  await registration.update();
  const found = registration.installing && registration.installing.state;
  const calmThen = calm;
  await window.calcEngineCalm;
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { found, calm: calmThen, registered: registration.installing && registration.installing.state };
}"""


NEW_CACHE = "calcolatori-0000000000000000"


def publish_new_worker(site: Path) -> None:
    """A new version of the site on the server: its worker names a new cache."""
    sw = site / "sw.js"
    sw.write_text(re.sub(r'const CACHE = "calcolatori-[0-9a-f]+"', f'const CACHE = "{NEW_CACHE}"', sw.read_text()))
    sw.with_name("sw.js.gz").unlink(missing_ok=True)  # the precompressed copy of the old version


def reload_into_new_version(page: Page) -> None:
    """The notice comes; "Ricarica" reloads the page into the new worker, which has removed the old cache."""
    notice = page.get_by_role("status").filter(has_text="È disponibile una nuova versione del sito.")
    expect(notice).to_be_visible(timeout=60_000)
    with page.expect_navigation():
        notice.get_by_role("button", name="Ricarica").click()
    page.wait_for_function(f"caches.keys().then((k) => k.length === 1 && k[0] === '{NEW_CACHE}')")


@pytest.mark.browser
def test_file_url_explains_how_to_serve(page: Page, site_dir: Path) -> None:
    page.goto((site_dir / "accumulo-del-gradiente" / "index.html").as_uri())
    form = calculator(page, "accumulo-del-gradiente")
    expect(form).to_have_attribute("data-state", "error", timeout=10_000)
    message = form.locator('[data-when="file"]')
    expect(message).to_be_visible()
    expect(message).to_contain_text("python3 -m http.server")
    expect(output(form, "effective_batch")).to_have_text("32")
    expect(output(form, "activation_memory")).to_have_text("2 GB")


@pytest.mark.browser
def test_works_under_a_sub_path(browser, site_dir: Path) -> None:  # type: ignore[no-untyped-def]
    server = serve(site_dir, prefix="/calcolatori/")
    watch = Watch()
    context = watched_context(browser, server.host, watch)
    page = context.new_page()
    watch_page(page, watch)
    try:
        page.goto(server.url)
        page.locator('a.card[href$="/vram-addestramento-llm/"]').click()  # the theme makes links absolute
        use_calculator(page, "vram-addestramento-llm")
        scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
        assert scope == server.url
    finally:
        context.close()
        server.stop()
    assert_clean(watch)
