"""The contract's own checks: the committed generated code matches the .proto
files, and ``buf lint`` (STANDARD + COMMENTS) passes."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from parlour.v1 import catalogue_pb2, lobby_pb2, play_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"
GENERATED = ROOT / "services" / "parlour" / "v1"
BIN = Path(sys.executable).parent

# Lines that only record which tool versions generated the code.
VERSION_STAMPS = re.compile(
    r"^(# Protobuf Python Version:.*"
    r"|\s*\d+,\s*$"
    r"|GRPC_GENERATED_VERSION = .*)$",
    re.MULTILINE,
)


def generate(into: Path) -> None:
    """Run the same protoc command as ``make proto``."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{PROTO}",
            f"--python_out={into}",
            f"--grpc_python_out={into}",
            f"--mypy_out={into}",
            f"--mypy_grpc_out={into}",
            *sorted(str(path) for path in (PROTO / "parlour" / "v1").glob("*.proto")),
        ],
        check=True,
        capture_output=True,
        env=env,
    )


def normalized(path: Path) -> str:
    return VERSION_STAMPS.sub("", path.read_text(encoding="utf-8"))


def test_committed_generated_code_matches_the_proto_files(tmp_path: Path) -> None:
    generate(tmp_path)
    fresh_dir = tmp_path / "parlour" / "v1"
    fresh = sorted(path.name for path in fresh_dir.iterdir())
    committed = sorted(path.name for path in GENERATED.iterdir() if path.suffix in (".py", ".pyi"))
    assert committed == sorted([*fresh, "__init__.py"]), "run `make proto`"
    stale = [name for name in fresh if normalized(fresh_dir / name) != normalized(GENERATED / name)]
    assert stale == [], f"generated code is stale, run `make proto`: {stale}"


def test_the_staleness_check_notices_a_changed_proto(tmp_path: Path) -> None:
    changed = tmp_path / "proto"
    shutil.copytree(PROTO, changed)
    lobby = changed / "parlour" / "v1" / "lobby.proto"
    lobby.write_text(lobby.read_text().replace("string name = 3;", "string title = 3;", 1))
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{changed}",
            f"--python_out={out}",
            str(lobby),
            str(changed / "parlour" / "v1" / "common.proto"),
        ],
        check=True,
        capture_output=True,
        env=env,
    )
    assert not filecmp.cmp(out / "parlour" / "v1" / "lobby_pb2.py", GENERATED / "lobby_pb2.py")
    assert normalized(out / "parlour" / "v1" / "lobby_pb2.py") != normalized(
        GENERATED / "lobby_pb2.py"
    )


def test_buf_lint_passes() -> None:
    buf = shutil.which("buf", path=str(BIN)) or shutil.which("buf")
    if buf is None:
        pytest.fail("buf is not installed (pip install buf-bin: it is in the test extras)")
    result = subprocess.run(
        [buf, "lint", str(PROTO)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_service_is_in_package_parlour_v1() -> None:
    services = {
        service.full_name
        for module in (catalogue_pb2, lobby_pb2, play_pb2)
        for service in module.DESCRIPTOR.services_by_name.values()
    }
    assert services == {
        "parlour.v1.CatalogueService",
        "parlour.v1.LobbyService",
        "parlour.v1.PlayService",
    }
