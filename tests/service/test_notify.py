"""The notifier port's adapters between two replicas (two stores, two notifiers) on one
Postgres database: a table's new events wake its waiters on the other replica, a bot
turn also wakes the idle workers' long polls there and nothing else does, and on the
NATS path the append commits without ``pg_notify``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest

from parlour.service.notify import (
    NatsNotifier,
    Notifier,
    PostgresNotifier,
    make_notifier,
    parse_note,
)
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import NOTIFY_CHANNEL, EventStore
from parlour.service.store.urls import libpq_url
from tests.service.natsd import system_nats_url
from tests.service.test_store import TABLE_HOSTED, action, hosted

Replica = tuple[EventStore, Notifier]


@pytest.fixture(params=["postgres", "nats"])
async def replicas(
    request: pytest.FixtureRequest, postgres_url: str
) -> AsyncIterator[tuple[Replica, Replica]]:
    setting = system_nats_url() if request.param == "nats" else "postgres"
    upgrade_head(postgres_url)
    made = []
    for _ in range(2):
        store = open_store(postgres_url)
        notifier = make_notifier(store, setting)
        await notifier.start()
        made.append((store, notifier))
    try:
        yield made[0], made[1]
    finally:
        for store, notifier in made:
            await notifier.stop()
            await store.close()


async def heard_within(waiting: asyncio.Task[None], seconds: float) -> bool:
    await asyncio.wait([waiting], timeout=seconds)
    return waiting.done()


@pytest.mark.postgres
async def test_a_move_wakes_the_table_s_waiters_and_only_a_bot_turn_wakes_the_workers(
    replicas: tuple[Replica, Replica],
) -> None:
    (writer, _), (_, other) = replicas
    await writer.create_table(hosted(status="playing"), [TABLE_HOSTED])
    # a move that leaves only people to act: the table's watchers, not the workers
    mark = other.changes
    table = asyncio.create_task(other.wait("t1", 1, timeout=30))
    workers = asyncio.create_task(other.wait_any(mark, timeout=30))
    await asyncio.sleep(0.05)
    await writer.append("t1", 1, [action(0, "play QS")], bot_turn=False)
    assert await heard_within(table, 5)
    assert not await heard_within(workers, 0.5)
    # a move that leaves a bot to act wakes both
    table = asyncio.create_task(other.wait("t1", 2, timeout=30))
    await writer.append("t1", 2, [action(1, "play KS")])
    assert await heard_within(table, 5)
    assert await heard_within(workers, 5)


@pytest.mark.postgres
async def test_the_nats_path_appends_without_pg_notify(postgres_url: str) -> None:
    upgrade_head(postgres_url)
    listener = await psycopg.AsyncConnection.connect(libpq_url(postgres_url), autocommit=True)
    await listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
    heard: list[str] = []
    for setting in (system_nats_url(), "postgres"):
        store = open_store(postgres_url)
        notifier = make_notifier(store, setting)
        await notifier.start()
        try:
            table_id = f"t-{notifier.kind}"
            await store.create_table(hosted(table_id), [TABLE_HOSTED])
            await store.append(table_id, 1, [action(0, "play QS")])
            await asyncio.sleep(0.3)
            heard += [note.payload async for note in listener.notifies(timeout=0.5)]
        finally:
            await notifier.stop()
            await store.close()
    await listener.close()
    assert heard == ["t-postgres:2:1"]  # only the Postgres notifier's append NOTIFYs


@pytest.mark.postgres
async def test_the_setting_chooses_the_adapter(postgres_url: str, sqlite_url: str) -> None:
    store = open_store(postgres_url)
    assert isinstance(make_notifier(store), PostgresNotifier) and store.notify_in_transaction
    assert isinstance(make_notifier(store, "nats://127.0.0.1:4222"), NatsNotifier)
    assert not store.notify_in_transaction
    assert type(make_notifier(store, "local")) is Notifier and not store.notify_in_transaction
    assert type(make_notifier(sqlite_url)) is Notifier
    with pytest.raises(ValueError, match="needs a Postgres database"):
        make_notifier(sqlite_url, "postgres")
    with pytest.raises(ValueError, match="must be local, postgres or nats://"):
        make_notifier(store, "redis://somewhere")
    assert parse_note("t1:12:0") == ("t1", 12, False)
    assert parse_note("t1:12:1") == ("t1", 12, True)
    assert parse_note("t1:12") == ("t1", 12, True)  # from a replica before bot turns
    assert parse_note("nonsense") is None


def test_serve_stops_with_a_clear_message_when_nats_cannot_be_reached(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "parlour.cli", "serve", "--address", "127.0.0.1:0"]
    command += ["--database-url", f"sqlite:///{tmp_path / 'p.sqlite3'}"]
    done = subprocess.run(
        [*command, "--notify", "nats://127.0.0.1:1"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "cannot reach NATS at nats://127.0.0.1:1" in done.stderr


async def test_in_process_a_move_wakes_its_table_and_only_a_bot_turn_the_workers(
    sqlite_url: str,
) -> None:
    upgrade_head(sqlite_url)
    store = open_store(sqlite_url)
    notifier = make_notifier(store)
    await notifier.start()
    try:
        await store.create_table(hosted(status="playing"), [TABLE_HOSTED])
        mark = notifier.changes
        workers = asyncio.create_task(notifier.wait_any(mark, timeout=30))
        table = asyncio.create_task(notifier.wait("t1", 1, timeout=30))
        await asyncio.sleep(0.01)
        await store.append("t1", 1, [action(0, "play QS")], bot_turn=False)
        assert await heard_within(table, 2)
        assert not await heard_within(workers, 0.2)
        await store.append("t1", 2, [action(1, "play KS")])
        assert await heard_within(workers, 2)
    finally:
        await notifier.stop()
        await store.close()
