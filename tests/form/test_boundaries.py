"""The three rooms of the package: the form framework knows no LLM, the domain library knows no form."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "calculator"
# room → rooms it must not import
FORBIDDEN = {"form": {"llm", "pages"}, "llm": {"form", "pages"}, "pages": set()}


def imported_rooms(module: Path, source: str | None = None) -> set[str]:
    """The subpackages of ``calculator`` a module imports, absolutely or relatively."""
    package = ["calculator", *module.relative_to(PACKAGE).parts[:-1]]
    text = module.read_text(encoding="utf-8") if source is None else source
    rooms = set()
    for node in ast.walk(ast.parse(text)):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package[: len(package) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "calculator" and len(parts) > 1 and parts[1] in FORBIDDEN:
                rooms.add(parts[1])
    return rooms


@pytest.mark.parametrize("room", sorted(FORBIDDEN))
def test_rooms_import_only_what_they_may(room: str) -> None:
    modules = sorted((PACKAGE / room).rglob("*.py"))
    assert modules, room
    crossing = {str(m.relative_to(PACKAGE)): sorted(imported_rooms(m) & FORBIDDEN[room]) for m in modules}
    assert {name: rooms for name, rooms in crossing.items() if rooms} == {}


@pytest.mark.parametrize("text", ["from ..llm.catalogue import MODELS", "from .. import pages",
                                  "import calculator.pages.vram", "from calculator.llm import units"])
def test_the_check_sees_a_crossing(text: str) -> None:
    """The rule can fail: a form module importing the domain or a page is caught, relatively or absolutely."""
    assert imported_rooms(PACKAGE / "form" / "model.py", text) & FORBIDDEN["form"]
    assert imported_rooms(PACKAGE / "form" / "model.py", "from .numbers import format_integer") == {"form"}


def test_package_root_holds_only_the_three_rooms() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    rooms = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert (loose, rooms) == ([], ["form", "llm", "pages"])
