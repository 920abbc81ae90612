"""Header files for static hosts that read them, written into the built site.

* ``_headers``: Netlify and Cloudflare Pages.
* ``.htaccess``: Apache.

Both send ``.wasm`` as ``application/wasm`` and ``.mjs`` as JavaScript, let
browsers keep Pyodide's versioned files for a year, and make them revalidate
the service worker and the pages.
"""

from __future__ import annotations

from pathlib import Path

from .engine import RUNTIME_FILES, engine_path

IMMUTABLE = "public, max-age=31536000, immutable"
SECURITY = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def netlify_headers(csp: str) -> str:
    lines = ["/*", *(f"  {k}: {v}" for k, v in SECURITY.items()), f"  Content-Security-Policy: {csp}"]
    lines += ["/*.wasm", "  Content-Type: application/wasm", "/*.mjs", "  Content-Type: text/javascript"]
    for name in RUNTIME_FILES:
        lines += [f"/{engine_path()}/{name}", f"  Cache-Control: {IMMUTABLE}"]
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
        '  <Files "sw.js">',
        '    Header set Cache-Control "no-cache"',
        "  </Files>",
        "</IfModule>",
    ]) + "\n"


def write_host_headers(site: Path, csp: str) -> None:
    (site / "_headers").write_text(netlify_headers(csp))
    (site / ".htaccess").write_text(apache_htaccess(csp))
