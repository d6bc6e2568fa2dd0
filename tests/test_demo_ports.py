"""`make run` (parlour demo) and `parlour serve` on a busy port: they fail at once,
before saying anything is running, with the cause and the flag that moves the port."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port something is listening on."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield int(listener.getsockname()[1])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def parlour(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "parlour.cli", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done, time.monotonic() - began


@pytest.mark.parametrize("which", ["game service", "browser"])
def test_demo_on_a_busy_port_fails_at_once_naming_the_cause_and_the_flag(
    tmp_path: Path, busy_port: int, which: str
) -> None:
    game_port, web_port = (
        (busy_port, free_port())
        if which == "game service"
        else (
            free_port(),
            busy_port,
        )
    )
    done, seconds = parlour(
        tmp_path,
        "demo",
        "--address",
        f"127.0.0.1:{game_port}",
        "--web-port",
        str(web_port),
        "--database-url",
        f"sqlite:///{tmp_path / 'demo.sqlite3'}",
    )
    assert done.returncode == 2
    assert "running" not in done.stdout, done.stdout
    flag = "--address" if which == "game service" else "--web-port"
    assert f"127.0.0.1:{busy_port} (Address already in use)" in done.stderr, done.stderr
    assert flag in done.stderr, done.stderr
    assert seconds < 15  # (the interpreter's start-up; no process was started)
    assert not (tmp_path / "build").exists(), "nothing was started"


def test_serve_on_a_busy_port_says_so_without_a_traceback(tmp_path: Path, busy_port: int) -> None:
    done, _ = parlour(
        tmp_path,
        "serve",
        "--address",
        f"127.0.0.1:{busy_port}",
        "--database-url",
        f"sqlite:///{tmp_path / 'serve.sqlite3'}",
    )
    assert done.returncode == 2
    assert "Address already in use" in done.stderr and "--address" in done.stderr
    assert "Traceback" not in done.stderr
