"""The AI worker in process: it reads the contract's view as the engine's, plays
whole games of every game through the service, falls back to a game's default
level, rides out a server restart, fails over between addresses, and stops
cleanly when asked (or for good when its token is refused)."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from parlour.ai.worker import Choice, Strategies, Worker, WorkerConfig, WorkerRefused, decide
from parlour.cli.options import worker_token
from parlour.cli.worker import add_arguments
from parlour.contract.view import view_from_proto
from parlour.engine.playout import shuffled
from parlour.engine.registry import all_games, new_game
from parlour.service.bootstrap import Settings, assemble
from parlour.service.domain.statuses import EventType
from parlour.service.grpc import convert as service_convert
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store
from parlour.service.store.protocol import SeatRow, TableRow
from parlour.v1 import bots_pb2, lobby_pb2
from tests.ai.bot_service import TOKEN, BotService, bot_service, bot_table
from tests.dblog import DbLog

#: short games of each kind (Hearts: see test_worker_integration.py)
GAME_OPTIONS: dict[str, tuple[int, dict[str, object]]] = {
    "wizard": (3, {"rounds": 5}),
    "kaiser": (4, {"target": 32}),
    "crazy8s": (3, {}),
}


def _row(game: str, seats: int) -> TableRow:
    return TableRow(
        table_id="t",
        game=game,
        seats=seats,
        options={},
        status="playing",
        host_token_hash="",
        version=1,
        name="",
        seat_rows=tuple(SeatRow(seat, "bot", occupied=True) for seat in range(seats)),
    )


@pytest.mark.parametrize("game", [info.id for info in all_games()])
def test_a_seat_view_reads_back_as_the_engine_view_it_was_sent_from(game: str) -> None:
    rng = random.Random(7)
    short = GAME_OPTIONS.get(game, (0, {}))[1]
    for seats in {info.min_seats for info in all_games() if info.id == game} | {4}:
        state = new_game(game, seats, short)
        row = _row(game, seats)
        while not state.is_over:
            if (cards := state.chance()) is not None:
                state.deal(shuffled(cards, rng))
                continue
            for seat in (*state.to_act(), None):
                sent = state.view(seat)
                assert view_from_proto(service_convert.view(sent, row)) == sent
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        final = state.view(0)
        assert view_from_proto(service_convert.view(final, row)) == final


def test_an_unknown_bot_level_plays_the_games_default_level() -> None:
    strategies = Strategies()
    assert strategies.get("hearts", "grandmaster").name == "hearts/normal"
    assert strategies.get("wizard", "").name == "wizard/normal"
    assert strategies.get("hearts", "hard").name == "hearts/hard"
    assert strategies.get("chess", "normal").name == "chess/random"


def test_a_decision_is_reproduced_from_the_seed() -> None:
    rng = random.Random(3)
    state = new_game("hearts", 4)
    state.deal(shuffled(state.chance() or (), rng))
    seat = state.to_act()[0]
    claim = bots_pb2.ClaimTurnResponse(
        claimed=True, table_id="t", seat=seat, game="hearts", version=9
    )
    claim.view.CopyFrom(service_convert.view(state.view(seat), _row("hearts", 4)))
    strategy = Strategies().get("hearts", "random")
    choices = {decide(strategy, claim, seed=11).text for _ in range(3)}
    assert len(choices) == 1
    others = {decide(strategy, claim, seed=seed).text for seed in range(20)}
    assert len(others) > 1, "the seed does not steer the random choices"
    assert choices <= {str(action) for action in state.legal_actions(seat)}


def config(*servers: str, token: str = TOKEN, **options: object) -> WorkerConfig:
    options = {"wait_seconds": 2.0, "seed": 1, **options}
    return WorkerConfig(servers=servers, worker_token=token, worker_id="w", **options)  # type: ignore[arg-type]


@asynccontextmanager
async def running(worker: Worker) -> AsyncIterator[asyncio.Task[object]]:
    task: asyncio.Task[object] = asyncio.create_task(worker.run())
    try:
        yield task
    finally:
        worker.stop()
        await asyncio.wait_for(task, 10)


async def finished(service: BotService, table_id: str, timeout: float = 30.0) -> int:
    """Wait for the table's game to end; the number of moves played."""

    async def watch() -> None:
        async for update in service.client.watch(table_id):
            if update.view.is_over:
                return

    await asyncio.wait_for(watch(), timeout)
    return sum(event.type == EventType.ACTION_TAKEN for event in service.log.read(table_id))


async def test_a_worker_plays_tables_of_bots_to_the_end(sqlite_url: str) -> None:
    async with bot_service(sqlite_url) as service:
        worker = Worker(config(service.address, concurrency=2))
        async with running(worker):
            tables = [
                await bot_table(service.client, game, seats, options)
                for game, (seats, options) in GAME_OPTIONS.items()
            ]
            moves = [await finished(service, table_id) for table_id in tables]
        assert worker.tally.played == sum(moves)


async def test_the_worker_logs_its_moves_at_debug_only(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="parlour.worker")
    async with bot_service(sqlite_url) as service:
        worker = Worker(config(service.address))
        async with running(worker):
            moves = await finished(service, await bot_table(service.client, "crazy8s", 2))
    played = [r for r in caplog.records if " played " in r.getMessage()]
    assert len(played) == moves > 0
    assert {record.levelno for record in played} == {logging.DEBUG}


async def test_a_bot_of_an_unknown_level_still_plays(sqlite_url: str) -> None:
    async with bot_service(sqlite_url) as service:
        worker = Worker(config(service.address))
        async with running(worker):
            table_id = await bot_table(service.client, "wizard", 3, {"rounds": 5}, level="genius")
            assert await finished(service, table_id) > 0


async def test_a_worker_fails_over_to_the_next_server(sqlite_url: str) -> None:
    async with bot_service(sqlite_url) as service:
        worker = Worker(config("127.0.0.1:9", service.address))  # nothing listens on port 9
        async with running(worker):
            table_id = await bot_table(service.client, "wizard", 3, {"rounds": 5})
            assert await finished(service, table_id) > 0


async def test_a_worker_keeps_playing_across_a_server_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    async with bot_service(url) as service:
        port = service.server.port
        worker = Worker(config(service.address))
        task = asyncio.create_task(worker.run())
        table_id = await bot_table(service.client, "wizard", 4, {"rounds": 5})
        while service.log.last_seq(table_id) < 20:
            await asyncio.sleep(0.02)
    # down for longer than the client's own retries last: the worker backs off and retries
    await asyncio.sleep(1.5)
    store, log = open_store(url), DbLog(url)
    down_at = log.last_seq(table_id)
    notifier = make_notifier(store)
    await notifier.start()
    settings = Settings(address=f"127.0.0.1:{port}", worker_token=TOKEN)
    server = (await assemble(settings, store, notifier)).server
    await server.start()
    try:
        for _ in range(1500):
            if (await store.get_table(table_id)).status == "finished":
                break
            await asyncio.sleep(0.02)
        assert (await store.get_table(table_id)).status == "finished"
        assert log.last_seq(table_id) > down_at
    finally:
        worker.stop()
        await asyncio.wait_for(task, 10)
        await server.stop(0)
        await notifier.stop()
        await store.close()
    assert worker.tally.retries > 0, "the outage went unnoticed"


async def test_a_waiting_worker_stops_at_once_when_asked(sqlite_url: str) -> None:
    async with bot_service(sqlite_url) as service:
        worker = Worker(config(service.address, wait_seconds=30.0))
        task = asyncio.create_task(worker.run())
        await asyncio.sleep(0.5)  # now long-polling for a turn that never comes
        worker.stop()
        tally = await asyncio.wait_for(task, 2.0)
    assert tally.played == 0


class RefusedAtOneTable(Worker):
    """A worker whose bot sends, at one table, a move id the view never listed: the
    server refuses it (INVALID_ARGUMENT), as it would a strategy's bug."""

    poisoned = ""

    async def _decide(self, claim: bots_pb2.ClaimTurnResponse) -> Choice:
        choice = await super()._decide(claim)
        if claim.table_id != self.poisoned:
            return choice
        return Choice(len(claim.view.legal_actions) + 1, "a move never listed", choice.strategy)


async def test_a_move_refused_at_one_table_stops_neither_the_worker_nor_other_tables(
    sqlite_url: str,
) -> None:
    """The refused turn waits longest, so it heads every claim's candidates; the worker
    backs off and plays on, and the server hands it the other table's turns first."""
    async with bot_service(sqlite_url) as service:
        worker = RefusedAtOneTable(config(service.address, max_backoff=0.2))
        async with running(worker) as task:
            worker.poisoned = await bot_table(service.client, "wizard", 3, {"rounds": 5})
            other = await bot_table(service.client, "crazy8s", 2)
            assert await finished(service, other, timeout=60) > 0
            assert not task.done()
            stuck = await service.client.get_table(worker.poisoned)
            assert stuck.status == lobby_pb2.TABLE_STATUS_PLAYING
        assert worker.tally.dropped > 0


async def test_a_worker_with_the_wrong_token_stops_for_good(sqlite_url: str) -> None:
    async with bot_service(sqlite_url) as service:
        worker = Worker(config(service.address, token="wrong"))
        with pytest.raises(WorkerRefused, match="PERMISSION_DENIED"):
            await asyncio.wait_for(worker.run(), 10)


def test_the_worker_command_takes_the_token_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import argparse

    monkeypatch.setenv("PARLOUR_WORKER_TOKEN", "from-the-environment")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--server", "a:1,b:2", "--server", "c:3"])
    assert worker_token(args) == "from-the-environment"
    assert args.server == ["a:1,b:2", "c:3"]
    assert (args.processes, args.expert_budget) == (1, None)
    args = parser.parse_args(["--processes", "3", "--expert-budget", "5000"])
    assert (args.processes, args.expert_budget) == (3, 5000)
    from parlour.cli import build_parser

    cli, _ = build_parser("worker")
    with pytest.raises(SystemExit):  # there is no flag that puts the secret in argv
        cli.parse_args(["worker", "--worker-token", "from-the-command-line"])


def test_the_worker_token_comes_from_a_file_and_must_be_long_enough(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import argparse

    monkeypatch.delenv("PARLOUR_WORKER_TOKEN", raising=False)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    (tmp_path / "token").write_text("a-token-from-a-file-0123\n")
    assert worker_token(parser.parse_args(["--worker-token-file", str(tmp_path / "token")])) == (
        "a-token-from-a-file-0123"
    )
    monkeypatch.setenv("PARLOUR_WORKER_TOKEN", "short")
    with pytest.raises(SystemExit, match="at least 16 characters"):
        worker_token(parser.parse_args([]))


def test_compose_gives_the_servers_and_the_workers_one_worker_token() -> None:
    import yaml

    compose = yaml.safe_load((Path(__file__).parents[2] / "docker-compose.yml").read_text())
    services = compose["services"]
    tokens = {
        name: services[name]["environment"]["PARLOUR_WORKER_TOKEN"]
        for name in ("game-1", "game-2", "worker")
    }
    assert len(set(tokens.values())) == 1 and all(tokens.values()), tokens
    assert services["worker"]["command"][:2] == ["parlour", "worker"]


async def test_decisions_in_spawned_processes_play_tables_to_the_end(sqlite_url: str) -> None:
    async with bot_service(sqlite_url) as service:
        worker = Worker(config(service.address, concurrency=2, processes=2))
        async with running(worker):
            table_id = await bot_table(service.client, "wizard", 3, {"rounds": 5}, level="expert")
            assert await finished(service, table_id, timeout=60) > 0
        assert worker.tally.played > 0


def _slow(seconds: float) -> float:
    import time

    time.sleep(seconds)
    return seconds


async def test_a_slow_decision_leaves_the_event_loop_free() -> None:
    from parlour.ai.worker import decision_pool

    for processes in (0, 1):
        pool = decision_pool(processes)
        try:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(pool, _slow, 0.0)  # the process is up
            slow = loop.run_in_executor(pool, _slow, 1.0)
            ticks = 0
            while not slow.done():
                await asyncio.sleep(0.01)
                ticks += 1
            assert ticks >= 20, f"the loop ran only {ticks} times in a 1 s decision"
        finally:
            pool.shutdown()


def test_a_decision_process_ends_when_its_worker_is_killed_outright() -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import os, time\n"
        "from parlour.ai.worker import decision_pool\n"
        "pool = decision_pool(1)\n"
        "print(pool.submit(os.getpid).result(), flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(child, signal.SIGKILL)
    raise AssertionError("the decision process outlived its killed worker")


def test_a_bot_paces_its_moves_less_the_thinking_and_draws_quicker() -> None:
    from parlour.ai.worker import DRAW_PACE, pause_seconds
    from parlour.v1 import bots_pb2, common_pb2

    claim = bots_pb2.ClaimTurnResponse()
    claim.view.legal_actions.add(id=1, action=common_pb2.Action(kind=common_pb2.ACTION_KIND_PLAY))
    claim.view.legal_actions.add(id=2, action=common_pb2.Action(kind=common_pb2.ACTION_KIND_DRAW))
    assert pause_seconds(claim, 1, 0.8, 0.0) == 0.8
    assert pause_seconds(claim, 1, 0.8, 0.3) == 0.8 - 0.3  # the decision's time counts
    assert pause_seconds(claim, 1, 0.8, 2.0) == 0.0
    assert pause_seconds(claim, 2, 0.8, 0.0) == 0.8 * DRAW_PACE  # a draw: still seen, shorter
    assert pause_seconds(claim, 1, 0.0, 0.0) == 0.0
