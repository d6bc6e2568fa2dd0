"""The sweeper's duties and taking a seat back, called directly over the memory
store (``app/duties.py``): a turn clock that ran out, the person's return, an
idle open table's expiry, an unplayed game's abandonment.

The duties read no injected clock: ``time_out`` compares the log's deadline
with ``utcnow()``, so these tests set its module's clock (the ``clock``
fixture); ``expire`` and ``abandon`` are given their ``before`` directly.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from parlour.service.app.parlour import Credentials, Parlour, SeatChoice
from parlour.service.domain.errors import WrongTableState, WrongToken
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.memory import MemoryEventStore
from parlour.service.store.protocol import utcnow
from tests.app.conftest import WORKER_TOKEN, Seated, later, log, playing

Clock = Callable[[datetime], None]
WORKER = Credentials(worker_token=WORKER_TOKEN, worker_id="w1")
CLOCKED = {"turn_seconds": 30}


async def due(store: MemoryEventStore, table_id: str, when: datetime) -> list[tuple[int, int]]:
    """The (seat, version) turns of the table whose clock has run out at ``when``."""
    turns = await store.due_turns(when)
    return [(seat, version) for found, seat, version in turns if found == table_id]


async def away(app: Parlour, store: MemoryEventStore, clock: Clock) -> tuple[Seated, int]:
    """A clocked hearts table whose seat 0 ran out of time: the sweeper's duty done."""
    seated = await playing(app, options=CLOCKED)
    version = (await app.get_table(seated.table_id)).version
    clock(later())
    assert await app.time_out(seated.table_id, 0, version)
    return seated, 0


# -- the turn clock --------------------------------------------------------------------


async def test_the_store_holds_each_clocked_turns_deadline(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app, options=CLOCKED)
    assert await due(store, seated.table_id, utcnow()) == []
    assert await due(store, seated.table_id, later()) == [(seat, 7) for seat in range(4)]
    seen = await app.view(seated.table_id, 0, seated.seat(0))
    started = (await store.read(seated.table_id))[-1].created_at
    assert seen.deadlines[0] == started + timedelta(seconds=30)


async def test_a_clock_that_ran_out_lets_a_bot_play_the_seat(
    app: Parlour, store: MemoryEventStore, clock: Clock
) -> None:
    seated = await playing(app, options=CLOCKED)
    [(seat, version), *_] = await due(store, seated.table_id, later())
    clock(later())
    assert await app.time_out(seated.table_id, seat, version)
    assert (await log(store, seated.table_id))[-1] == (version + 1, "SeatAway")
    seen = await app.view(seated.table_id, seat, seated.seat(seat))
    assert seen.away == {seat} and seat not in seen.deadlines
    assert seen.away_bot_level == "normal"
    # the person may not act while away; the worker may, for them
    with pytest.raises(WrongTableState, match="played by a bot"):
        await app.act(seated.table_id, seat, seated.seat(seat), 1, expected_version=seen.version)
    played = await app.act(seated.table_id, seat, WORKER, 1, expected_version=seen.version)
    assert played.version == seen.version + 1


async def test_a_clock_not_run_out_or_a_stale_version_times_nothing_out(
    app: Parlour, store: MemoryEventStore, clock: Clock
) -> None:
    seated = await playing(app, options=CLOCKED)
    before = await store.read(seated.table_id)
    assert not await app.time_out(seated.table_id, 0, 7)  # the real clock: 30 s to go
    clock(later())
    assert not await app.time_out(seated.table_id, 0, 6)  # the version it was due at is past
    assert not await app.time_out(seated.table_id, 0, 8)
    assert (await store.read(seated.table_id))[: len(before)] == before
    assert [kind for _, kind in await log(store, seated.table_id)].count("SeatAway") == 0


async def test_a_table_without_a_clock_never_times_out(
    app: Parlour, store: MemoryEventStore, clock: Clock
) -> None:
    seated = await playing(app)
    assert await due(store, seated.table_id, later(100)) == []
    clock(later(100))
    assert not await app.time_out(seated.table_id, 0, 7)


async def test_the_person_takes_their_seat_back_with_its_token(
    app: Parlour, store: MemoryEventStore, clock: Clock
) -> None:
    seated, seat = await away(app, store, clock)
    with pytest.raises(WrongToken, match="worker token acts only for bot seats"):
        await app.return_to_seat(seated.table_id, seat, WORKER)
    with pytest.raises(WrongToken):
        await app.return_to_seat(seated.table_id, seat, seated.seat(1))
    back = await app.return_to_seat(seated.table_id, seat, seated.seat(seat))
    assert back.away == frozenset() and back.version == 9
    assert (await log(store, seated.table_id))[-1] == (9, "SeatReturned")
    # back at once: its turn starts afresh, and the person acts again
    assert seat in back.deadlines
    await app.act(seated.table_id, seat, seated.seat(seat), 1, expected_version=9)
    # returning when not away appends nothing
    again = await app.return_to_seat(seated.table_id, seat, seated.seat(seat))
    assert again.version == 10 and len(await store.read(seated.table_id)) == 10


# -- expiry and abandonment ------------------------------------------------------------


async def test_an_idle_open_table_expires(app: Parlour, store: MemoryEventStore) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    assert not await app.expire(table_id, hosted.table.created_at)  # active since
    assert await store.idle_tables(TableStatus.OPEN, later()) == [table_id]
    assert await app.expire(table_id, later())
    assert (await log(store, table_id))[-1] == (3, "TableExpired")
    row = await app.get_table(table_id)
    assert row.status == TableStatus.EXPIRED
    assert (await app.list_tables())[0] == []
    seen = await app.view(table_id, None, Credentials())
    assert seen.ended == "expired"
    assert not await app.expire(table_id, later())  # once only
    with pytest.raises(WrongTableState, match="cannot join"):
        await app.join(table_id, "Late")


async def test_a_join_keeps_an_open_table_alive(app: Parlour) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    cut = utcnow()
    await app.join(table_id, "Bea")
    assert not await app.expire(table_id, cut)


async def test_a_table_without_people_never_expires(app: Parlour) -> None:
    hosted = await app.host_table("hearts", 4, {}, [SeatChoice(SeatKind.BOT)] * 4)
    assert not await app.expire(hosted.table.table_id, later(1000))


async def test_a_game_no_person_moved_is_abandoned(app: Parlour, store: MemoryEventStore) -> None:
    seated = await playing(app)
    row = await app.get_table(seated.table_id)
    assert row.person_active_at is not None
    assert not await app.abandon(seated.table_id, row.person_active_at)
    assert await app.abandon(seated.table_id, later())
    events = await store.read(seated.table_id)
    assert events[-1].type == "GameAbandoned" and events[-1].payload["scores"] == [0, 0, 0, 0]
    assert (await app.get_table(seated.table_id)).status == TableStatus.ABANDONED
    seen = await app.view(seated.table_id, 0, seated.seat(0))
    assert seen.ended == "abandoned" and seen.deadlines == {}
    with pytest.raises(WrongTableState, match="was abandoned"):
        await app.act(seated.table_id, 0, seated.seat(0), 1, expected_version=8)
    assert not await app.abandon(seated.table_id, later())
    assert len(await store.read(seated.table_id)) == 8


async def test_a_persons_move_keeps_a_game_alive(app: Parlour) -> None:
    seated = await playing(app)
    cut = utcnow()
    await app.act(seated.table_id, 0, seated.seat(0), 1, expected_version=7)
    assert not await app.abandon(seated.table_id, cut)


async def test_an_open_table_is_not_abandoned(app: Parlour) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    assert not await app.abandon(hosted.table.table_id, later())
