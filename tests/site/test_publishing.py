"""Publish and write like a MkDocs user: mkdocs build / gh-deploy / serve, Zensical, the Pages workflow."""

from __future__ import annotations

import gzip
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from calculator import CALCULATORS
from calculator.form.render import FEEDS_MARK, render
from sitebuild.content_names import engine_build_dir
from sitebuild.engine import engine_path
from sitebuild.markdown_extension import form_attributes
from tools.local_server import free_port

from ..conftest import ROOT, copy_project, serving, watched_page
from ..support.pages import READY_TIMEOUT, calculator, output

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
LASTMOD = re.compile(rb"<lastmod>[^<]*</lastmod>")


def comparable(path: Path) -> bytes:
    """A built file's bytes, less its timestamps (the sitemap's dates, also inside its gzip copy)."""
    data = path.read_bytes()
    if path.name == "sitemap.xml.gz":
        data = gzip.decompress(data)
    return LASTMOD.sub(b"<lastmod/>", data) if path.name.startswith("sitemap.xml") else data


def files(site: Path) -> dict[str, Path]:
    return {p.relative_to(site).as_posix(): p for p in sorted(site.rglob("*")) if p.is_file()}


# The digests in the names of the files that change between deploys (sitebuild/content_names.py).
DIGEST = re.compile(r"[./][0-9a-f]{10}(?=[./])")


def undigested(text: str) -> str:
    """A name or a page with the content digests of its files' names left out."""
    return DIGEST.sub("", text)


def mkdocs(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(cwd)}
    return subprocess.run([sys.executable, "-m", "mkdocs", *args], cwd=cwd, env=env, check=True,
                          capture_output=True, text=True)


def test_mkdocs_build_gives_the_same_site_as_scripts_build(site_dir: Path, tmp_path: Path) -> None:
    mkdocs("build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site"))
    ours, theirs = files(site_dir), files(tmp_path / "site")
    assert list(ours) == list(theirs)
    different = [name for name in ours if comparable(ours[name]) != comparable(theirs[name])]
    assert different == []
    snapshot = (engine_build_dir(site_dir) / "snapshot.csn1.gz").relative_to(site_dir).as_posix()
    for needed in ("sw.js", "_headers", ".htaccess", snapshot, "index.html.gz"):
        assert needed in ours


def test_gh_deploy_publishes_the_complete_site(site_dir: Path, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "progetto")
    remote = tmp_path / "remote.git"
    git = ["git", "-c", "user.name=Prova", "-c", "user.email=prova@example.invalid"]
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "prova"],
                    ["remote", "add", "origin", str(remote)]):
        subprocess.run([*git, *command], cwd=project, check=True)
    mkdocs("gh-deploy", "--force", "--remote-name", "origin", "--message", "pubblicazione", cwd=project)
    listed = subprocess.run(["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "gh-pages"],
                            capture_output=True, text=True, check=True).stdout.split()
    # The copy made its own engine: its snapshot holds the C library's random state, so its bytes (and the
    # names derived from them: the engine's build directory, the scripts that name it, the service worker's cache)
    # are its own; the rest is the same.
    published_names = {undigested(name): name for name in set(listed) - {".nojekyll"}}
    assert sorted(published_names) == sorted(undigested(name) for name in files(site_dir))
    lock = (engine_build_dir(site_dir) / "pyodide-lock.json").relative_to(site_dir).as_posix()
    for name in ("_headers", ".htaccess", "accumulo-del-gradiente/index.html", lock):
        path = published_names[undigested(name)]
        published = subprocess.run(["git", "--git-dir", str(remote), "show", f"gh-pages:{path}"],
                                   capture_output=True, text=True, check=True).stdout
        assert undigested(published) == undigested((site_dir / name).read_text()), name
    worker = subprocess.run(["git", "--git-dir", str(remote), "show", "gh-pages:sw.js"],
                            capture_output=True, text=True, check=True).stdout
    cache_name = re.compile(r'const CACHE = "[^"]*";')
    assert undigested(cache_name.sub("", worker)) == undigested(cache_name.sub("", (site_dir / "sw.js").read_text()))


def test_the_publishing_workflow_passes_actionlint() -> None:
    done = subprocess.run([str(Path(sys.executable).with_name("actionlint")), str(WORKFLOW)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    text = WORKFLOW.read_text()
    assert "run: scripts/build" in text and "path: site" in text and "actions/deploy-pages@" in text


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("path: site", "path: site\n          bogus: ${{ github.nope }}"))
    done = subprocess.run([str(Path(sys.executable).with_name("actionlint")), str(broken)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "bogus" in done.stdout


@pytest.fixture(scope="module")
def zensical_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sitebuild.zensical_build import zensical_build

    project = copy_project(tmp_path_factory.mktemp("zensical"))
    try:
        return zensical_build(project)
    except subprocess.CalledProcessError as error:
        pytest.fail(error.stdout + error.stderr)


@pytest.mark.parametrize("calculator_id", sorted(CALCULATORS))
def test_zensical_builds_the_pages_with_their_forms(zensical_site: Path, calculator_id: str) -> None:
    html = (zensical_site / calculator_id / "index.html").read_text()
    form = render(CALCULATORS[calculator_id], attributes=form_attributes())
    # The feed links go between, as Markdown; the build names the worker by its content.
    assert all(undigested(part) in undigested(html) for part in form.split(FEEDS_MARK))
    assert "<math" in html and "$" not in re.sub(r"<script.*?</script>|<pre.*?</pre>", "", html, flags=re.S)
    assert 'http-equiv="Content-Security-Policy"' in html
    assert "calcEngineStart" in html


def test_links_to_siblings_are_right_with_both_generators(site_dir: Path, zensical_site: Path) -> None:
    """MkDocs and Zensical treat links in raw HTML differently: the feed links are Markdown, right in both."""
    for site in (site_dir, zensical_site):
        html = (site / "memoria-attivazioni" / "index.html").read_text()
        hrefs = dict(re.findall(r'data-feed="([a-z]+)" href="([^"]*)"', html))
        assert hrefs["accumulo"].startswith("../accumulo-del-gradiente/?")
        assert "activation_unit=GB&amp;" in hrefs["accumulo"]
        assert hrefs["vram"].startswith("../vram-addestramento-llm/?")
        assert "&amp;activation_gb=" in hrefs["vram"] or "?activation_gb=" in hrefs["vram"]


def test_zensical_site_is_completed_by_the_same_steps(zensical_site: Path) -> None:
    html = (zensical_site / "accumulo-del-gradiente" / "index.html").read_text()
    assert "4 GPU con parallelismo dei dati, il batch effettivo sale a 128" in html  # figures from the module
    snapshot = (engine_build_dir(zensical_site) / "snapshot.csn1.gz").relative_to(zensical_site).as_posix()
    for needed in ("sw.js", "_headers", ".htaccess", snapshot, "index.html.gz"):
        assert (zensical_site / needed).is_file(), needed
    assert '"search.json"' in (zensical_site / "sw.js").read_text()  # Zensical's own search index


@pytest.mark.browser
def test_zensical_site_computes_in_the_browser(browser, zensical_site: Path) -> None:  # type: ignore[no-untyped-def]
    with serving(zensical_site) as server, watched_page(browser, server.host) as page:
        page.goto(server.url + "vram-addestramento-llm/")
        form = calculator(page, "vram-addestramento-llm")
        expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
        form.locator('[name="parameters_billion"]').fill("13")
        expect(output(form, "per_gpu_gb")).to_have_text("210 GB")



@pytest.fixture
def author_mode(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """``mkdocs serve`` on a copy of the project, as ``scripts/serve --dev`` runs it."""
    project = copy_project(tmp_path / "progetto")
    port = free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(project)}
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
                              cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.3)
        yield project, f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.browser
def test_author_mode_shows_each_edit_and_remakes_the_engine_only_for_python(browser, author_mode) -> None:  # type: ignore[no-untyped-def]
    project, url = author_mode
    stamp = project / "docs" / engine_path() / ".stamp"
    with watched_page(browser, "127.0.0.1:" + url.rsplit(":", 1)[1].strip("/")) as page:
        page: Page
        page.goto(url + "parametri-lora/", timeout=120_000)
        form = calculator(page, "parametri-lora")
        expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
        made = stamp.stat().st_mtime_ns
        article = project / "docs" / "parametri-lora.md"
        article.write_text(article.read_text().replace("# Calcolatore dei parametri LoRA", "# Parametri LoRA, in prova", 1))
        expect(page.locator("h1")).to_contain_text("Parametri LoRA, in prova", timeout=30_000)  # live reload
        assert stamp.stat().st_mtime_ns == made  # prose only: the engine is left alone
        module = project / "calculator" / "pages" / "lora.py"
        module.write_text(module.read_text().replace('label="Rango r"', 'label="Rango r (in prova)"'))
        expect(page.locator('label[for="parametri-lora--rank"]')).to_have_text("Rango r (in prova)", timeout=180_000)
        assert stamp.stat().st_mtime_ns != made  # Python changed: the engine was made again
        form = calculator(page, "parametri-lora")
        expect(form).to_have_attribute("data-state", "ready", timeout=READY_TIMEOUT)
        form.locator('[name="rank"]').fill("16")
        expect(output(form, "trainable_parameters")).to_have_text("8.388.608")
