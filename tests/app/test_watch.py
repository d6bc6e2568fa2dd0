"""Watching a table and viewing it at a version, called directly over the memory
store (``app/play.py``). The watch's own catch-up poll is an hour here, so a
watcher that wakes within a test was woken by the in-process notifier."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from parlour.service.app.parlour import Credentials, Parlour, SeatView
from parlour.service.domain.errors import AheadOfTable, BadRequest, ShuttingDown, WrongToken
from parlour.service.store.memory import MemoryEventStore
from tests.app.conftest import later, playing

#: a guard against a hang, never a measure: a woken watcher answers at once
GUARD = 10.0


def watching(
    app: Parlour, table_id: str, seat: int | None, credentials: Credentials, from_version: int = 0
) -> AsyncGenerator[SeatView, None]:
    """``app.watch``, which a test closes when done (the use case is an async generator)."""
    watch = app.watch(table_id, seat, credentials, from_version)
    assert isinstance(watch, AsyncGenerator)
    return watch


async def parked(watch: AsyncGenerator[SeatView, None]) -> asyncio.Task[SeatView]:
    """The watch's next view, asked for and left waiting on the notifier."""

    async def next_view() -> SeatView:
        return await anext(watch)

    task = asyncio.create_task(next_view())
    for _ in range(20):  # let it read the store and park
        await asyncio.sleep(0)
    assert not task.done()
    return task


async def test_a_watcher_is_woken_by_a_move_and_sees_the_new_version(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app)
    seen = await app.view(seated.table_id, 0, seated.seat(0))
    watch = watching(app, seated.table_id, 0, seated.seat(0), from_version=seen.version)
    task = await parked(watch)
    await app.act(seated.table_id, 2, seated.seat(2), 1, expected_version=seen.version)
    woken = await asyncio.wait_for(task, GUARD)
    assert woken.version == seen.version + 1
    assert [event.type for event in woken.events] == ["ActionTaken"]
    assert woken.events[0].payload["seat"] == 2
    await watch.aclose()


async def test_a_watch_from_the_start_sends_the_table_as_it_is(app: Parlour) -> None:
    seated = await playing(app)
    watch = watching(app, seated.table_id, None, Credentials())
    first = await asyncio.wait_for(anext(watch), GUARD)
    assert first.version == 7 and [event.seq for event in first.events] == list(range(1, 8))
    assert first.view is not None and first.view.hand == ()  # a spectator sees no hand
    await watch.aclose()


async def test_a_lobby_watch_is_woken_by_a_join(app: Parlour) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    watch = watching(app, table_id, None, Credentials(), from_version=hosted.table.version)
    task = await parked(watch)
    await app.join(table_id, "Bea")
    woken = await asyncio.wait_for(task, GUARD)
    assert woken.view is None and woken.version == hosted.table.version + 1
    assert [event.type for event in woken.events] == ["SeatTaken"]
    assert woken.table.seat_rows[1].player_name == "Bea"
    await watch.aclose()


async def test_a_watch_ends_with_the_game(app: Parlour) -> None:
    seated = await playing(app)
    watch = watching(app, seated.table_id, 1, seated.seat(1), from_version=7)
    task = await parked(watch)
    assert await app.abandon(seated.table_id, later())
    last = await asyncio.wait_for(task, GUARD)
    assert last.ended == "abandoned" and last.version == 8
    with pytest.raises(StopAsyncIteration):
        await anext(watch)


async def test_a_watch_ends_when_the_server_shuts_down(app: Parlour) -> None:
    seated = await playing(app)
    watch = watching(app, seated.table_id, None, Credentials(), from_version=7)
    task = await parked(watch)
    app.begin_shutdown()
    with pytest.raises(ShuttingDown):
        await asyncio.wait_for(task, GUARD)
    assert app.closing


async def test_a_watch_needs_the_seats_token_and_a_version_reached(app: Parlour) -> None:
    seated = await playing(app)
    with pytest.raises(WrongToken):
        await anext(watching(app, seated.table_id, 0, seated.seat(1)))
    with pytest.raises(AheadOfTable, match="from_version 8 is ahead"):
        await anext(watching(app, seated.table_id, 0, seated.seat(0), from_version=8))
    with pytest.raises(BadRequest, match="from_version must be 0 or more"):
        await anext(watching(app, seated.table_id, 0, seated.seat(0), from_version=-1))


async def test_a_view_at_a_min_version_not_reached_is_refused(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app)
    with pytest.raises(AheadOfTable, match="min_version 8 is ahead of table"):
        await app.view(seated.table_id, 0, seated.seat(0), min_version=8)
    reached = await app.view(seated.table_id, 0, seated.seat(0), min_version=7)
    assert reached.version == 7
    hosted = await app.host_table("hearts", 4, {})
    with pytest.raises(AheadOfTable):  # an open table too
        await app.view(hosted.table.table_id, None, Credentials(), min_version=2)


async def test_a_replica_viewing_at_a_version_it_was_told_reads_up_to_it(
    app: Parlour, other: Parlour
) -> None:
    seated = await playing(app)
    old = await other.view(seated.table_id, 0, seated.seat(0))  # the replica's cache: 7
    moved = await app.act(seated.table_id, 0, seated.seat(0), 1, expected_version=old.version)
    seen = await other.view(seated.table_id, 0, seated.seat(0), min_version=moved.version)
    assert seen.version == moved.version
    assert seen.view is not None and len(seen.view.passed_cards) == 1


async def test_a_lobby_watch_ends_when_the_table_expires(app: Parlour) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    watch = watching(app, table_id, None, Credentials(), from_version=hosted.table.version)
    task = await parked(watch)
    assert await app.expire(table_id, later())
    last = await asyncio.wait_for(task, GUARD)
    assert last.ended == "expired" and [event.type for event in last.events] == ["TableExpired"]
    with pytest.raises(StopAsyncIteration):
        await anext(watch)


async def test_a_table_is_watched_while_a_stream_follows_it_and_no_longer(app: Parlour) -> None:
    """A seat's answers share the part of its view every seat has only on a watched
    table (issue 34); a watch counts from its first view to its end, however it ends."""
    seated = await playing(app)
    table_id = seated.table_id
    assert not app.play._watched(table_id)
    closed = watching(app, table_id, 0, seated.seat(0))
    await anext(closed)
    cancelled = watching(app, table_id, 1, seated.seat(1))
    await anext(cancelled)
    assert app.play._watched(table_id)
    await closed.aclose()
    assert app.play._watched(table_id)  # one stream is still there
    task = await parked(cancelled)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await cancelled.aclose()
    assert not app.play._watched(table_id)
    seen = await app.view(table_id, 2, seated.seat(2))
    moved = await app.act(table_id, 2, seated.seat(2), 1, expected_version=seen.version)
    assert moved.public is None  # nobody watches: the answer's view is built whole
