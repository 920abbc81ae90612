"""Header files for static hosts that read them, written into the built site.

* ``_headers``: Netlify and Cloudflare Pages.
* ``.htaccess``: Apache.

Both send ``.wasm`` as ``application/wasm`` and ``.mjs`` as JavaScript, let
browsers keep for a year Pyodide's versioned files and every file named by its
content (ours and the theme's bundles, the engine's own build: a new content
gets a new name), and make them revalidate the service worker and the pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .content_names import DIGEST_LENGTH, NAMED_BY_CONTENT, engine_build_dir
from .engine import RUNTIME_FILES, engine_path

IMMUTABLE = "public, max-age=31536000, immutable"
SECURITY = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


# Apache matches the engine's build by its address (its files keep their names; their directory is named by content).
ENGINE_BUILD_ADDRESS = rf"/assets/engine/[^/]+/[0-9a-f]{{{DIGEST_LENGTH}}}/"


def content_named(site: Path) -> list[str]:
    """The site's addresses of the files named by their content, and of the engine's build."""
    files = [p for p in site.rglob("*") if p.is_file() and NAMED_BY_CONTENT.search(p.name)]
    files += [p for p in engine_build_dir(site).iterdir() if p.is_file()]
    return sorted({"/" + p.relative_to(site).as_posix() for p in files})


def netlify_headers(csp: str, named: Sequence[str] = ()) -> str:
    lines = ["/*", *(f"  {k}: {v}" for k, v in SECURITY.items()), f"  Content-Security-Policy: {csp}"]
    lines += ["/*.wasm", "  Content-Type: application/wasm", "/*.mjs", "  Content-Type: text/javascript"]
    for address in [*(f"/{engine_path()}/{name}" for name in RUNTIME_FILES), *named]:
        lines += [address, f"  Cache-Control: {IMMUTABLE}"]
    lines += ["/sw.js", "  Cache-Control: no-cache"]
    return "\n".join(lines) + "\n"


def apache_htaccess(csp: str) -> str:
    runtime = "|".join(name.replace(".", r"\.") for name in RUNTIME_FILES)
    return "\n".join([
        "AddType application/wasm .wasm",
        "AddType text/javascript .mjs",
        "<IfModule mod_headers.c>",
        *(f'  Header set {k} "{v}"' for k, v in SECURITY.items()),
        f'  Header set Content-Security-Policy "{csp}"',
        f'  <FilesMatch "^({runtime})$">',
        f'    Header set Cache-Control "{IMMUTABLE}"',
        "  </FilesMatch>",
        f'  <FilesMatch "{NAMED_BY_CONTENT.pattern}">',
        f'    Header set Cache-Control "{IMMUTABLE}"',
        "  </FilesMatch>",
        f'  <If "%{{REQUEST_URI}} =~ m#{ENGINE_BUILD_ADDRESS}#">',
        f'    Header set Cache-Control "{IMMUTABLE}"',
        "  </If>",
        '  <Files "sw.js">',
        '    Header set Cache-Control "no-cache"',
        "  </Files>",
        "</IfModule>",
    ]) + "\n"


def write_host_headers(site: Path, csp: str) -> None:
    (site / "_headers").write_text(netlify_headers(csp, content_named(site)))
    (site / ".htaccess").write_text(apache_htaccess(csp))
