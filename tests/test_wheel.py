"""The built wheel works on its own: installed into a new venv, away from the source
tree, it migrates a database, serves, publishes the rules texts, serves the browser
client and plays a game over gRPC.

The wheel is built from a copy of the source files (so the checkout gets no build/
or egg-info), installed with pip into a venv made without the project on any path,
and every command runs with a scratch directory as its working directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Run with the venv's interpreter: plays a five-round, three-seat Wizard game of
#: people through the installed client library and prints what it checked.
PLAY = """
import sys
import parlour
from parlour.client import SyncParlourClient

assert parlour.__file__.startswith(sys.prefix), parlour.__file__
address = sys.argv[1]
with SyncParlourClient(address) as client:
    rules = client.get_game("wizard").rules_text
    assert "Wizard" in rules, rules[:200]
    hosted = client.host_table(
        "wizard", 3, options={"rounds": "5"}, host_player_name="Ada", host_takes_seat=True
    )
    table = hosted.table.table_id
    tokens = {hosted.seat: hosted.seat_token}
    for name in ("Bo", "Cy"):
        joined = client.join_table(table, name)
        tokens[joined.seat] = joined.seat_token
    client.start_table(table, hosted.host_token)
    moves = 0
    while True:
        view = client.get_view(table, 0, tokens[0])
        if view.view.is_over:
            break
        seat = view.view.to_act[0]
        mine = client.get_view(table, seat, tokens[seat])
        client.act(table, seat, tokens[seat], mine.view.legal_actions[0].id,
                   expected_version=mine.version)
        moves += 1
print("PLAYED", moves, "WINNERS", list(view.view.winners), "FROM", parlour.__file__)
"""


def _copy_sources(to: Path) -> None:
    """The files a wheel is built from, without caches or build leftovers."""
    to.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, to / name)
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "node_modules")
    for name in ("services", "clients"):
        shutil.copytree(ROOT / name, to / name, ignore=junk)


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(the venv, a scratch working directory) with the wheel and its extras installed."""
    base = tmp_path_factory.mktemp("wheel")
    source, dist, venv, work = base / "src", base / "dist", base / "venv", base / "work"
    work.mkdir()
    _copy_sources(source)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env.pop("VIRTUAL_ENV", None)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    _run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(source)],
        work,
        env,
    )
    wheel = next(dist.glob("parlour-*.whl"))
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], work, env)
    python = venv / "bin" / "python"
    _run([*pip, "--python", str(python), "install", f"{wheel}[service,gateway]"], work, env)
    yield venv, work


def test_the_installed_wheel_migrates_serves_and_plays(installed: tuple[Path, Path]) -> None:
    venv, work = installed
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    env.pop("PARLOUR_DATABASE_URL", None)
    url = f"sqlite:///{work / 'parlour.sqlite3'}"
    parlour = str(venv / "bin" / "parlour")
    migrated = _run([parlour, "migrate", "--database-url", url], work, env)
    assert "up to date" in migrated
    python = str(venv / "bin" / "python")
    missing = subprocess.run(
        [python, "-c", "import textual"], cwd=work, env=env, capture_output=True, check=False
    )
    assert missing.returncode != 0, "the service and gateway extras do not pull in Textual"

    serve = subprocess.Popen(
        [parlour, "serve", "--no-migrate", "--address", "127.0.0.1:0", "--database-url", url],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    gateway: subprocess.Popen[str] | None = None
    try:
        assert serve.stdout is not None
        line = serve.stdout.readline()
        assert "serving on" in line, line + serve.stdout.read()
        address = line.split("serving on ", 1)[1].split()[0]
        played = _run([python, "-c", PLAY, address], work, env)
        assert played.startswith("PLAYED") and f"FROM {venv}" in played, played

        # port 0: the gateway binds first, then says where (a port picked here could be
        # taken by another test's connection before the gateway bound it)
        gateway = subprocess.Popen(
            [parlour, "gateway", "--server", address, "--port", "0"],
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert gateway.stdout is not None
        line = gateway.stdout.readline()
        assert "browser client on " in line, line + gateway.stdout.read()
        page = _get_when_up(line.split("browser client on ", 1)[1].split()[0])
        assert page.status_code == 200 and "Parlour" in page.text
    finally:
        for process in (gateway, serve):
            if process is not None:
                process.terminate()
                process.wait(timeout=20)


def _get_when_up(url: str, timeout: float = 20.0) -> httpx.Response:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            assert time.monotonic() < deadline, f"nothing answered at {url}"
            time.sleep(0.2)
