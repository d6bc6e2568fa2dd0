"""The event store's contract, run against every implementation.

:class:`RecorderContract` holds the tests every backend must pass (after the
``eventsourcing`` library's recorder tests); a backend's case gives it a
``store`` and a ``replica`` (a second store over the same data, as another
replica would hold). :class:`DatabaseContract` adds what a database behind
the store must do (migrations, the connection budget). :class:`TestMemoryStore`
runs the contract on ``MemoryEventStore``, :class:`TestSQLiteStore` on
``SqliteEventStore`` over an SQLite file and :class:`TestPostgresStore` on
``PostgresEventStore`` over a fresh Postgres database (see
``tests/conftest.py``), each adding what only its backend has.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from parlour.service.domain.statuses import TableStatus
from parlour.service.grpc.status import status_for
from parlour.service.notify import PostgresNotifier, make_notifier
from parlour.service.store.memory import MemoryEventStore
from parlour.service.store.open import downgrade_base, open_store, upgrade_head
from parlour.service.store.postgres import PostgresEventStore
from parlour.service.store.protocol import (
    ConcurrencyConflict,
    DuplicateRequest,
    EventStore,
    NewEvent,
    SeatRow,
    StoreUnavailable,
    TableQuery,
    TableRow,
    TurnRow,
    UnknownTable,
    utcnow,
)
from parlour.service.store.schema import metadata
from parlour.service.store.sqlite import SqliteEventStore
from parlour.service.store.urls import libpq_url, normalize_url

ROOT = Path(__file__).resolve().parents[2]
STORE_TABLES = {
    "events",
    "tables",
    "seats",
    "bot_leases",
    "turns",
    "accounts",
    "devices",
    "sessions",
    "results",  # issue 31
    "ratings",
    "plays",
    "rematches",
    "rematch_declines",
    "analyses",  # issue 35
}


def hosted(table_id: str = "t1", game: str = "wizard", status: str = "open") -> TableRow:
    return TableRow(
        table_id=table_id,
        game=game,
        seats=3,
        options={"rounds": 10, "canadian": False, "nested": {"list": [1, "two", None]}},
        status=status,  # type: ignore[arg-type]
        host_token_hash="ab" * 32,
        version=0,
        name=f"{game} table",
        seat_rows=(
            SeatRow(0, "person", player_name="Ada", token_hash="cd" * 32, occupied=True),  # type: ignore[arg-type]
            SeatRow(1, "bot", bot_level="easy", player_name="Bot 1", occupied=True),  # type: ignore[arg-type]
            SeatRow(2, "person"),  # type: ignore[arg-type]
        ),
    )


def action(seat: int, text: str) -> NewEvent:
    return NewEvent("ActionTaken", {"seat": seat, "action": text}, digest=f"after {text}")


TABLE_HOSTED = NewEvent("TableHosted", {"game": "wizard", "seats": 3, "name": "Ünïcode ♠"})


def schema_tables(url: str) -> set[str]:
    engine = sa.create_engine(normalize_url(url), poolclass=sa.pool.NullPool)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


async def race(racers: list[Awaitable[Any]]) -> list[Any]:
    """Run the racers at once; each result is a value or the exception."""
    return list(await asyncio.gather(*racers, return_exceptions=True))


class RecorderContract:
    """What every backend of the event store must do.

    A backend's case provides two fixtures: ``store``, an empty store, and
    ``replica``, a second store over the same data, as another replica would hold.
    """

    # --- events -----------------------------------------------------------------------

    async def test_a_table_and_its_events_round_trip_with_json_payloads(
        self, store: EventStore
    ) -> None:
        created = await store.create_table(hosted(), [TABLE_HOSTED])
        appended = await store.append(
            "t1", 1, [action(0, "play QS"), NewEvent("Odd", {"a": [{"b": 1.5}]})]
        )
        assert [e.seq for e in created + appended] == [1, 2, 3]
        read = await store.read("t1")
        assert read == created + appended
        assert read[0].payload == {"game": "wizard", "seats": 3, "name": "Ünïcode ♠"}
        assert read[1].digest == "after play QS"
        assert read[2].payload == {"a": [{"b": 1.5}]}
        assert read[0].created_at.tzinfo is not None
        assert await store.last_seq("t1") == 3
        assert await store.last_seq("nobody") == 0

    async def test_what_a_reader_gets_is_its_own_copy(self, store: EventStore) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        payload: dict[str, Any] = {"cards": ["QS"]}
        await store.append("t1", 1, [NewEvent("Dealt", payload)])
        payload["cards"].append("KS")
        [read] = await store.read("t1", after_seq=1)
        read.payload["cards"].append("AS")
        (await store.get_table("t1")).options["rounds"] = 1
        assert (await store.read("t1", after_seq=1))[0].payload == {"cards": ["QS"]}
        assert (await store.get_table("t1")).options == hosted().options

    async def test_read_returns_the_events_after_after_seq_up_to_upto_seq(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        await store.append("t1", 1, [action(0, f"bid {n}") for n in range(5)])
        assert [e.seq for e in await store.read("t1", after_seq=4)] == [5, 6]
        assert [e.seq for e in await store.read("t1", after_seq=1, upto_seq=3)] == [2, 3]
        assert await store.read("t1", after_seq=6) == []

    async def test_append_at_a_taken_seq_raises_concurrency_conflict_and_writes_nothing(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        await store.append("t1", 1, [action(0, "play QS")])
        # seq 2 is taken, seq 3 is free: the whole append must still fail
        with pytest.raises(ConcurrencyConflict) as raised:
            await store.append(
                "t1", 1, [action(1, "play KS"), action(2, "play AS")], table_status="playing"
            )
        assert raised.value.__cause__ is not None  # translated, not swallowed
        assert [e.payload["action"] for e in await store.read("t1", 1)] == ["play QS"]
        table = await store.get_table("t1")
        assert (table.version, table.status) == (2, "open")

    async def test_append_beyond_the_last_seq_raises_concurrency_conflict(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        with pytest.raises(ConcurrencyConflict):
            await store.append("t1", 5, [action(0, "play QS")])
        assert await store.last_seq("t1") == 1

    async def test_append_to_an_unknown_game_raises_unknown_table(self, store: EventStore) -> None:
        with pytest.raises(UnknownTable):
            await store.append("nobody", 0, [action(0, "play QS")])
        assert await store.read("nobody") == []

    async def test_hosting_a_taken_table_id_raises_concurrency_conflict(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        with pytest.raises(ConcurrencyConflict):
            await store.create_table(hosted(game="hearts"), [TABLE_HOSTED])
        assert (await store.get_table("t1")).game == "wizard"

    @pytest.mark.parametrize("writers_on", ["one store", "two replicas"])
    async def test_two_writers_racing_for_the_same_seq_exactly_one_wins(
        self, store: EventStore, replica: EventStore, writers_on: str
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        second = store if writers_on == "one store" else replica
        for seq in range(1, 21):
            results = await race(
                [
                    store.append("t1", seq, [action(0, "play QS")]),
                    second.append("t1", seq, [action(1, "play KS")]),
                ]
            )
            won = [r for r in results if isinstance(r, list)]
            lost = [r for r in results if not isinstance(r, list)]
            assert len(won) == 1, results
            assert len(lost) == 1 and isinstance(lost[0], ConcurrencyConflict), results
        assert [e.seq for e in await store.read("t1")] == list(range(1, 22))
        assert (await store.get_table("t1")).version == 21

    async def test_writers_on_different_games_do_not_block_each_other_out(
        self, store: EventStore, replica: EventStore
    ) -> None:
        table_ids = [f"g{n}" for n in range(4)]
        for table_id in table_ids:
            await store.create_table(hosted(table_id), [TABLE_HOSTED])

        async def play(table_id: str, writer: EventStore) -> int:
            for seq in range(1, 16):
                await writer.append(table_id, seq, [action(0, "draw")])
            return await writer.last_seq(table_id)

        writers = [store, replica, store, replica]
        results = await race([play(t, w) for t, w in zip(table_ids, writers, strict=True)])
        assert results == [16, 16, 16, 16]

    async def test_a_repeated_request_id_raises_duplicate_request_with_the_first_seq(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        await store.append(
            "t1", 1, [action(0, "play QS"), action(1, "play KS")], request_id="req-1"
        )
        with pytest.raises(DuplicateRequest) as same_version:
            await store.append("t1", 1, [action(0, "play QS")], request_id="req-1")
        with pytest.raises(DuplicateRequest) as later_version:
            await store.append("t1", 3, [action(0, "play QS")], request_id="req-1")
        assert same_version.value.first_seq == later_version.value.first_seq == 2
        assert await store.find_request("t1", "req-1") == 2
        assert await store.find_request("t1", "req-2") is None
        assert [e.request_id for e in await store.read("t1")] == [None, "req-1", None]
        # the same request id on another game is another request
        await store.create_table(hosted("t2"), [TABLE_HOSTED])
        assert (await store.append("t2", 1, [action(0, "play QS")], request_id="req-1"))[0].seq == 2

    # --- projections ------------------------------------------------------------------

    async def test_the_append_moves_version_status_and_seats_in_its_transaction(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        taken = SeatRow(2, "person", player_name="Grace", token_hash="ef" * 32, occupied=True)
        await store.append("t1", 1, [NewEvent("SeatTaken", {"seat": 2})], seat_updates=[taken])
        await store.append("t1", 2, [NewEvent("GameStarted", {})], table_status="playing")
        table = await store.get_table("t1")
        assert (table.version, table.status) == (3, "playing")
        assert table.seat_rows[2] == taken
        assert table.seat_rows[0].player_name == "Ada"
        assert table.updated_at >= table.created_at

    async def test_a_conflicting_append_leaves_the_projections_alone(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        await store.append("t1", 1, [action(0, "play QS")])
        before = await store.get_table("t1")
        with pytest.raises(ConcurrencyConflict):
            await store.append(
                "t1",
                1,
                [NewEvent("SeatLeft", {"seat": 0})],
                table_status="finished",
                seat_updates=[SeatRow(0, "person")],
            )
        assert await store.get_table("t1") == before

    async def test_create_table_records_the_table_its_seats_and_version(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED, NewEvent("SeatTaken", {"seat": 0})])
        table = await store.get_table("t1")
        assert table.version == 2
        assert table.options == hosted().options
        assert table.seat_rows == hosted().seat_rows
        assert (table.game, table.seats, table.name) == ("wizard", 3, "wizard table")

    async def test_get_table_of_an_unknown_id_raises_unknown_table(self, store: EventStore) -> None:
        with pytest.raises(UnknownTable):
            await store.get_table("nobody")

    async def test_list_tables_filters_by_status_and_game(self, store: EventStore) -> None:
        await store.create_table(hosted("a", "wizard", "open"), [TABLE_HOSTED])
        await store.create_table(hosted("b", "hearts", "open"), [TABLE_HOSTED])
        await store.create_table(hosted("c", "wizard", "playing"), [TABLE_HOSTED])
        await store.create_table(hosted("d", "wizard", "open"), [TABLE_HOSTED])

        async def listed(**query: Any) -> list[str]:
            return [t.table_id for t in await store.list_tables(TableQuery(**query))]

        assert sorted(await listed()) == ["a", "b", "c", "d"]
        assert sorted(await listed(status=TableStatus.OPEN)) == ["a", "b", "d"]
        assert sorted(await listed(game="wizard")) == ["a", "c", "d"]
        assert await listed(status=TableStatus.OPEN, game="wizard") == ["d", "a"]  # newest first
        assert len(await listed(limit=2)) == 2
        assert all(len(t.seat_rows) == 3 for t in await store.list_tables())

    async def test_list_tables_pages_newest_first_after_the_keyset_cursor(
        self, store: EventStore
    ) -> None:
        start = utcnow()
        # two pairs share a creation time: the id breaks the tie
        times = {"e": 0, "b": 1, "d": 1, "a": 2, "c": 2}
        for table_id, minutes in times.items():
            created = start + timedelta(minutes=minutes)
            table = replace(hosted(table_id), created_at=created, updated_at=created)
            await store.create_table(table, [TABLE_HOSTED])
        pages: list[list[str]] = []
        after = None
        for _ in times:  # at most one page per table, should the cursor be ignored
            page = await store.list_tables(TableQuery(limit=2, after=after))
            if not page:
                break
            pages.append([t.table_id for t in page])
            after = (page[-1].created_at, page[-1].table_id)
        assert pages == [["a", "c"], ["b", "d"], ["e"]]

    async def test_count_tables_counts_them_by_status(self, store: EventStore) -> None:
        assert await store.count_tables() == {}
        for table_id, status in (("a", "open"), ("b", "playing"), ("c", "open")):
            await store.create_table(hosted(table_id, status=status), [TABLE_HOSTED])
        assert await store.count_tables() == {"open": 2, "playing": 1}

    # --- bot leases -------------------------------------------------------------------

    async def test_two_workers_claiming_the_same_bot_turn_only_one_gets_it(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        for version in range(1, 11):
            results = await race(
                [
                    store.claim_bot_turn("w1", 30, [("t1", 1, version)]),
                    store.claim_bot_turn("w2", 30, [("t1", 1, version)]),
                ]
            )
            assert sorted(results, key=repr) == [("t1", 1, version), None], results
            await store.release_lease("t1", 1)

    async def test_a_worker_passes_over_a_leased_turn_to_the_next_candidate(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        await store.create_table(hosted("t2"), [TABLE_HOSTED])
        candidates = [("t1", 1, 1), ("t2", 1, 1)]
        assert await store.claim_bot_turn("w1", 30, candidates) == ("t1", 1, 1)
        assert await store.claim_bot_turn("w2", 30, candidates) == ("t2", 1, 1)
        assert await store.claim_bot_turn("w3", 30, candidates) is None
        # the holder renews its own lease; releasing frees it for anyone
        assert await store.claim_bot_turn("w1", 30, candidates) == ("t1", 1, 1)
        await store.release_lease("t1", 1)
        assert await store.claim_bot_turn("w3", 30, candidates) == ("t1", 1, 1)

    async def test_a_lease_is_released_by_its_holder_and_read_back_until_then(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        assert await store.get_lease("t1", 1) is None
        assert await store.claim_bot_turn("w1", 30, [("t1", 1, 4)]) == ("t1", 1, 4)
        lease = await store.get_lease("t1", 1)
        assert lease is not None
        assert (lease.table_id, lease.seat, lease.worker_id, lease.version) == ("t1", 1, "w1", 4)
        assert lease.expires_at > utcnow()
        assert not await store.release_lease("t1", 1, "w2")  # not w2's to give up
        assert await store.release_lease("t1", 1, "w1")
        assert not await store.release_lease("t1", 1)
        assert await store.get_lease("t1", 1) is None

    async def test_a_lease_of_an_earlier_version_or_an_unknown_table_is_no_obstacle(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        assert await store.claim_bot_turn("w1", 30, [("t1", 1, 2)]) == ("t1", 1, 2)
        # the table moved on: the turn at version 3 is a new turn, whoever held the old one
        assert await store.claim_bot_turn("w2", 30, [("nobody", 1, 3), ("t1", 1, 3)]) == (
            "t1",
            1,
            3,
        )
        assert await store.claim_bot_turn("w1", 30, [("t1", 1, 3)]) is None

    async def test_an_expired_lease_can_be_taken_over(self, store: EventStore) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        # A lease of no length has run out by the next claim, however soon it comes; that
        # a live one keeps others out is test_a_worker_passes_over_a_leased_turn_...
        assert await store.claim_bot_turn("w1", 0, [("t1", 1, 1)]) == ("t1", 1, 1)
        expired = await store.get_lease("t1", 1)
        assert expired is not None and expired.worker_id == "w1"
        assert await store.claim_bot_turn("w2", 30, [("t1", 1, 1)]) == ("t1", 1, 1)
        assert await store.claim_bot_turn("w1", 30, [("t1", 1, 1)]) is None

    async def test_the_turns_projection_is_replaced_with_each_append(
        self, store: EventStore
    ) -> None:
        """Bot turns come from the projection (longest waiting first, live leases left
        out), due person clocks by deadline; an append without turns leaves them."""
        now = utcnow()
        early, late = now - timedelta(seconds=60), now - timedelta(seconds=30)
        for table_id in ("a", "b"):
            await store.create_table(hosted(table_id, status="playing"), [TABLE_HOSTED])
        person = TurnRow(0, "person", "wizard", early, now - timedelta(seconds=1))  # type: ignore[arg-type]
        await store.append("a", 1, [action(2, "bid 1")], turns=[person], bot_turn=False)
        bot = TurnRow(1, "bot", "wizard", late)  # type: ignore[arg-type]
        await store.append("b", 1, [action(0, "bid 1")], turns=[bot, replace(person, since=late)])
        assert await store.bot_turns(now) == [("b", 1, 2)]
        assert await store.bot_turns(now, ["hearts"]) == []
        assert await store.due_turns(now) == [("a", 0, 2), ("b", 0, 2)]
        # the worker holding b's turn hides it from the others
        assert await store.claim_bot_turn("w1", 30, [("b", 1, 2)]) == ("b", 1, 2)
        assert await store.bot_turns(now) == []
        # a's next append makes seat 1 a bot turn (the person is away), older than b's
        away = TurnRow(0, "bot", "wizard", early)  # type: ignore[arg-type]
        await store.append("a", 2, [NewEvent("SeatAway", {"seat": 0})], turns=[away])
        assert await store.bot_turns(now) == [("a", 0, 3)]
        assert await store.due_turns(now) == [("b", 0, 2)]
        assert await store.turn_rows("a") == [away]
        await store.append("a", 3, [NewEvent("SeatReturned", {"seat": 0})])  # turns kept
        assert await store.turn_rows("a") == [away]
        await store.append("a", 4, [NewEvent("GameAbandoned", {})], turns=[])
        assert await store.turn_rows("a") == []

    async def test_idle_tables_are_found_by_their_last_person_activity(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted("people"), [TABLE_HOSTED])
        bots_only = replace(
            hosted("bots"),
            seat_rows=(SeatRow(0, "bot", occupied=True),),  # type: ignore[arg-type]
        )
        await store.create_table(bots_only, [TABLE_HOSTED])
        later = utcnow() + timedelta(seconds=1)
        assert await store.idle_tables("open", later) == ["people"]  # type: ignore[arg-type]
        await store.append("people", 1, [NewEvent("SeatTaken", {})], person_active_at=later)
        assert await store.idle_tables("open", later) == []  # type: ignore[arg-type]

    # --- waking waiters ---------------------------------------------------------------

    async def test_a_waiter_is_woken_by_an_append_of_its_store(self, store: EventStore) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        notifier = make_notifier(store)
        await notifier.start()
        try:
            waiting = asyncio.create_task(notifier.wait("t1", 1, timeout=30))
            await asyncio.sleep(0.05)
            assert not waiting.done()
            await store.append("t1", 1, [action(0, "play QS")])
            await asyncio.wait_for(waiting, 5)
            # an event already heard of answers a late waiter at once
            await asyncio.wait_for(notifier.wait("t1", 1, timeout=30), 1)
        finally:
            await notifier.stop()

    async def test_a_wait_with_nothing_new_ends_at_its_timeout(self, store: EventStore) -> None:
        notifier = make_notifier(store)
        await notifier.start()
        try:
            started = time.monotonic()
            # it ends by itself (the outer 30 s is only a guard against hanging, not a
            # time limit), and not before its timeout
            await asyncio.wait_for(notifier.wait("t1", 0, timeout=0.1), 30)
            assert time.monotonic() - started >= 0.09
        finally:
            await notifier.stop()


class DatabaseContract(RecorderContract):
    """What a backend over a database must do besides: migrate it, keep to a budget."""

    @pytest.fixture
    def url(self) -> str:
        raise NotImplementedError

    @pytest.fixture
    async def store(self, url: str) -> AsyncIterator[EventStore]:
        upgrade_head(url)
        store = open_store(url, connections=4)
        yield store
        await store.close()

    @pytest.fixture
    async def replica(self, url: str, store: EventStore) -> AsyncIterator[EventStore]:
        """A second store over the same database, as another replica would hold."""
        other = open_store(url, connections=4)
        yield other
        await other.close()

    # --- migrations -------------------------------------------------------------------

    async def test_migrations_upgrade_an_empty_database_and_downgrade_it_back(
        self, url: str
    ) -> None:
        assert schema_tables(url) == set()
        upgrade_head(url)
        assert schema_tables(url) == STORE_TABLES | {"alembic_version"}
        downgrade_base(url)
        assert schema_tables(url) == {"alembic_version"}
        upgrade_head(url)
        upgrade_head(url)  # at head already: nothing to do
        assert schema_tables(url) == STORE_TABLES | {"alembic_version"}

    async def test_migrations_build_exactly_the_schema_the_store_uses(
        self, store: EventStore
    ) -> None:
        engine = sa.create_engine(normalize_url(store.url), poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            assert compare_metadata(context, metadata) == []
        engine.dispose()

    # --- the connection budget ---------------------------------------------------------

    async def test_calls_beyond_the_connection_budget_wait_their_turn(self, url: str) -> None:
        upgrade_head(url)
        store = open_store(url, connections=2)
        try:
            await store.create_table(hosted(), [TABLE_HOSTED])
            reads = await asyncio.gather(*(store.read("t1") for _ in range(20)))
            assert all(len(events) == 1 for events in reads)
            stats = store.stats()
            assert stats["connections"] == 2
            assert 1 <= stats["open"] <= 2 and stats["in_use"] == 0
        finally:
            await store.close()

    def test_the_budget_comes_from_the_environment_when_not_given(
        self, url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("PARLOUR_DB_CONNECTIONS", "3")
        assert open_store(url).stats()["connections"] == 3
        assert open_store(url, connections=5).stats()["connections"] == 5
        monkeypatch.setenv("PARLOUR_DB_CONNECTIONS", "0")
        with pytest.raises(ValueError):
            open_store(url)


class TestMemoryStore(RecorderContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[EventStore]:
        store = open_store("memory://")
        yield store
        await store.close()

    @pytest.fixture
    async def replica(self, store: EventStore) -> AsyncIterator[EventStore]:
        assert isinstance(store, MemoryEventStore)
        yield store.replica()

    async def test_a_memory_url_opens_a_new_empty_store_each_time(self, store: EventStore) -> None:
        assert isinstance(store, MemoryEventStore)
        await store.create_table(hosted(), [TABLE_HOSTED])
        other = open_store("memory://")
        assert await other.list_tables() == []
        assert await other.last_seq("t1") == 0

    async def test_migrating_a_memory_url_has_nothing_to_do(self, store: EventStore) -> None:
        upgrade_head("memory://")
        downgrade_base("memory://")
        await store.create_table(hosted(), [TABLE_HOSTED])
        assert await store.last_seq("t1") == 1

    async def test_a_closed_memory_store_keeps_its_tables(self, store: EventStore) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        await store.close()
        assert await store.last_seq("t1") == 1


class TestSQLiteStore(DatabaseContract):
    @pytest.fixture
    def url(self, sqlite_url: str) -> str:
        return sqlite_url

    def test_an_sqlite_url_opens_the_sqlalchemy_store(self, url: str) -> None:
        assert isinstance(open_store(url), SqliteEventStore)

    def test_sqlite_runs_in_wal_mode_with_foreign_keys(self, store: EventStore) -> None:
        assert isinstance(store, SqliteEventStore)
        with store._engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1

    def test_the_alembic_command_line_migrates_the_database_in_the_environment(
        self, url: str
    ) -> None:
        environment = {**os.environ, "PARLOUR_DATABASE_URL": url}
        command = [
            sys.executable,
            "-m",
            "alembic",
            "-c",
            str(ROOT / "alembic.ini"),
            "upgrade",
            "head",
        ]
        subprocess.run(command, env=environment, cwd=ROOT, check=True, capture_output=True)
        assert schema_tables(url) == STORE_TABLES | {"alembic_version"}


@pytest.mark.postgres
class TestPostgresStore(DatabaseContract):
    @pytest.fixture
    def url(self, postgres_url: str) -> str:
        return postgres_url

    def test_a_postgres_url_opens_the_psycopg_store(self, url: str) -> None:
        assert isinstance(open_store(url), PostgresEventStore)

    async def test_after_the_database_drops_its_connections_one_call_fails_then_calls_work(
        self, store: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        await asyncio.gather(*(store.read("t1") for _ in range(4)))  # a few pooled connections
        async with await psycopg.AsyncConnection.connect(
            libpq_url(store.url), autocommit=True
        ) as admin:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        with pytest.raises(StoreUnavailable) as lost:
            await store.read("t1")
        assert status_for(lost.value)[0] is grpc.StatusCode.UNAVAILABLE
        # the other pooled connections were checked and replaced after the broken one
        assert len(await store.read("t1")) == 1
        assert (await store.append("t1", 1, [action(0, "play QS")]))[0].seq == 2

    async def test_an_unreachable_database_is_answered_unavailable(self) -> None:
        url = "postgresql+psycopg://postgres@127.0.0.1:9/none"
        nowhere = PostgresEventStore(url, 1, wait_seconds=0.5)
        try:
            with pytest.raises(StoreUnavailable) as down:
                await nowhere.read("t1", 0)
            assert status_for(down.value)[0] is grpc.StatusCode.UNAVAILABLE
        finally:
            await nowhere.close()

    async def test_a_waiter_on_one_replica_is_woken_by_an_append_on_another(
        self, store: EventStore, replica: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        notifier = make_notifier(store)
        assert isinstance(notifier, PostgresNotifier)
        await notifier.start()
        try:
            # The reconnect ends by waking every waiter once (notifications may
            # have been missed); the backend shows up before that, so a waiter
            # made in between may be woken by it. Once settled, waits sleep.
            for _ in range(50):
                waiting = asyncio.create_task(notifier.wait("t1", 1, timeout=30))
                await asyncio.sleep(0.05)
                if not waiting.done():
                    break
            else:
                pytest.fail("every wait after the reconnect returned at once")
            await replica.append("t1", 1, [action(0, "play QS")])
            await asyncio.wait_for(waiting, 5)
        finally:
            await notifier.stop()

    async def test_the_listener_reconnects_after_losing_its_connection(
        self, store: EventStore, replica: EventStore
    ) -> None:
        await store.create_table(hosted(), [TABLE_HOSTED])
        notifier = make_notifier(store)
        await notifier.start()
        admin = await psycopg.AsyncConnection.connect(libpq_url(store.url), autocommit=True)
        listeners = (
            "SELECT pid FROM pg_stat_activity"
            " WHERE application_name = %s AND datname = current_database()"
        )
        try:
            cursor = await admin.execute(listeners, (PostgresNotifier.application_name,))
            [(first_pid,)] = await cursor.fetchall()
            await admin.execute("SELECT pg_terminate_backend(%s)", (first_pid,))
            for _ in range(100):
                await asyncio.sleep(0.05)
                cursor = await admin.execute(listeners, (PostgresNotifier.application_name,))
                pids = [pid for (pid,) in await cursor.fetchall()]
                if pids and first_pid not in pids:
                    break
            else:
                pytest.fail("the listener did not come back")
            # The reconnect ends by waking every waiter once (notifications may
            # have been missed); the backend shows up before that, so a waiter
            # made in between may be woken by it. Once settled, waits sleep.
            for _ in range(50):
                waiting = asyncio.create_task(notifier.wait("t1", 1, timeout=30))
                await asyncio.sleep(0.05)
                if not waiting.done():
                    break
            else:
                pytest.fail("every wait after the reconnect returned at once")
            await replica.append("t1", 1, [action(0, "play QS")])
            await asyncio.wait_for(waiting, 5)
        finally:
            await admin.close()
            await notifier.stop()
