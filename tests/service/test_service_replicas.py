"""Several replicas on one Postgres database: any replica serves any table.

Two ``parlour serve`` processes share a database; a game's moves alternate
between them, a Watch stream on one sees the moves made on the other, a
client whose replica dies resumes its watch on the other and misses nothing.
Races and resent requests are checked against two in-process servers with
separate caches.

The tests of a watch across replicas run with each notifier adapter
(``--notify``): local (in process: the other replica's moves arrive only at the
periodic catch-up, here every half second), postgres (LISTEN/NOTIFY) and nats
(the machine's NATS server); with the last two the catch-up stays at its 15 s,
so a watch that keeps up was woken by the adapter. A NATS server of the test's
own is stopped mid-game and started again: every watcher catches up, no move
lost or doubled.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import grpc
import pytest

from parlour.client import ParlourClient, ParlourError, RetryPolicy
from parlour.service.bootstrap import Settings, assemble
from parlour.service.domain.fold import Folded
from parlour.service.domain.statuses import EventType
from parlour.service.grpc.server import GrpcServer
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.v1 import play_pb2
from tests.dblog import DbLog
from tests.service.harness import Table, seated_table
from tests.service.natsd import NatsServer, own_nats_server, system_nats_url

pytestmark = pytest.mark.postgres


@dataclass(frozen=True)
class Adapter:
    """A notifier as ``parlour serve`` is given it: --notify and --catch-up-seconds."""

    notify: str
    catch_up_seconds: float | None = None

    def arguments(self) -> list[str]:
        found = ["--notify", self.notify]
        if self.catch_up_seconds is not None:
            found += ["--catch-up-seconds", str(self.catch_up_seconds)]
        return found


@pytest.fixture(params=["local", "postgres", "nats"])
def adapter(request: pytest.FixtureRequest) -> Adapter:
    if request.param == "nats":
        return Adapter(system_nats_url())
    if request.param == "local":  # the replicas hear each other only at the catch-up
        return Adapter("local", catch_up_seconds=0.5)
    return Adapter(request.param)


@pytest.fixture
def own_nats() -> Iterator[NatsServer]:
    yield from own_nats_server()


@contextmanager
def replica(
    url: str, log: Path, *, migrate: bool, adapter: Adapter | None = None
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A ``parlour serve`` process on a free port: (process, address)."""
    command = [sys.executable, "-m", "parlour.cli", "serve", "--address", "127.0.0.1:0"]
    command += ["--database-url", url, *([] if migrate else ["--no-migrate"])]
    command += adapter.arguments() if adapter is not None else []
    with log.open("w") as errors:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=errors, text=True, env=dict(os.environ)
        )
    try:
        address = _announced_address(process)
        yield process, address
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _announced_address(process: subprocess.Popen[str]) -> str:
    found: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if "serving on" in line:
                found.append(line.split("serving on", 1)[1].split()[0])
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=60)
    if not found:
        process.kill()
        raise AssertionError("parlour serve did not announce its address")
    return found[0]


def hand_over(table: Table, clients: list[ParlourClient]) -> Table:
    """The same seats, each seat's calls going to the replica of its own client."""
    seats = [
        clients[seat.seat % len(clients)].seat(table.table_id, seat.seat, seat.token)
        for seat in table.seats
    ]
    return Table(table.table_id, table.host_token, seats)


async def collect(updates: AsyncIterator[play_pb2.WatchResponse]) -> list[play_pb2.WatchResponse]:
    return [update async for update in updates]


def versions_seen(updates: list[play_pb2.WatchResponse]) -> list[int]:
    return [event.version for update in updates for event in update.events]


async def play_alternating(table: Table, rng: random.Random) -> int:
    """Play to the end, each move through the acting seat's replica; the number of moves."""
    moves = 0
    view = await table.seats[0].view()
    to_act = list(view.view.to_act)
    while to_act:
        seat = table.seats[to_act[0]]
        current = await seat.view()
        choice = rng.choice(current.view.legal_actions)
        done = await seat.act(choice.id, expected_version=current.version)
        to_act = list(done.view.to_act)
        moves += 1
    return moves


async def test_two_replica_processes_serve_one_game_and_a_watch_sees_both(
    postgres_url: str, tmp_path: Path, adapter: Adapter
) -> None:
    with (
        replica(postgres_url, tmp_path / "one.log", migrate=True, adapter=adapter) as (_, one),
        replica(postgres_url, tmp_path / "two.log", migrate=False, adapter=adapter) as (_, two),
    ):
        async with ParlourClient(one) as first, ParlourClient(two) as second:
            table = await seated_table(first, "crazy8s", 4)
            watching = asyncio.create_task(collect(second.watch(table.table_id)))
            moves = await play_alternating(hand_over(table, [first, second]), random.Random(5))
            # Well within the watch's 15 s catch-up: woken by the other replica's NOTIFY
            # or NATS message (the local adapter re-reads every half second).
            updates = await asyncio.wait_for(watching, timeout=10)

            last = (await first.get_table(table.table_id)).version
            assert moves > 4
            assert versions_seen(updates) == list(range(1, last + 1))
            assert updates[-1].version == last and updates[-1].view.is_over
            assert all(not update.view.hand for update in updates)  # a spectator's view
            final = await second.get_view(table.table_id)
            assert final.version == last and final.view.is_over


async def test_a_watch_resumes_on_another_replica_when_its_replica_dies(
    postgres_url: str, tmp_path: Path, adapter: Adapter
) -> None:
    with (
        replica(postgres_url, tmp_path / "one.log", migrate=True, adapter=adapter) as (
            doomed,
            one,
        ),
        replica(postgres_url, tmp_path / "two.log", migrate=False, adapter=adapter) as (_, two),
    ):
        retry = RetryPolicy(attempts=20, initial_backoff=0.05, max_backoff=0.5)
        async with (
            ParlourClient(two) as player_client,
            ParlourClient([one, two], retry=retry) as watcher,
        ):
            table = await seated_table(player_client, "kaiser", 4)
            seat = table.seats[0]
            updates: list[play_pb2.WatchResponse] = []
            stream = watcher.watch(table.table_id, seat.seat, seat.token)
            rng = random.Random(6)

            async def move_once() -> None:
                view = await table.seats[0].view()
                mover = table.seats[view.view.to_act[0]]
                current = await mover.view()
                choice = rng.choice(current.view.legal_actions)
                await mover.act(choice.id, expected_version=current.version)

            updates.append(await anext(stream))
            assert watcher.address == one
            for _ in range(3):
                await move_once()
                updates.append(await anext(stream))
            doomed.kill()
            doomed.wait()
            for _ in range(5):
                await move_once()
            target = (await player_client.get_table(table.table_id)).version
            while updates[-1].version < target:
                updates.append(await asyncio.wait_for(anext(stream), timeout=5))
            await stream.aclose()

            assert watcher.address == two
            assert versions_seen(updates) == list(range(1, target + 1))
            assert all(update.view.seat == seat.seat for update in updates)


@asynccontextmanager
async def two_servers(
    url: str, adapter: Adapter | None = None
) -> AsyncIterator[tuple[ParlourClient, ParlourClient, DbLog]]:
    """Two in-process replicas (separate caches, separate stores) on one database."""
    async with two_replicas(url, adapter) as (clients, _, log):
        yield clients[0], clients[1], log


@asynccontextmanager
async def two_replicas(
    url: str, adapter: Adapter | None = None
) -> AsyncIterator[tuple[list[ParlourClient], list[GrpcServer], DbLog]]:
    upgrade_head(url)
    stores = [open_store(url), open_store(url)]
    notify = adapter.notify if adapter is not None else None
    catch_up = adapter.catch_up_seconds if adapter is not None else None
    notifiers = [make_notifier(store, notify) for store in stores]
    servers = []
    for store, notifier in zip(stores, notifiers, strict=True):
        await notifier.start()
        settings = Settings(address="127.0.0.1:0")
        if catch_up is not None:
            settings = replace(settings, catch_up_seconds=catch_up)
        server = (await assemble(settings, store, notifier)).server
        await server.start()
        servers.append(server)
    clients = [ParlourClient(f"127.0.0.1:{server.port}") for server in servers]
    try:
        yield clients, servers, DbLog(url)
    finally:
        for client, server, notifier, store in zip(
            clients, servers, notifiers, stores, strict=True
        ):
            await client.close()
            await server.stop(0)
            await notifier.stop()
            await store.close()


async def test_two_clients_racing_the_same_move_apply_it_exactly_once(postgres_url: str) -> None:
    async with two_servers(postgres_url) as (first, second, store):
        table = await seated_table(first, "wizard", 3)
        rng = random.Random(7)
        outcomes: list[str] = []
        for _ in range(12):
            view = await first.get_view(table.table_id)
            seat = table.seats[view.view.to_act[0]]
            current = await seat.view()
            choice = rng.choice(current.view.legal_actions)
            before = store.last_seq(table.table_id)
            racers = [
                client.act(
                    table.table_id,
                    seat.seat,
                    seat.token,
                    choice.id,
                    expected_version=current.version,
                )
                for client in (first, second)
            ]
            results = await asyncio.gather(*racers, return_exceptions=True)
            won = [result for result in results if isinstance(result, play_pb2.ActResponse)]
            lost = [result for result in results if isinstance(result, ParlourError)]
            assert len(won) == 1 and len(lost) == 1, results
            assert lost[0].code == grpc.StatusCode.ABORTED
            taken = [e for e in store.read(table.table_id, before) if e.type == "ActionTaken"]
            assert len(taken) == 1
            assert store.last_seq(table.table_id) == won[0].version
            outcomes.append("first" if isinstance(results[0], play_pb2.ActResponse) else "second")
        assert len(outcomes) == 12


async def test_a_resent_request_id_applies_once_on_any_replica(postgres_url: str) -> None:
    async with two_servers(postgres_url) as (first, second, store):
        table = await seated_table(first, "hearts", 4)
        seat = table.seats[0]
        current = await seat.view()
        give = current.view.legal_actions[0]
        before = store.last_seq(table.table_id)
        done = await first.act(
            table.table_id,
            seat.seat,
            seat.token,
            give.id,
            expected_version=current.version,
            request_id="give-once",
        )
        assert done.version == before + 1 and not done.duplicate
        for client in (first, second):
            again = await client.act(
                table.table_id,
                seat.seat,
                seat.token,
                give.id,
                expected_version=current.version,
                request_id="give-once",
            )
            assert again.duplicate and again.version == done.version
            assert list(again.view.passed_cards) == list(done.view.passed_cards)
            # by text, without a version: the card has left the hand, still one event
            text = await client.act(
                table.table_id, seat.seat, seat.token, give.action.text, request_id="give-once"
            )
            assert text.duplicate and text.version == done.version
        assert store.last_seq(table.table_id) == done.version
        assert [e.request_id for e in store.read(table.table_id, before)] == ["give-once"]


async def test_a_watch_from_a_version_misses_nothing_after_it(
    postgres_url: str, adapter: Adapter
) -> None:
    async with two_servers(postgres_url, adapter) as (first, second, store):
        table = await seated_table(first, "crazy8s", 3)
        rng = random.Random(8)
        middle = 0
        view = await table.seats[0].view()
        to_act = list(view.view.to_act)
        played = 0
        while to_act and played < 30:
            seat = table.seats[to_act[0]]
            current = await seat.view()
            choice = rng.choice(current.view.legal_actions)
            done = await seat.act(choice.id, expected_version=current.version)
            to_act = list(done.view.to_act)
            played += 1
            if played == 10:
                middle = done.version
        last = store.last_seq(table.table_id)
        stream = second.watch(table.table_id, from_version=middle)
        first_update = await asyncio.wait_for(anext(stream), timeout=10)
        await stream.aclose()
        assert first_update.version == last
        assert [event.version for event in first_update.events] == list(range(middle + 1, last + 1))
        stored_types = [event.type for event in store.read(table.table_id, middle)]
        assert [event.type for event in first_update.events] == stored_types


async def test_a_replica_that_stops_sends_its_watchers_to_another(postgres_url: str) -> None:
    async with two_replicas(postgres_url) as (clients, servers, store):
        table = await seated_table(clients[1], "hearts", 4)
        addresses = [f"127.0.0.1:{server.port}" for server in servers]
        async with ParlourClient(addresses) as watcher:
            stream = watcher.watch(table.table_id)
            first = await anext(stream)
            started = asyncio.get_running_loop().time()
            await servers[0].stop(grace=10)  # ends its watches at once, not after the grace
            assert asyncio.get_running_loop().time() - started < 3
            seat = table.seats[0]
            current = await seat.view()
            await seat.act(current.view.legal_actions[0].id, expected_version=current.version)
            resumed = await asyncio.wait_for(anext(stream), timeout=5)
            await stream.aclose()
            assert watcher.address == addresses[1]
            assert [event.version for event in resumed.events] == list(
                range(first.version + 1, store.last_seq(table.table_id) + 1)
            )


async def until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.05)


async def test_with_nats_stopped_mid_game_every_watcher_catches_up_and_no_move_is_lost(
    postgres_url: str, tmp_path: Path, own_nats: NatsServer
) -> None:
    # A catch-up longer than the test: watchers that keep up were woken through NATS
    # (or, after the outage, by the reconnect that wakes every waiter to re-read).
    adapter = Adapter(own_nats.url, catch_up_seconds=120)
    with (
        replica(postgres_url, tmp_path / "one.log", migrate=True, adapter=adapter) as (_, one),
        replica(postgres_url, tmp_path / "two.log", migrate=False, adapter=adapter) as (_, two),
    ):
        async with ParlourClient(one) as first, ParlourClient(two) as second:
            table = await seated_table(first, "hearts", 4)
            players = hand_over(table, [first, second]).seats  # seats 0, 2 on one; 1, 3 on two
            seen: list[list[play_pb2.WatchResponse]] = [[] for _ in range(4)]
            streams = [
                first.watch(table.table_id),
                second.watch(table.table_id),
                first.watch(table.table_id, 1, table.seats[1].token),
                second.watch(table.table_id, 0, table.seats[0].token),
            ]

            async def follow(number: int) -> None:
                async for update in streams[number]:
                    seen[number].append(update)

            watching = [asyncio.create_task(follow(number)) for number in range(4)]
            rng = random.Random(18)
            moves = 0

            async def play(count: int) -> int:
                nonlocal moves
                for _ in range(count):
                    view = await players[0].view()
                    seat = players[view.view.to_act[0]]
                    current = await seat.view()
                    choice = rng.choice(current.view.legal_actions)
                    done = await seat.act(choice.id, expected_version=current.version)
                    moves += 1
                return done.version

            def everyone_at(version: int) -> Callable[[], bool]:
                return lambda: all(updates and updates[-1].version >= version for updates in seen)

            version = await play(8)
            await until(everyone_at(version), 10, "the watchers follow through NATS")
            own_nats.stop()
            version = await play(12)  # moves on both replicas, nothing published
            await asyncio.sleep(0.5)
            assert not everyone_at(version)(), "a replica heard the other with NATS down"
            own_nats.start()
            await until(everyone_at(version), 10, "every watcher catches up after NATS is back")
            version = await play(8)
            await until(everyone_at(version), 10, "the watchers follow through NATS again")
            for task in watching:
                task.cancel()
            await asyncio.gather(*watching, return_exceptions=True)

            log = DbLog(postgres_url)
            events = log.read(table.table_id, 0)
            assert [event.seq for event in events] == list(range(1, version + 1))
            assert sum(event.type == EventType.ACTION_TAKEN for event in events) == moves
            replayed = Folded()
            for event in events:  # every digest checked: the chain is whole
                replayed.apply(event, check_digest=True)
            assert replayed.version == version
            assert all(event.digest for event in events if event.type == EventType.ACTION_TAKEN)
            for updates in seen:  # each saw every event once, in order
                assert versions_seen(updates) == list(range(1, version + 1))
                assert [e.type for u in updates for e in u.events] == [e.type for e in events]
