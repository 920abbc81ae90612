"""Name by their content the files that change between deploys, so that a page only ever loads its own deploy's.

* The engine's own build (our wheel, its lock file, the snapshot, Pyodide's loader as trimmed for it) moves into
  a directory named by their content, ``assets/engine/<version>/<digest>/``, beside Pyodide's files (whose
  versioned directory already names their content), and the worker gets that name (its line
  ``const BUILD_FILES = "./";``) and the bytes a start downloads (``const START_BYTES = 0;``, for the page's
  progress bar).
* Our scripts (``assets/javascripts/``) and stylesheet (``assets/stylesheets/``) get a digest of their content
  in their names (``form.mjs`` → ``form.1a2b3c4d5e.mjs``), the modules they import renamed first and their
  names rewritten in the importer, so that a module's name changes whenever anything it loads does: the page
  script names its imports and the worker, the worker names the engine's build.
* The pages then name the renamed files (``src``, ``href``, ``data-worker``), and the old names are gone: a
  page of an earlier deploy, still open somewhere, cannot load a newer script (it fails and says so) and a
  newer page cannot get an older one from any cache, the browser's or the service worker's.

Files whose names already carry a digest (the theme's bundles) are left as they are.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from .engine import LOADER_FILE, LOCK_FILE, OUR_PACKAGES, SNAPSHOT_FILE, engine_path

SCRIPTS = "assets/javascripts"
STYLES = "assets/stylesheets"
NAMED_BY_CONTENT = re.compile(r"\.[0-9a-f]{8,}\.")  # the theme's bundle.a5f9d56c.min.js, and ours once renamed
IMPORT = re.compile(r"""(["'])\./([A-Za-z0-9_-]+\.m?js)\1""")
BUILD_FILES = 'const BUILD_FILES = "./";'
START_BYTES = "const START_BYTES = 0;"
DIGEST_LENGTH = 10


class ContentNameError(RuntimeError):
    """The files to rename are not as this step expects (a cycle of imports, a worker without its line)."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:DIGEST_LENGTH]


def engine_build_dir(site: Path) -> Path:
    """The directory, named by content, of the engine's own build (wheel, lock file, snapshot, loader) in a built site."""
    (found,) = [lock.parent for lock in (site / engine_path()).glob(f"*/{LOCK_FILE}")]
    return found


def name_engine_build(site: Path) -> str:
    """Move the wheel, the lock file, the snapshot and the loader into ``assets/engine/<version>/<digest>/``;
    returns the digest."""
    engine = site / engine_path()
    lock = json.loads((engine / LOCK_FILE).read_text())
    wheels = [lock["packages"][name]["file_name"] for name in sorted(OUR_PACKAGES)]
    files = [LOCK_FILE, SNAPSHOT_FILE, LOADER_FILE, *wheels]
    whole = hashlib.sha256()
    for name in files:
        whole.update(name.encode() + b"\0" + hashlib.sha256((engine / name).read_bytes()).digest())
    name = whole.hexdigest()[:DIGEST_LENGTH]
    target = engine / name
    target.mkdir(exist_ok=True)
    for file in files:
        (engine / file).replace(target / file)
    return name


def start_bytes(site: Path, build: str) -> int:
    """What a start from the snapshot downloads, as the worker counts it: the runtime and the snapshot."""
    engine = site / engine_path()
    return (engine / "pyodide.asm.wasm").stat().st_size + (engine / build / SNAPSHOT_FILE).stat().st_size


def _content_name(file: Path, data: bytes) -> str:
    return f"{file.stem}.{digest(data)}{file.suffix}"


def name_scripts(site: Path, build: str) -> dict[str, str]:
    """Rename our scripts by content, imports first; returns {old path: new path} from the site's root."""
    folder = site / SCRIPTS
    files = sorted(p.name for p in folder.iterdir()
                   if p.is_file() and p.suffix in {".js", ".mjs"} and not NAMED_BY_CONTENT.search(p.name))
    texts = {name: (folder / name).read_text(encoding="utf-8") for name in files}
    workers = [name for name, text in texts.items() if BUILD_FILES in text]
    if len(workers) != 1 or texts[workers[0]].count(BUILD_FILES) != 1:
        raise ContentNameError(f"exactly one script should say {BUILD_FILES!r}: {workers}")
    if texts[workers[0]].count(START_BYTES) != 1:
        raise ContentNameError(f"the worker should say {START_BYTES!r} once")
    texts[workers[0]] = (texts[workers[0]].replace(BUILD_FILES, f'const BUILD_FILES = "./{build}/";')
                         .replace(START_BYTES, f"const START_BYTES = {start_bytes(site, build)};"))
    renamed: dict[str, str] = {}
    while len(renamed) < len(files):
        ready = [name for name in files if name not in renamed
                 and all(m[2] in renamed or m[2] == name or m[2] not in texts for m in IMPORT.finditer(texts[name]))]
        if not ready:
            raise ContentNameError(f"imports in a cycle: {sorted(set(files) - renamed.keys())}")
        for name in ready:
            text = IMPORT.sub(lambda m: f"{m[1]}./{renamed.get(m[2], m[2])}{m[1]}", texts[name])
            data = text.encode()
            renamed[name] = _content_name(folder / name, data)
            (folder / renamed[name]).write_bytes(data)
            (folder / name).unlink()
    return {f"{SCRIPTS}/{old}": f"{SCRIPTS}/{new}" for old, new in renamed.items()}


def name_styles(site: Path) -> dict[str, str]:
    """Rename our stylesheets by content; returns {old path: new path} from the site's root."""
    renamed = {}
    for file in sorted((site / STYLES).glob("*.css")):
        if not NAMED_BY_CONTENT.search(file.name):
            new = file.with_name(_content_name(file, file.read_bytes()))
            file.replace(new)
            renamed[f"{STYLES}/{file.name}"] = f"{STYLES}/{new.name}"
    return renamed


def rewrite_pages(site: Path, renamed: dict[str, str]) -> None:
    """Point every page's references (any relative or absolute form of the path, in an attribute) at the new names."""
    if not renamed:
        return
    reference = re.compile(r'(?<=["/])(' + "|".join(map(re.escape, renamed)) + r')(?=["?#])')
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        rewritten = reference.sub(lambda m: renamed[m[1]], html)
        if rewritten != html:
            page.write_text(rewritten, encoding="utf-8")


def name_by_content(site: Path) -> dict[str, str]:
    """The whole step (see the module docstring); returns {old path: new path} of the renamed scripts and styles."""
    if not (site / engine_path() / LOCK_FILE).is_file():
        raise ContentNameError(f"no engine in {site / engine_path()}")
    build = name_engine_build(site)
    renamed = {**name_scripts(site, build), **name_styles(site)}
    rewrite_pages(site, renamed)
    return renamed

