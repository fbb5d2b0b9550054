"""The arrows of docs/design.md, read from the code: every import of every module (at its top
or inside a function; Cython's cimports too) goes down the rooms, never up, and no modules
import each other in a circle."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("features", "classifiers", "parser", "polyparse")
CIMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+cimport|cimport\s+([\w.]+))", re.M)
# Room -> the rooms it must never import (their modules' names, under polyparse.).
NEVER = {
    "features": ("classifiers", "parser", "polyparse.dependency", "polyparse.japanese"),
    "classifiers": ("parser",),
    "parser.formats": ("parser.cli", "parser.pipeline", "parser.dependency", "parser.bunsetsu",
                       "parser.tagging", "parser.tokenize", "parser.segmentation",
                       "parser.scale_out", "parser.srl", "parser.views"),
    "parser.scale_out": ("parser.cli", "parser.pipeline"),
    "parser.dependency": ("parser.cli", "parser.pipeline"),
    "parser.bunsetsu": ("parser.cli", "parser.pipeline"),
    "parser.tagging": ("parser.cli", "parser.pipeline"),
    "parser.tokenize": ("parser.cli", "parser.pipeline"),
    "parser.segmentation": ("parser.cli", "parser.pipeline"),
    "parser.pipeline": ("parser.cli",),
    "parser.models": ("parser.cli", "parser.pipeline"),
}


def module_name(path: Path) -> str:
    """The module a file is, under polyparse (polyparse.parser.cli.dep)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts if parts[0] == "polyparse" else ("polyparse", *parts))


def sources() -> dict[str, Path]:
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".pyx", ".pxd") and "__pycache__" not in path.parts:
                found.setdefault(module_name(path), path)
    return found


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The modules of the package that path imports (a name imported from a package counts
    as its module when it is one)."""
    text = path.read_text(encoding="utf-8")
    named: set[str] = set()
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named.add(node.module)
                named.update(f"{node.module}.{alias.name}" for alias in node.names)
    else:
        named.update(m[0] or m[1] for m in CIMPORT.findall(text))
        named.update(re.findall(r"^\s*from\s+(polyparse[\w.]*)\s+import", text, re.M))
    return {name for name in named if name in modules}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    found = sources()
    modules = set(found)
    return {name: imports_of(path, modules) - {name} for name, path in found.items()}


def test_no_room_imports_a_room_above_it(graph: dict[str, set[str]]) -> None:
    broken = []
    for module, imported in graph.items():
        for room, never in NEVER.items():
            if module.startswith(f"polyparse.{room}"):
                broken += [f"{module} -> {other}" for other in imported
                           if any(other.startswith(f"polyparse.{n}") for n in never)]
    assert broken == []


def test_the_library_never_imports_the_command_line(graph: dict[str, set[str]]) -> None:
    assert [f"{m} -> {o}" for m, imported in graph.items() for o in imported
            if o.startswith("polyparse.parser.cli") and not m.startswith("polyparse.parser.cli")
            and not m.startswith("polyparse.parser.cli")] == []


def test_no_modules_import_each_other_in_a_circle(graph: dict[str, set[str]]) -> None:
    """Tarjan's strongly connected components over the import graph: every component is one
    module (a package and its own modules are not a circle: a package's __init__ may name
    them, which imports nothing of theirs)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph.get(module, ())):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    assert circles == []
