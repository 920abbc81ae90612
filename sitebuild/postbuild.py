"""What follows the Markdown build, whichever tool built it (MkDocs' plugin, Zensical's script).

Theme fixes, the update notice's template, the dark palette restated for a page the theme's script has not styled
yet, the files that change between deploys named by their content, the engine's early start at the top of the pages'
``<head>``, the Content-Security-Policy, the service worker, the host header files and the precompressed copies, in
that order (each step sees the previous one's output).
"""

from __future__ import annotations

from pathlib import Path

from .content_names import name_by_content
from .content_security import add_meta_policy, check_no_inline_styles, policy
from .dark_without_script import add_dark_without_script
from .early_start import add_early_start
from .host_headers import write_host_headers
from .leftovers import check_leftovers
from .precompress import precompress
from .service_worker import write_service_worker
from .theme_fixes import apply_theme_fixes
from .update_notice import add_update_notice


def finish_site(site: Path, *, serving: bool = False) -> None:
    """Complete a built site in place.

    ``serving``: for ``mkdocs serve`` (the author's mode), pages get no CSP ``<meta>`` tag (live
    reload injects an inline script that no hash can name in advance; the header files still carry
    the policy) and the service worker only removes itself and its caches, so that every edit shows.
    """
    check_leftovers(site)
    check_no_inline_styles(site)
    apply_theme_fixes(site)
    add_update_notice(site)
    add_dark_without_script(site)
    add_early_start(site, name_by_content(site))
    csp = policy(site)
    if not serving:
        add_meta_policy(site)
    write_service_worker(site, serving=serving)
    write_host_headers(site, csp)
    precompress(site)
