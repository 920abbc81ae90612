"""Accessibility fixes for markup of the theme that no setting reaches, applied to the built pages.

Each fix names the exact markup it expects; if a theme update changes it, the
build fails here instead of silently shipping the gap again.
"""

from __future__ import annotations

from pathlib import Path

# With site data blocked (a browser setting), merely reading localStorage or sessionStorage throws: the theme's inline
# scripts and bundle do so unguarded, which stopped them with uncaught errors and lost the light/dark toggle. Before
# the theme's first script, each storage that cannot be read is replaced by one in memory for the page's life (the
# toggle works, without remembering), and the page scripts learn that nothing is kept (calcStorageBlocked).
STORAGE_SHIM = (
    "/*calcolatori: storage*/(()=>{for(const n of[\"localStorage\",\"sessionStorage\"]){try{window[n].length}"
    "catch{const m=new Map,s={getItem:k=>m.has(k)?m.get(k):null,setItem:(k,v)=>{m.set(String(k),String(v))},"
    "removeItem:k=>{m.delete(String(k))},clear:()=>m.clear(),key:i=>[...m.keys()][i]??null,get length(){return m.size}};"
    "try{Object.defineProperty(window,n,{value:s,configurable:!0})}catch{}window.calcStorageBlocked=!0}}})();"
)

FIXES = [
    (
        "<script>__md_scope=new URL(",
        f"<script>{STORAGE_SHIM}__md_scope=new URL(",
        "<script>/*calcolatori: storage*/",
    ),
    # Material's search overlay is a dialog with no name (axe: aria-dialog-name); Zensical names it.
    (
        '<div class="md-search" data-md-component="search" role="dialog">',
        '<div class="md-search" data-md-component="search" role="dialog" aria-label="Cerca nel sito">',
        '<div class="md-search" data-md-component="search" role="dialog" aria-label=',
    ),
]


def apply_theme_fixes(site: Path) -> None:
    """Apply each fix (``before`` → ``after``); a page already showing ``fixed`` needs none."""
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for before, after, fixed in FIXES:
            if before not in html and fixed not in html:
                raise SystemExit(f"theme markup changed in {page}: {before!r} not found")
            html = html.replace(before, after)
        page.write_text(html, encoding="utf-8")
