"""The import-boundary check: layers import only what the design allows.

import-linter cannot see the client packages (they live under clients/ but
belong to the ``parlour`` package), so this test reads every module's imports
with ``ast`` instead. It runs in ``make test``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# layer folder -> module prefixes it must never import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "services/parlour/engine": (
        "parlour.service",
        "parlour.ai",
        "parlour.client",
        "parlour.tui",
        "parlour.v1",
        "parlour.gateway",
        "parlour.cli",
        "grpc",
        "sqlalchemy",
    ),
    "services/parlour/service": ("parlour.ai", "parlour.client", "parlour.tui"),
    "services/parlour/gateway": ("parlour.ai", "parlour.tui", "parlour.engine"),
    "services/parlour/ai": (
        "parlour.service",
        "parlour.tui",
        "parlour.gateway",
        # bots may use the pure card model, actions and view types, never game state
        "parlour.engine.base",
        "parlour.engine.registry",
        "parlour.engine.playout",
        "parlour.engine.wizard",
        "parlour.engine.crazy8s",
        "parlour.engine.kaiser",
        "parlour.engine.hearts",
    ),
    "clients/client": ("parlour.engine", "parlour.service", "parlour.ai", "parlour.gateway"),
    "clients/tui": ("parlour.engine", "parlour.service", "parlour.ai", "parlour.gateway"),
}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def violations(layer: str, forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        for lineno, module in imported_modules(path):
            for prefix in forbidden:
                if module == prefix or module.startswith(prefix + "."):
                    bad.append(f"{path.relative_to(ROOT)}:{lineno} imports {module}")
    return bad


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_what_the_design_allows(layer: str) -> None:
    assert violations(layer, FORBIDDEN[layer]) == []


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text("from parlour.service import app\nimport grpc\n")
    assert [m for _, m in imported_modules(module)] == [
        "parlour.service",
        "parlour.service.app",
        "grpc",
    ]


def test_the_phrasebook_imports_nothing_of_parlour() -> None:
    # services/parlour/words.py is shared by the service and the clients, so it stands alone
    path = ROOT / "services/parlour/words.py"
    assert [m for _, m in imported_modules(path) if m.startswith("parlour")] == []


#: the service's domain and application modules: no gRPC, no database driver, no
#: contract messages (the gRPC edge is grpc_server.py and convert.py; the drivers
#: are behind store.py's protocol, in store_pg.py, store_sqlite.py and database.py)
DOMAIN_AND_APPLICATION = (
    "domain",
    "events",
    "errors",
    "fold",
    "upcast",
    "store",
    "seating",
    "auth",
    "app",
    "bots",
    "replay_log",
    "clock",
    "sweeper",
)
DRIVERS_AND_EDGE = ("grpc", "sqlalchemy", "psycopg", "psycopg_pool", "google.protobuf")


@pytest.mark.parametrize("module", DOMAIN_AND_APPLICATION)
def test_domain_and_application_import_no_grpc_nor_database_driver(module: str) -> None:
    path = ROOT / "services" / "parlour" / "service" / f"{module}.py"
    forbidden = (*DRIVERS_AND_EDGE, "parlour.v1", "parlour.service.grpc_server")
    forbidden += ("parlour.service.convert", "parlour.service.notify")
    forbidden += ("parlour.service.database", "parlour.service.store_pg")
    forbidden += ("parlour.service.store_sqlite",)
    bad = [
        f"{module}.py:{lineno} imports {name}"
        for lineno, name in imported_modules(path)
        for prefix in forbidden
        if name == prefix or name.startswith(prefix + ".")
    ]
    assert bad == []


def test_nor_do_they_load_one_through_their_own_imports() -> None:
    import subprocess
    import sys

    modules = ", ".join(f"parlour.service.{module}" for module in DOMAIN_AND_APPLICATION)
    top_level = {name.split(".")[0] for name in DRIVERS_AND_EDGE}
    probe = (
        f"import sys, {modules}; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {top_level!r}))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"
