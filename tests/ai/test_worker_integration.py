"""End to end on real Postgres: a `parlour serve` process, two `parlour worker`
processes and one person (this test, through parlour.client) play a Hearts game
with three bot seats. One worker is killed (SIGKILL) while it holds a bot's turn;
the other finishes that turn once the lease expires, and the game. Then the
event log is checked: it folds cleanly with every digest, and every move the
workers and the person report is exactly one event, at its own version."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from parlour.client import ParlourClient, ParlourError
from parlour.service.domain.fold import Folded
from parlour.service.domain.statuses import EventType
from tests.dblog import DbLog

pytestmark = pytest.mark.postgres

TOKEN = "integration-worker-token"
LEASE_SECONDS = 2.0
PARLOUR = [sys.executable, "-m", "parlour.cli"]
PLAYED = re.compile(r"(\S+) played '([^']+)' at table (\w+) seat (\d+) version (\d+)")
CLAIMED = re.compile(r"(\S+) claimed table (\w+) seat (\d+) version (\d+) \(\w+, (\w+)\)")


@dataclass
class Process:
    popen: subprocess.Popen[str]
    log: Path

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def start(args: list[str], log: Path) -> Process:
    with log.open("w", encoding="utf-8") as handle:  # the child keeps its own copy
        popen = subprocess.Popen(
            [*PARLOUR, *args],
            stdout=handle,
            stderr=subprocess.STDOUT,
            text=True,
            env=dict(os.environ, PARLOUR_WORKER_TOKEN=TOKEN),  # a secret: never in argv
        )
    return Process(popen, log)


def stop(process: Process) -> int:
    if process.popen.poll() is None:
        process.popen.send_signal(signal.SIGTERM)
    try:
        return process.popen.wait(15)
    except subprocess.TimeoutExpired:
        process.popen.kill()
        return process.popen.wait(5)


@pytest.fixture
def server(postgres_url: str, tmp_path: Path) -> Iterator[tuple[str, Process]]:
    """`parlour serve` on the test's Postgres database; (address, process)."""
    serve = start(
        [
            "serve",
            "--address",
            "127.0.0.1:0",
            "--database-url",
            postgres_url,
            "--lease-seconds",
            str(LEASE_SECONDS),
        ],
        tmp_path / "serve.log",
    )
    try:
        deadline = time.monotonic() + 30
        while not (found := re.search(r"serving on (\S+)", serve.text())):
            assert serve.popen.poll() is None, serve.text()
            assert time.monotonic() < deadline, "parlour serve did not start"
            time.sleep(0.05)
        yield found.group(1), serve
    finally:
        stop(serve)


def worker(address: str, name: str, tmp_path: Path, *extra: str) -> Process:
    return start(
        [
            "worker",
            "--server",
            address,
            "--worker-id",
            name,
            "--log-level",
            "DEBUG",
            "--seed",
            "5",
            *extra,
        ],
        tmp_path / f"{name}.log",
    )


async def play_person(client: ParlourClient, table_id: str, seat: int, token: str) -> int:
    """Play the person's seat with random legal moves to the end; the moves made."""
    rng = random.Random(17)
    me = client.seat(table_id, seat, token)
    moves = 0
    async for update in me.watch():
        if update.view.is_over:
            return moves
        if seat not in update.view.to_act:
            continue
        choice = rng.choice(update.view.legal_actions)
        try:
            await me.act(choice.id, expected_version=update.version)
            moves += 1
        except ParlourError as error:  # a bot moved first (Hearts passing): take the next view
            assert error.code == grpc.StatusCode.ABORTED, error
    raise AssertionError("the watch ended before the game did")


async def kill_mid_turn(victim: Process) -> tuple[int, int, float]:
    """SIGKILL the worker as soon as it claims a turn of the play phase, after it
    has played a few: (seat, version) of the turn it held, and when it was claimed."""
    while True:
        text = victim.text()
        if len(PLAYED.findall(text)) >= 3:
            claims = [m for m in CLAIMED.finditer(text) if m.group(5) == "play"]
            last_claim = claims[-1] if claims else None
            if last_claim is not None and last_claim.start() > text.rfind(" played "):
                victim.popen.send_signal(signal.SIGKILL)
                victim.popen.wait(5)
                return int(last_claim.group(3)), int(last_claim.group(4)), time.time()
        assert victim.popen.poll() is None, victim.text()
        await asyncio.sleep(0.01)


async def test_bots_finish_the_game_when_a_worker_is_killed_mid_turn(
    server: tuple[str, Process], postgres_url: str, tmp_path: Path
) -> None:
    address, serve = server
    began = time.monotonic()
    # the slow one thinks half a second a move, so it is killed holding a turn
    slow = worker(address, "slow", tmp_path, "--think-seconds", "0.5")
    quick = worker(address, "quick", tmp_path)
    try:
        async with ParlourClient(address) as client:
            hosted = await client.host_table(
                "hearts",
                4,
                seat_setup=[("person", ""), ("bot", "normal"), ("bot", "hard"), ("bot", "")],
                host_player_name="Ada",
                host_takes_seat=True,
            )
            table_id = hosted.table.table_id
            await client.start_table(table_id, hosted.host_token)
            person = asyncio.create_task(
                play_person(client, table_id, hosted.seat, hosted.seat_token)
            )
            orphan_seat, orphan_version, killed_at = await asyncio.wait_for(kill_mid_turn(slow), 45)
            person_moves = await asyncio.wait_for(person, 60)
        assert stop(quick) == 0, quick.text()
    finally:
        for process in (slow, quick):
            if process.popen.poll() is None:
                process.popen.kill()
    elapsed = time.monotonic() - began
    assert serve.popen.poll() is None, "the server died"
    assert "stopped after playing" in quick.text()

    log = DbLog(postgres_url)
    try:
        events = log.read(table_id)
        assert log.table(table_id)["status"] == "finished"
    finally:
        log.close()

    # the log folds cleanly, every stored digest agreeing with the replayed state
    folded = Folded()
    for event in events:
        folded.apply(event, check_digest=True)
    assert folded.state is not None and folded.state.is_over
    assert events[-1].type == EventType.GAME_FINISHED

    # every move reported (by the workers' logs and the person) is one event at its version
    moves = {event.seq: event for event in events if event.type == EventType.ACTION_TAKEN}
    reported = [
        (int(m.group(5)), int(m.group(4)), m.group(2), m.group(1))
        for process in (slow, quick)
        for m in PLAYED.finditer(process.text())
    ]
    versions = [version for version, *_ in reported]
    assert len(versions) == len(set(versions)), "two workers report the same turn"
    for version, seat, action, _who in reported:
        event = moves[version + 1]
        assert (event.payload["seat"], event.payload["action"]) == (seat, action)
    bot_moves = [event for event in moves.values() if event.payload["seat"] != hosted.seat]
    assert len(reported) == len(bot_moves), "a bot move nobody reports, or one reported twice"
    assert len(moves) == len(bot_moves) + person_moves
    request_ids = [event.request_id for event in moves.values()]
    assert None not in request_ids and len(set(request_ids)) == len(request_ids)

    # the turn the killed worker held was played by the other, once its lease ran out
    taken_over = moves[orphan_version + 1]
    assert taken_over.payload["seat"] == orphan_seat
    assert any(v == orphan_version and who == "quick" for v, _s, _a, who in reported)
    # claimed less than the think time (0.5 s) before the kill, so held until then + lease
    held_for = taken_over.created_at.timestamp() - killed_at
    assert LEASE_SECONDS - 0.6 <= held_for <= LEASE_SECONDS + 2.0, held_for
    assert elapsed < 60, f"the integration game took {elapsed:.1f} s"
    print(
        f"\n{len(moves)} moves ({len(bot_moves)} by bots: slow {len(PLAYED.findall(slow.text()))},"
        f" quick {len(PLAYED.findall(quick.text()))}) in {elapsed:.1f} s;"
        f" the killed worker's turn was taken over {held_for:.2f} s after the kill",
        file=sys.stderr,
    )
