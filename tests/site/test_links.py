"""Every internal link and asset reference of the built site resolves, anchors included."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

BASE = "http://sito.invalid/"


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.references: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in ("href", "src"):
            value = found.get(name)
            if value and not (tag == "link" and found.get("rel") in {"canonical", "alternate"}):
                self.references.append(value)
        for name in ("id", "name"):
            if found.get(name):
                self.ids.add(str(found[name]))


def parse(page: Path) -> _References:
    parser = _References()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def target_file(site: Path, url: str) -> Path:
    path = unquote(urlsplit(url).path)[len(urlsplit(BASE).path):]
    file = site / path
    return file / "index.html" if path == "" or path.endswith("/") else file


def test_every_internal_reference_resolves(site_dir: Path) -> None:
    pages = sorted(site_dir.rglob("*.html"))
    ids = {page: parse(page).ids for page in pages}
    broken = []
    checked = 0
    for page in pages:
        page_url = urljoin(BASE, page.relative_to(site_dir).as_posix())
        for reference in parse(page).references:
            if re.match(r"^(https?:|mailto:|data:|javascript:)", reference):
                assert not reference.startswith("javascript:"), (page, reference)
                continue
            url = urljoin(page_url, reference)
            file = target_file(site_dir, url)
            fragment = urlsplit(url).fragment
            checked += 1
            if not file.is_file() or (fragment and file.suffix == ".html" and unquote(fragment) not in ids.get(file, set())):
                broken.append((page.relative_to(site_dir), reference))
    assert checked > 100
    assert broken == []


@pytest.mark.parametrize("script", ["calculators", "engine-client", "engine-worker", "form", "offline"])
def test_module_imports_resolve(site_dir: Path, script: str) -> None:
    """Every module a script imports or names is there, under its name by content (sitebuild/content_names.py)."""
    (file,) = (site_dir / "assets" / "javascripts").glob(f"{script}.*.mjs")
    source = file.read_text()
    named = re.findall(r'new URL\("([^"]+)", import\.meta\.url\)|from "(\./[^"]+)"', source)
    for relative in filter(None, (a or b for a, b in named)):
        assert (file.parent / relative).exists() or relative.endswith("/"), relative
    assert not list(file.parent.glob(f"{script}.mjs"))  # the name without digest is gone
