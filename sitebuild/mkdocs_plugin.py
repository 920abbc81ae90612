"""The MkDocs plugin ``calcolatori``: makes ``mkdocs build``, ``serve`` and ``gh-deploy`` build the whole site.

Registered by the project's packaging (``pyproject.toml``, entry point ``mkdocs.plugins``)
and listed in ``mkdocs.yml``. Before the pages it prepares the engine (only when its
sources changed) and, under ``mkdocs serve``, makes the next pages use the edited
calculator modules; after them it runs ``sitebuild.postbuild.finish_site``.
Zensical does not run MkDocs plugins: ``python -m sitebuild.zensical_build`` runs
the same steps around a Zensical build.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.plugins import BasePlugin

from .postbuild import finish_site
from .prepare_engine import ensure_engine, sources_stamp

# Modules that hold what the pages show: reloaded when the calculator's sources change under `serve`.
RELOADED = ("calculator", "sitebuild.markdown_extension")


def forget_calculator_modules() -> int:
    """Drop the calculator package and the Markdown extension from ``sys.modules``; returns how many."""
    names = [name for name in sys.modules if any(name == r or name.startswith(r + ".") for r in RELOADED)]
    for name in names:
        del sys.modules[name]
    return len(names)


class CalcolatoriPlugin(BasePlugin):  # type: ignore[type-arg,no-untyped-call]
    """Engine before the pages, the offline and host files after them."""

    def __init__(self) -> None:
        self.command = "build"
        self.loaded_stamp = ""

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.command = command

    @staticmethod
    def root(config: Any) -> Path:
        """The project: where mkdocs.yml is."""
        return Path(config["config_file_path"]).resolve().parent

    def on_pre_build(self, *, config: Any) -> None:
        root = self.root(config)
        ensure_engine(root)
        stamp = sources_stamp(root)
        if self.loaded_stamp and stamp != self.loaded_stamp:
            forget_calculator_modules()
        self.loaded_stamp = stamp

    def on_serve(self, server: Any, *, config: Any, builder: Any) -> Any:
        server.watch(str(self.root(config) / "calculator"))
        return server

    def on_post_build(self, *, config: Any) -> None:
        finish_site(Path(config["site_dir"]), serving=self.command == "serve")
