"""The import boundaries: each folder is a layer, and each layer a rule.

Every module under ``services/`` and ``clients/`` belongs to exactly one
layer below (the longest matching folder), and may import from ``parlour``
only the prefixes its layer allows, and none of the third-party packages its
layer forbids. Imports are read with ``ast``, so those under
``TYPE_CHECKING`` and inside functions count too. A second test computes the
import graph of the whole package and fails on any cycle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: where each package's files live (pyproject's package-dir)
PACKAGE_DIRS = {
    "parlour": ROOT / "services/parlour",
    "parlour.client": ROOT / "clients/client",
    "parlour.tui": ROOT / "clients/tui",
    "parlour.web": ROOT / "clients/web",
}

#: the engine's pure values that bots and clients' helpers may use (never a game's state)
ENGINE_VALUES = (
    "parlour.engine.cards",
    "parlour.engine.actions",
    "parlour.engine.view",
    "parlour.engine.trick",
    "parlour.engine.results",
    "parlour.engine.options",
    "parlour.engine.errors",
)
#: the phrasebook said of an engine action (the one adapter between the two)
SAID = ("parlour.action_words",)
DRIVERS = ("sqlalchemy", "alembic", "psycopg", "psycopg_pool", "nats")
EDGE = ("grpc", "grpc_health", "grpc_reflection", "google.protobuf", "parlour.v1")
UI = ("textual", "starlette", "uvicorn")


@dataclass(frozen=True)
class Layer:
    """A folder's rule: the ``parlour`` modules it may import, the packages it may not."""

    folder: str
    may_import: tuple[str, ...]
    must_not_import: tuple[str, ...] = ()


LAYERS = (
    Layer("parlour.engine", ("parlour.engine",), (*DRIVERS, *EDGE, *UI)),
    Layer("parlour.words", ("parlour.words",), (*DRIVERS, *EDGE, *UI)),
    Layer("parlour.action_words", ("parlour.engine.actions", "parlour.words"), (*DRIVERS, *EDGE)),
    Layer("parlour.v1", ("parlour.v1",)),
    Layer(
        "parlour.contract",
        (
            "parlour.contract",
            "parlour.engine",
            "parlour.v1",
            "parlour.words",
            *SAID,
        ),
        (*DRIVERS, *UI),
    ),
    Layer(
        "parlour.service.domain",
        # the store's record values (StoredEvent, NewEvent, TurnRow), never a store
        (
            "parlour.service.domain",
            "parlour.service.store.protocol",
            "parlour.engine",
            "parlour.words",
            *SAID,
        ),
        (*DRIVERS, *EDGE, *UI),
    ),
    Layer(
        "parlour.service.app",
        (
            "parlour.service.app",
            "parlour.service.domain",
            "parlour.service.store.protocol",
            "parlour.engine",
            "parlour.words",
        ),
        (*DRIVERS, *EDGE, *UI),
    ),
    Layer(
        "parlour.service.store",
        ("parlour.service.store", "parlour.service.domain"),
        (*EDGE, *UI),
    ),
    Layer(
        "parlour.service.notify",
        ("parlour.service.store", "parlour.service.domain", "parlour.service.app.metrics"),
        (*EDGE, *UI),
    ),
    Layer(
        "parlour.service.grpc",
        ("parlour.service", "parlour.engine", "parlour.contract", "parlour.v1", "parlour.words"),
        (*DRIVERS, *UI),
    ),
    # the composition root wires the service's layers together (the CLI calls it)
    Layer(
        "parlour.service.bootstrap",
        ("parlour.service", "parlour.engine", "parlour.v1"),
        UI,
    ),
    Layer(
        "parlour.replay",
        (
            "parlour.replay",
            *SAID,
            "parlour.engine",
            "parlour.service.domain",
            "parlour.service.store",
            "parlour.service.app.auth",
            "parlour.words",
        ),
        (*EDGE, *UI),
    ),
    Layer(
        "parlour.ai",
        ("parlour.ai", *ENGINE_VALUES, "parlour.contract", "parlour.v1", "parlour.client"),
        (*DRIVERS, *UI),
    ),
    # the evaluation referees games between strategies, so it holds the engines' states
    Layer("parlour.ai.eval", ("parlour.ai", "parlour.engine"), (*DRIVERS, *EDGE, *UI)),
    Layer("parlour.gateway", ("parlour.gateway", "parlour.v1", "parlour.web"), DRIVERS),
    Layer("parlour.migrations", ("parlour.service.store",), (*EDGE, *UI)),
    # the commands wire the layers together, so they may import any of them
    Layer("parlour.cli", ("parlour",)),
    Layer("parlour.client", ("parlour.client", "parlour.v1"), (*DRIVERS, *UI)),
    # the terminal says its words from the phrasebook, a layer that imports nothing but
    # itself (catalogues and formatting), as the browser says them from i18n/*.js
    Layer("parlour.tui", ("parlour.tui", "parlour.client", "parlour.v1", "parlour.words"), DRIVERS),
    Layer("parlour", ()),  # the package's own __init__
)


def module_name(path: Path) -> str:
    """The dotted name of a file under one of the package folders."""
    package, folder = max(
        ((name, d) for name, d in PACKAGE_DIRS.items() if path.is_relative_to(d)),
        key=lambda item: len(item[1].parts),
    )
    parts = list(path.relative_to(folder).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def all_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder in ("services", "clients"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" not in path.parts:
                found[module_name(path)] = path
    return found


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def imported_modules(path: Path, name: str | None = None) -> list[tuple[int, str]]:
    """Every module ``path`` imports (relative imports resolved against ``name``),
    with ``from m import x`` also giving ``m.x`` (it may be a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                assert name is not None, f"{path}: a relative import needs the module's name"
                base = name.split(".")
                keep = len(base) - node.level + (1 if is_package(path) else 0)
                module = ".".join(base[:keep] + ([module] if module else []))
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def layer_of(module: str) -> Layer:
    matching = [
        layer for layer in LAYERS if module == layer.folder or module.startswith(layer.folder + ".")
    ]
    return max(matching, key=lambda layer: len(layer.folder))


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def imports_of(path: Path, name: str, modules: dict[str, Path]) -> list[tuple[int, str]]:
    """The modules ``path`` imports: ``from p import m`` counts as ``p.m`` where that
    is a module, and as ``p`` only where it imports from ``p`` a name that is not."""
    found = imported_modules(path, name)
    known = set(modules) | set(all_modules())
    result = []
    for lineno, imported in found:
        children = [m for n, m in found if n == lineno and m.startswith(imported + ".")]
        if children and all(m in known for m in children):
            continue
        result.append((lineno, imported))
    return result


def violations(modules: dict[str, Path]) -> list[str]:
    bad = []
    for name, path in modules.items():
        layer = layer_of(name)
        for lineno, imported in imports_of(path, name, modules):
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            where = f"{shown}:{lineno} ({layer.folder}) imports {imported}"
            if imported.startswith("parlour"):
                if imported != "parlour" and not within(imported, layer.may_import):
                    bad.append(where)
            elif within(imported, layer.must_not_import):
                bad.append(where)
    return sorted(set(bad))


def test_every_module_is_in_exactly_one_layer() -> None:
    modules = all_modules()
    assert len(modules) > 100
    for name in modules:
        assert layer_of(name) is not None, name
    # a layer whose folder holds no module is a rule about nothing
    folders = {layer_of(name).folder for name in modules}
    assert folders == {layer.folder for layer in LAYERS}


def test_each_layer_imports_only_what_its_rule_allows() -> None:
    assert violations(all_modules()) == []


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    app = ROOT / "services/parlour/service/app"
    module = tmp_path / "bad.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "import grpc\n"
        "if TYPE_CHECKING:\n"
        "    from parlour.service.store import postgres\n"
        "def f():\n"
        "    from parlour.ai import common\n"
    )
    bad = violations({"parlour.service.app.bad": module})
    assert [line.rsplit(" ", 1)[1] for line in bad] == [
        "grpc",
        "parlour.service.store.postgres",
        "parlour.ai.common",
    ]
    assert app.is_dir()


def test_relative_imports_are_resolved(tmp_path: Path) -> None:
    package = tmp_path / "__init__.py"
    package.write_text("from .app import ParlourApp\nfrom . import moves\n")
    names = [m for _, m in imported_modules(package, "parlour.tui")]
    assert names == [
        "parlour.tui.app",
        "parlour.tui.app.ParlourApp",
        "parlour.tui",
        "parlour.tui.moves",
    ]
    module = tmp_path / "table.py"
    module.write_text("from ..client import sync\n")
    assert [m for _, m in imported_modules(module, "parlour.tui.table")] == [
        "parlour.client",
        "parlour.client.sync",
    ]


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports (a name's module, or its package)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for _, imported in imports_of(path, name, modules):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                edges.add(imported)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_has_no_cycle() -> None:
    assert cycles(import_graph(all_modules())) == []


def test_the_cycle_check_finds_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_domain_and_application_load_no_driver_nor_edge() -> None:
    """Importing them does not drag a driver or gRPC in through another module."""
    modules = [
        name
        for name in all_modules()
        if within(name, ("parlour.service.domain", "parlour.service.app"))
    ]
    top_level = sorted({name.split(".")[0] for name in (*DRIVERS, *EDGE[:-1])})
    probe = (
        f"import sys, {', '.join(modules)}; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({top_level!r})))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"
