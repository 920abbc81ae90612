"""Write site/sw.js: the service worker that precaches the built site.

The precache list is every file a visitor may need offline (pages by their
directory URL, styles, scripts, the search index, the sitemap that the theme's
instant navigation reads, the engine), and the cache name is a hash of their
contents, so each deploy gets a fresh cache.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from .content_names import NAMED_BY_CONTENT
from .engine import engine_path
from .precompress import is_precompressed_copy

TEMPLATE = Path(__file__).with_name("service-worker.template.js")
SKIP_SUFFIXES = (".map",)
SKIP_NAMES = {"sw.js", "sitemap.xml.gz", "_headers", ".htaccess"}
# The sitemap's dates change with each day's build, not its content: they do not make a new deploy.
LASTMOD = re.compile(rb"<lastmod>[^<]*</lastmod>")
LUNR_KEEP = ("lunr.stemmer.support.min.js", "lunr.it.min.js", "lunr.multi.min.js")


def precache_paths(site: Path) -> list[str]:
    """Paths relative to the site root, as the browser asks for them."""
    paths = []
    for file in sorted(p for p in site.rglob("*") if p.is_file()):
        relative = file.relative_to(site).as_posix()
        if file.name in SKIP_NAMES or relative.endswith(SKIP_SUFFIXES):
            continue
        if is_precompressed_copy(file):
            continue  # for hosts to send in its original's place
        if relative.startswith("assets/javascripts/lunr/") and file.name not in LUNR_KEEP:
            continue
        if file.name == "index.html":
            relative = relative[: -len("index.html")] or "./"
        paths.append(relative)
    return paths


def immutable_paths(paths: list[str]) -> list[str]:
    """The precached files whose address names their content: under the engine's versioned directory, or with
    a digest in their name (ours, renamed by ``content_names``, and the theme's bundles)."""
    engine = engine_path() + "/"
    return [p for p in paths if p.startswith(engine) or NAMED_BY_CONTENT.search(p.rsplit("/", 1)[-1])]


def cache_name(site: Path, paths: list[str]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        file = site / (path + "index.html" if path.endswith("/") else path)
        if path == "./":
            file = site / "index.html"
        data = file.read_bytes()
        if path == "sitemap.xml":
            data = LASTMOD.sub(b"", data)
        digest.update(path.encode() + b"\0" + hashlib.sha256(data).digest())
    return "calcolatori-" + digest.hexdigest()[:16]


# For ``mkdocs serve``: a worker that takes over, drops every cache of the site and unregisters,
# so that an author always sees the latest build (and a later real deploy starts clean).
SERVING_WORKER = """// Service worker of mkdocs serve (the author's mode): removes itself and the site's caches.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith("calcolatori-")) await caches.delete(name);
    await self.registration.unregister();
  })());
});
"""


def write_service_worker(site: Path, *, serving: bool = False) -> str:
    """Write sw.js into ``site``; returns the cache name ("" for the author's mode)."""
    if serving:
        (site / "sw.js").write_text(SERVING_WORKER)
        return ""
    paths = precache_paths(site)
    name = cache_name(site, paths)
    script = (
        TEMPLATE.read_text()
        .replace("__CACHE_NAME__", name)
        .replace("__PRECACHE__", json.dumps(paths, indent=1))
        .replace("__IMMUTABLE__", json.dumps(immutable_paths(paths), indent=1))
    )
    (site / "sw.js").write_text(script)
    return name

