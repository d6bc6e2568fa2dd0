"""The Node.js example client (clients/node/play.js) against a real `parlour serve`
on Postgres with a real `parlour worker` playing the bots: one full game of each
of the four games, played by legal-action ids from the .proto files alone, with
the watch stream dropped on purpose every few messages and resumed. The client
checks that every version of the log came through its watch and verifies
every deal of the finished game on its own (players' entropy on: each deck
from the seeds, each commitment as announced); this test checks what it
printed against the log folded from the database, and that its check of a
replay (``--check-replay``) names a tampered salt.

Needs Node.js and npm: skipped without them, except under CI=true where their
absence fails. The client's packages are installed with `npm ci` from the
committed package-lock.json when clients/node/node_modules is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from parlour.service.domain.fold import fold
from tests.dblog import DbLog

pytestmark = pytest.mark.postgres

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"
TOKEN = "node-client-test-worker-token"
PARLOUR = [sys.executable, "-m", "parlour.cli"]
#: drop the watch every ten messages (to resume it), a fixed seed, the result as JSON
RUN_FLAGS = ("--drop-every", "10", "--seed", "7", "--json")

#: game -> (extra arguments: small options for a quick full game, the end reason)
GAMES = {
    "wizard": (["--seats", "3", "--option", "rounds=5"], "END_REASON_ROUNDS_PLAYED"),
    "crazy8s": (["--seats", "3"], "END_REASON_ROUNDS_PLAYED"),
    "kaiser": (["--option", "target=32"], None),  # reached, or a side fell to -32
    "hearts": ([], "END_REASON_TARGET_REACHED"),
}


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true needs the Node.js client to run: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def node() -> str:
    """The node binary, with the client's packages installed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _unavailable("Node.js and npm are not installed")
        raise AssertionError("unreachable")
    if not (CLIENT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            _unavailable(f"npm ci failed in {CLIENT}: {done.stderr[-2000:]}")
    return node


def _start(args: list[str], log: Path) -> subprocess.Popen[str]:
    with log.open("w", encoding="utf-8") as handle:
        # the worker token is a secret: processes read it from the environment, never argv
        env = {**os.environ, "PARLOUR_WORKER_TOKEN": TOKEN}
        return subprocess.Popen(
            [*PARLOUR, *args], stdout=handle, stderr=subprocess.STDOUT, text=True, env=env
        )


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


@pytest.fixture
def served(postgres_url: str, tmp_path: Path) -> Iterator[str]:
    """`parlour serve` on the test's Postgres database and one `parlour worker`; the address."""
    log = tmp_path / "serve.log"
    serve = _start(
        [
            "serve",
            "--address",
            "127.0.0.1:0",
            "--database-url",
            postgres_url,
            # the client drops its Watch every 10 updates (--drop-every) and plays as
            # fast as it can: more than a person's default rates from one address
            "--watch-per-minute",
            "1000",
            "--act-per-second",
            "200",
            "--view-per-second",
            "200",
        ],
        log,
    )
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not (found := re.search(r"serving on (\S+)", log.read_text())):
            assert serve.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "parlour serve did not start"
            time.sleep(0.05)
        address = found.group(1)
        worker = _start(
            [
                "worker",
                "--server",
                address,
                "--think-seconds",
                "0",
                "--seed",
                "5",
            ],
            tmp_path / "worker.log",
        )
        yield address
    finally:
        if worker is not None:
            _stop(worker)
        _stop(serve)


def test_the_node_client_plays_a_full_game_of_each_game(
    node: str, served: str, postgres_url: str, tmp_path: Path
) -> None:
    store = DbLog(postgres_url)
    try:
        for game, (extra, end_reason) in GAMES.items():
            done = subprocess.run(
                [node, "play.js", "--server", served, "--game", game, *extra, *RUN_FLAGS],
                cwd=CLIENT,
                capture_output=True,
                text=True,
                timeout=180,
                check=False,
            )
            assert done.returncode == 0, f"{game}: {done.stderr[-3000:]}"
            result = json.loads(done.stdout.strip().splitlines()[-1])
            # every version of the log came through the watch, across the resumes
            assert result["versions_seen"] == result["version"] > 0, result
            assert result["dropped_on_purpose"] >= 1 and result["resumes"] >= 1, result
            assert result["moves"] > 0, result
            # what the client printed is the game the database holds
            state = fold(store.read(result["table_id"])).state
            assert state is not None and state.is_over, game
            assert result["scores"] == list(state.scores()), game
            assert result["winners"] == list(state.winners()), game
            reason = state.end_reason()
            assert reason is not None
            assert result["end_reason"] == f"END_REASON_{reason.name}"
            if end_reason is not None:
                assert result["end_reason"] == end_reason
            last = state.last_hand()
            assert last is not None and result["hands_played"] == last.hand_number
            assert result["last_hand"]["text"] == last.text
            assert game in result["last_hand"], result["last_hand"]
            assert "is over" in done.stdout
            # it verified every deal, each derived from the seeds
            events = store.read(result["table_id"])
            deals = [event for event in events if event.type == "CardsDealt"]
            assert result["deals_verified"] == len(deals) > 0 and result["players_entropy"]
            assert f"{len(deals)} deals verified" in done.stdout
        _check_replay_file(node, events, tmp_path)
    finally:
        store.close()


def _check_replay_file(node: str, events: list[Any], tmp_path: Path) -> None:
    """The client's own deal check on a finished game's replay: whole, then with a salt changed."""

    def run(log: list[Any]) -> subprocess.CompletedProcess[str]:
        replay = {
            "finished": True,
            "events": [
                {"seq": e.seq, "type": e.type, "payload_json": json.dumps(e.payload)} for e in log
            ],
        }
        path = tmp_path / "replay.json"
        path.write_text(json.dumps(replay), encoding="utf-8")
        return subprocess.run(
            [node, "play.js", "--check-replay", str(path)],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    deals = [n for n, event in enumerate(events) if event.type == "CardsDealt"]
    done = run(events)
    assert done.returncode == 0 and f"{len(deals)} deals verified" in done.stdout, done.stderr
    changed = list(events)
    third = deals[min(2, len(deals) - 1)]
    payload = {**events[third].payload, "salt": "0" * 64}
    changed[third] = replace(events[third], payload=payload)
    done = run(changed)
    assert done.returncode == 1
    number = payload["deal"]
    seq = events[third].seq
    assert f"event {seq} (CardsDealt): deal {number}'s deck and salt" in done.stderr
