"""The move's hot path to Postgres: one-statement appends and reads from the event loop.

``EventStore.append_async`` / ``read_async`` / ``get_table_async`` (store_pg.py)
must keep every promise of the synchronous store: the same rows, the same
refusals (conflict, duplicate request, unknown table), nothing written when
they refuse, and database outages answered as UNAVAILABLE. Also here: the
threads that run the other store calls (dbthreads.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import psycopg
import pytest
from sqlalchemy import exc as sa_exc

from parlour.service.dbthreads import DbThreads
from parlour.service.errors import status_for
from parlour.service.store import (
    ConcurrencyConflict,
    DuplicateRequest,
    EventStore,
    NewEvent,
    SeatRow,
    TableRow,
    UnknownTable,
    normalize_url,
)


def hosted(table_id: str = "t1") -> TableRow:
    return TableRow(
        table_id=table_id,
        game="hearts",
        seats=2,
        options={"jack_of_diamonds": True},
        status="playing",
        host_token_hash="ab" * 32,
        version=0,
        name="hot table",
        seat_rows=(
            SeatRow(0, "person", player_name="Ada", token_hash="cd" * 32, occupied=True),
            SeatRow(1, "bot", bot_level="easy", occupied=True),
        ),
    )


def action(seat: int, text: str) -> NewEvent:
    return NewEvent("ActionTaken", {"seat": seat, "action": text}, digest=f"after {text}")


@pytest.fixture
def store(postgres_url: str) -> Iterator[EventStore]:
    store = EventStore(postgres_url)
    store.migrate()
    store.create_table(hosted(), [NewEvent("TableHosted", {"game": "hearts", "seats": 2})])
    yield store
    store.close()


@pytest.mark.postgres
async def test_an_async_append_is_read_back_alike_by_both_reads(store: EventStore) -> None:
    deal = NewEvent("CardsDealt", {"cards": ["QS", "2C"]}, "d1", schema_version=2)
    finished = NewEvent("GameFinished", {"scores": [0, 26], "winners": [0]})
    appended = await store.append_async(
        "t1", 1, [action(0, "play QS"), deal, finished], request_id="r1", table_status="finished"
    )
    assert [event.seq for event in appended] == [2, 3, 4]
    from_loop = await store.read_async("t1", 1)
    from_thread = await asyncio.to_thread(store.read, "t1", 1)
    assert from_loop == from_thread
    assert [(e.type, e.payload, e.digest) for e in from_loop] == [
        ("ActionTaken", {"seat": 0, "action": "play QS"}, "after play QS"),
        ("CardsDealt", {"cards": ["QS", "2C"]}, "d1"),
        ("GameFinished", {"scores": [0, 26], "winners": [0]}, ""),
    ]
    assert [e.request_id for e in from_loop] == ["r1", None, None]
    assert from_loop[1].schema_version == 2
    assert await store.read_async("t1", 1, 2) == from_loop[:1]
    table = await store.get_table_async("t1")
    assert (table.version, table.status) == (4, "finished")


@pytest.mark.postgres
async def test_the_async_table_is_the_table_the_lobby_reads(store: EventStore) -> None:
    assert await store.get_table_async("t1") == store.get_table("t1")


@pytest.mark.postgres
async def test_an_async_append_at_a_taken_seq_is_a_conflict_and_writes_nothing(
    store: EventStore,
) -> None:
    await store.append_async("t1", 1, [action(0, "play QS")])
    with pytest.raises(ConcurrencyConflict):
        await store.append_async("t1", 1, [action(1, "play 2C"), action(0, "play 3C")])
    assert [event.payload["action"] for event in await store.read_async("t1", 1)] == ["play QS"]
    assert (await store.get_table_async("t1")).version == 2


@pytest.mark.postgres
async def test_two_async_appends_racing_for_one_seq_exactly_one_wins(store: EventStore) -> None:
    outcomes = await asyncio.gather(
        *(store.append_async("t1", 1, [action(seat, "play QS")]) for seat in (0, 1)),
        return_exceptions=True,
    )
    assert sorted(type(outcome).__name__ for outcome in outcomes) == [
        "ConcurrencyConflict",
        "list",
    ]
    assert len(await store.read_async("t1", 1)) == 1


@pytest.mark.postgres
async def test_a_repeated_request_id_is_a_duplicate_request_naming_the_first_seq(
    store: EventStore,
) -> None:
    await store.append_async("t1", 1, [action(0, "play QS")], request_id="again")
    with pytest.raises(DuplicateRequest) as duplicate:
        await store.append_async("t1", 2, [action(1, "play 2C")], request_id="again")
    assert duplicate.value.first_seq == 2
    assert len(await store.read_async("t1", 1)) == 1


@pytest.mark.postgres
async def test_an_async_append_to_an_unknown_table_is_refused(store: EventStore) -> None:
    with pytest.raises(UnknownTable):
        await store.append_async("nowhere", 0, [action(0, "play QS")])
    with pytest.raises(UnknownTable):
        await store.get_table_async("nowhere")


@pytest.mark.postgres
def test_the_store_serves_one_event_loop_after_another(store: EventStore) -> None:
    # asyncio connections belong to their loop: a new loop gets new ones
    for _ in range(2):
        assert len(asyncio.run(store.read_async("t1"))) == 1


@pytest.mark.postgres
async def test_after_the_database_drops_its_connections_one_call_fails_then_calls_work(
    store: EventStore, postgres_url: str
) -> None:
    await asyncio.gather(*(store.read_async("t1") for _ in range(3)))  # a few pooled connections
    libpq = normalize_url(postgres_url).set(drivername="postgresql").render_as_string(False)
    async with await psycopg.AsyncConnection.connect(libpq, autocommit=True) as admin:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    with pytest.raises(sa_exc.OperationalError) as lost:
        await store.read_async("t1")
    assert status_for(lost.value)[0] is grpc.StatusCode.UNAVAILABLE
    # the other pooled connections were dropped with the broken one
    assert len(await store.read_async("t1")) == 1
    assert (await store.append_async("t1", 1, [action(0, "play QS")]))[0].seq == 2


async def test_an_unreachable_database_is_answered_unavailable() -> None:
    nowhere = EventStore("postgresql+psycopg://postgres@127.0.0.1:9/none")
    try:
        with pytest.raises(sa_exc.OperationalError) as down:
            await nowhere.read_async("t1")
        assert status_for(down.value)[0] is grpc.StatusCode.UNAVAILABLE
        with pytest.raises(sa_exc.OperationalError):
            await asyncio.to_thread(nowhere.read, "t1")
    finally:
        nowhere.close()


async def test_database_threads_return_results_and_raise_errors_to_the_caller() -> None:
    threads = DbThreads(2)
    try:
        assert await threads.run(sum, [1, 2, 3]) == 6
        assert await asyncio.gather(*(threads.run(pow, n, 2) for n in range(10))) == [
            n * n for n in range(10)
        ]
        with pytest.raises(ZeroDivisionError):
            await threads.run(divmod, 1, 0)
    finally:
        threads.close()
    with pytest.raises(RuntimeError):
        await threads.run(sum, [1])
