"""The lobby's use cases, called directly over the memory store: host, list, join,
leave and start (``app/lobby.py``)."""

from __future__ import annotations

import pytest

from parlour.engine.errors import EngineError, UnknownGame
from parlour.service.app.parlour import Credentials, Parlour, SeatChoice
from parlour.service.domain.errors import (
    BadRequest,
    MissingToken,
    WrongTableState,
    WrongToken,
)
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.memory import MemoryEventStore
from tests.app.conftest import host_full, log, playing

# -- host ------------------------------------------------------------------------------


async def test_hosting_records_the_table_and_seats_the_host(
    app: Parlour, store: MemoryEventStore
) -> None:
    hosted = await app.host_table(
        "hearts", 4, {}, host_player_name="  Ada   Lovelace ", host_takes_seat=True, host_seat=2
    )
    table = hosted.table
    assert hosted.seat == 2 and hosted.seat_token and hosted.host_token
    assert hosted.seat_token != hosted.host_token
    assert table.status == TableStatus.OPEN and table.game == "hearts" and table.seats == 4
    assert table.name == "Ada Lovelace's Hearts (Kierki) table"
    assert await log(store, table.table_id) == [(1, "TableHosted"), (2, "SeatTaken")]
    stored = await app.get_table(table.table_id)
    assert stored.seat_rows[2].occupied and stored.seat_rows[2].player_name == "Ada Lovelace"
    assert [row.occupied for row in stored.seat_rows] == [False, False, True, False]
    # the seat token the host got works for that seat, and not for another
    await app.leave(table.table_id, 2, Credentials(seat_token=hosted.seat_token))
    assert not (await app.get_table(table.table_id)).seat_rows[2].occupied


async def test_a_host_who_does_not_sit_gets_no_seat(app: Parlour) -> None:
    hosted = await app.host_table("hearts", 4, {}, name="Quiet room")
    assert hosted.seat is None and hosted.seat_token == ""
    assert hosted.table.name == "Quiet room"
    assert not any(row.occupied for row in hosted.table.seat_rows)


async def test_bot_seats_are_filled_at_once(app: Parlour, store: MemoryEventStore) -> None:
    setup = [
        SeatChoice(),
        SeatChoice(SeatKind.BOT, "easy"),
        SeatChoice(SeatKind.BOT),
        SeatChoice(),
    ]
    hosted = await app.host_table("hearts", 0, {}, setup)  # the seats counted from the setup
    rows = (await app.get_table(hosted.table.table_id)).seat_rows
    assert [row.kind for row in rows] == [
        SeatKind.PERSON,
        SeatKind.BOT,
        SeatKind.BOT,
        SeatKind.PERSON,
    ]
    assert [row.occupied for row in rows] == [False, True, True, False]
    assert rows[1].bot_level == "easy" and rows[2].bot_level is None
    first = (await store.read(hosted.table.table_id))[0]
    assert first.payload["seat_kinds"] == ["person", "bot", "bot", "person"]
    # a person joining gets a person's seat, never a bot's
    joined = await app.join(hosted.table.table_id, "Bea")
    assert joined.seat == 0
    with pytest.raises(WrongTableState, match="kept for a bot"):
        await app.join(hosted.table.table_id, "Cy", seat=1)


async def test_hosting_validates_the_options_and_seats(
    app: Parlour, store: MemoryEventStore
) -> None:
    with pytest.raises(EngineError, match="seats"):
        await app.host_table("hearts", 9, {})
    with pytest.raises(EngineError, match="rounds"):
        await app.host_table("wizard", 4, {"rounds": "many"})
    with pytest.raises(EngineError):
        await app.host_table("hearts", 4, {"turn_seconds": 7})  # not one of the clock's choices
    with pytest.raises(UnknownGame):
        await app.host_table("snap", 2, {})
    with pytest.raises(BadRequest, match="4 seats but a setup for 2"):
        await app.host_table("hearts", 4, {}, [SeatChoice(), SeatChoice()])
    with pytest.raises(BadRequest, match="number of seats"):
        await app.host_table("hearts", 0, {})
    with pytest.raises(BadRequest, match="no bot level 'genius'"):
        await app.host_table("hearts", 4, {}, [SeatChoice(SeatKind.BOT, "genius")] * 4)
    with pytest.raises(BadRequest, match="kind must be person or bot"):
        await app.host_table("hearts", 4, {}, [SeatChoice("ghost")] * 4)
    with pytest.raises(BadRequest, match="host_player_name is required"):
        await app.host_table("hearts", 4, {}, host_takes_seat=True)
    assert await app.list_tables(status=None) == ([], "")  # nothing was recorded


async def test_the_clock_options_are_kept_with_the_games(app: Parlour) -> None:
    hosted = await app.host_table("hearts", 4, {"turn_seconds": 30})
    assert hosted.table.options["turn_seconds"] == 30
    assert "turn_seconds" not in (await app.host_table("hearts", 4, {})).table.options


# -- list ------------------------------------------------------------------------------


async def test_the_list_shows_open_tables_only_by_default(app: Parlour) -> None:
    waiting = await app.host_table("hearts", 4, {})
    started = await playing(app)
    crazy = await app.host_table("crazy8s", 2, {})
    shown = {row.table_id for row in (await app.list_tables())[0]}
    assert shown == {waiting.table.table_id, crazy.table.table_id}
    playing_now = (await app.list_tables(TableStatus.PLAYING))[0]
    assert [row.table_id for row in playing_now] == [started.table_id]
    every = (await app.list_tables(None))[0]
    assert len(every) == 3
    hearts = (await app.list_tables(game="hearts"))[0]
    assert [row.table_id for row in hearts] == [waiting.table.table_id]


async def test_the_list_pages_through_every_open_table_once(app: Parlour) -> None:
    hosted = {(await app.host_table("hearts", 4, {})).table.table_id for _ in range(5)}
    seen: list[str] = []
    token, pages = "", 0
    while True:
        rows, token = await app.list_tables(page_size=2, page_token=token)
        assert len(rows) <= 2
        seen += [row.table_id for row in rows]
        pages += 1
        if not token:
            break
    assert pages == 3 and sorted(seen) == sorted(hosted)
    with pytest.raises(BadRequest):  # a token for another listing
        first_page_token = (await app.list_tables(page_size=2))[1]
        await app.list_tables(TableStatus.PLAYING, page_size=2, page_token=first_page_token)


# -- join ------------------------------------------------------------------------------


async def test_joining_takes_the_lowest_free_seat_or_the_one_named(
    app: Parlour, store: MemoryEventStore
) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    named = await app.join(table_id, "Bea", seat=3)
    lowest = await app.join(table_id, "Cy")
    assert (named.seat, lowest.seat) == (3, 1)
    assert named.table.seat_rows[3].player_name == "Bea"
    assert lowest.table.seat_rows[1].occupied
    assert await log(store, table_id) == [
        (1, "TableHosted"),
        (2, "SeatTaken"),
        (3, "SeatTaken"),
        (4, "SeatTaken"),
    ]
    # the token returned works for that seat, and only for it
    await app.view(table_id, 3, Credentials(seat_token=named.seat_token))
    with pytest.raises(WrongToken):
        await app.view(table_id, 1, Credentials(seat_token=named.seat_token))
    with pytest.raises(MissingToken):
        await app.view(table_id, 1, Credentials())


async def test_a_taken_seat_and_a_full_table_are_refused(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await host_full(app, "hearts", 4)
    before = await log(store, seated.table_id)
    with pytest.raises(WrongTableState, match="seat 2 is taken by Player 2"):
        await app.join(seated.table_id, "Dee", seat=2)
    with pytest.raises(WrongTableState, match="no free seat"):
        await app.join(seated.table_id, "Dee")
    with pytest.raises(BadRequest, match="not seat 4"):
        await app.join(seated.table_id, "Dee", seat=4)
    with pytest.raises(BadRequest, match="player_name is required"):
        await app.join(seated.table_id, "   ")
    assert await log(store, seated.table_id) == before


async def test_a_started_table_cannot_be_joined_nor_left(app: Parlour) -> None:
    seated = await playing(app)
    with pytest.raises(WrongTableState, match="cannot join"):
        await app.join(seated.table_id, "Late")
    with pytest.raises(WrongTableState, match="cannot leave"):
        await app.leave(seated.table_id, 1, seated.seat(1))


# -- leave -----------------------------------------------------------------------------


async def test_leaving_reopens_the_seat_and_retires_its_token(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await host_full(app, "hearts", 4)
    row = await app.leave(seated.table_id, 2, seated.seat(2))
    assert not row.seat_rows[2].occupied and row.seat_rows[2].player_name is None
    assert (await log(store, seated.table_id))[-1] == (6, "SeatLeft")
    with pytest.raises(WrongToken):
        await app.view(seated.table_id, 2, seated.seat(2))
    with pytest.raises(WrongToken):  # nor may another seat's token free it
        await app.leave(seated.table_id, 2, seated.seat(1))
    again = await app.join(seated.table_id, "Eve")
    assert again.seat == 2
    await app.view(seated.table_id, 2, Credentials(seat_token=again.seat_token))


# -- start -----------------------------------------------------------------------------


async def test_only_the_host_starts_and_only_a_full_table(
    app: Parlour, store: MemoryEventStore
) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    host = Credentials(host_token=hosted.host_token)
    with pytest.raises(WrongTableState, match="seat 1 is still free"):
        await app.start(table_id, host)
    for name in ("Bea", "Cy", "Dee"):
        await app.join(table_id, name)
    before = await log(store, table_id)
    with pytest.raises(WrongToken, match="host"):
        await app.start(table_id, Credentials(host_token=hosted.seat_token))
    with pytest.raises(MissingToken):
        await app.start(table_id, Credentials(seat_token=hosted.seat_token))
    assert await log(store, table_id) == before
    row = await app.start(table_id, host)
    assert row.status == TableStatus.PLAYING
    assert await log(store, table_id) == [*before, (6, "GameStarted"), (7, "CardsDealt")]
    assert row.version == 7 == (await app.get_table(table_id)).version
    with pytest.raises(WrongTableState, match="not open"):
        await app.start(table_id, host)


async def test_the_first_deal_is_seen_by_every_seat(app: Parlour) -> None:
    seated = await playing(app)
    for seat in range(4):
        seen = await app.view(seated.table_id, seat, seated.seat(seat))
        assert seen.view is not None and len(seen.view.hand) == 13
        assert seen.version == 7


async def test_a_bots_table_starts_without_people(app: Parlour) -> None:
    hosted = await app.host_table("hearts", 4, {}, [SeatChoice(SeatKind.BOT)] * 4)
    row = await app.start(hosted.table.table_id, Credentials(host_token=hosted.host_token))
    assert row.status == TableStatus.PLAYING and row.person_active_at is None
