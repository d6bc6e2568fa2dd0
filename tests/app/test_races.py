"""The unit of work's lost races (``app/tables.py``), between two replicas over one
memory store: the second replica appends first (``RacingStore.lose_to``), and
the first's use case is retried once or answered LostRace, as its rule says
(moves: retried unless pinned to a version; join and leave: retried; start:
refused; the sweeper's duties: False, quietly). Nothing is ever applied twice.
"""

from __future__ import annotations

import pytest

from parlour.engine.errors import EngineError
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain.errors import LostRace, StaleVersion, WrongTableState
from parlour.service.domain.statuses import TableStatus
from parlour.service.store.protocol import StoredEvent
from tests.app.conftest import RacingStore, Seated, host_full, later, log, playing, truth


async def gives(store: RacingStore, table_id: str) -> list[tuple[int, str]]:
    """The moves in the log, as (seat, action)."""
    events: list[StoredEvent] = await store.read(table_id)
    return [
        (event.payload["seat"], event.payload["action"])
        for event in events
        if event.type == "ActionTaken"
    ]


async def first_gives(store: RacingStore, seated: Seated) -> dict[int, str]:
    """Each seat's first legal move in hearts' passing (every seat is to act)."""
    state = await truth(store, seated.table_id)
    return {seat: str(state.legal_actions(seat)[0]) for seat in range(4)}


# -- moves -----------------------------------------------------------------------------


async def test_an_unpinned_move_that_lost_its_race_is_retried_once(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    seated = await playing(app)
    move = await first_gives(store, seated)
    store.lose_to(lambda: other.act(seated.table_id, 1, seated.seat(1), move[1]))
    after = await app.act(seated.table_id, 0, seated.seat(0), move[0])
    assert after.version == 9  # after the rival's move (8), its own
    assert await gives(store, seated.table_id) == [(1, move[1]), (0, move[0])]


async def test_an_unpinned_move_that_loses_twice_is_refused(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    seated = await playing(app)
    move = await first_gives(store, seated)
    store.lose_to(
        lambda: other.act(seated.table_id, 1, seated.seat(1), move[1]),
        lambda: other.act(seated.table_id, 2, seated.seat(2), move[2]),
    )
    with pytest.raises(LostRace, match="another move reached table"):
        await app.act(seated.table_id, 0, seated.seat(0), move[0])
    assert await gives(store, seated.table_id) == [(1, move[1]), (2, move[2])]
    # the loser's cache was not left with its move: the next view shows the log's game
    seen = await app.view(seated.table_id, 0, seated.seat(0))
    assert seen.version == 9 and seen.view is not None and seen.view.passed_cards == ()


async def test_a_pinned_move_that_lost_its_race_to_a_move_is_refused_as_stale(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    seated = await playing(app)
    move = await first_gives(store, seated)
    await app.view(seated.table_id, 0, seated.seat(0))  # the loser's cache is at 7
    store.lose_to(lambda: other.act(seated.table_id, 1, seated.seat(1), move[1]))
    # retried once with the store read: a move came since version 7, so it is stale
    with pytest.raises(StaleVersion, match="fetch the view and decide again"):
        await app.act(seated.table_id, 0, seated.seat(0), move[0], expected_version=7)
    assert await gives(store, seated.table_id) == [(1, move[1])]
    seen = await app.view(seated.table_id, 0, seated.seat(0), min_version=8)
    assert seen.version == 8 and seen.view is not None and seen.view.passed_cards == ()


async def test_a_pinned_move_that_lost_its_race_to_a_chat_line_is_applied(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    seated = await playing(app)
    move = await first_gives(store, seated)
    await app.view(seated.table_id, 0, seated.seat(0))  # the loser's cache is at 7
    store.lose_to(lambda: other.say(seated.table_id, 1, seated.seat(1), "hello"))
    seen = await app.act(seated.table_id, 0, seated.seat(0), move[0], expected_version=7)
    assert seen.version == 9  # after the line (8) another replica wrote
    assert await gives(store, seated.table_id) == [(0, move[0])]
    assert [line.text for line in seen.chat] == ["hello"]


async def test_the_same_move_made_first_elsewhere_is_not_made_twice(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    seated = await playing(app)
    move = await first_gives(store, seated)
    store.lose_to(lambda: other.act(seated.table_id, 0, seated.seat(0), move[0]))
    with pytest.raises(EngineError):  # retried: the card is no longer the seat's to give
        await app.act(seated.table_id, 0, seated.seat(0), move[0])
    assert await gives(store, seated.table_id) == [(0, move[0])]


async def test_a_request_resent_to_another_replica_that_won_answers_its_first_result(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    seated = await playing(app)
    move = await first_gives(store, seated)
    store.lose_to(lambda: other.act(seated.table_id, 0, seated.seat(0), move[0], request_id="once"))
    answer = await app.act(seated.table_id, 0, seated.seat(0), move[0], request_id="once")
    assert answer.duplicate and answer.version == 8
    assert await gives(store, seated.table_id) == [(0, move[0])]


# -- the lobby -------------------------------------------------------------------------


async def test_a_join_that_lost_its_race_takes_the_next_free_seat(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    store.lose_to(lambda: other.join(table_id, "Bea"))
    joined = await app.join(table_id, "Cy")
    (rival,) = store.rivals_answered
    assert getattr(rival, "seat", None) == 1 and joined.seat == 2
    assert [kind for _, kind in await log(store, table_id)].count("SeatTaken") == 3
    rows = (await app.get_table(table_id)).seat_rows
    assert [row.player_name for row in rows] == ["Ada", "Bea", "Cy", None]


async def test_a_join_for_a_seat_taken_meanwhile_is_refused(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    hosted = await app.host_table("hearts", 4, {})
    table_id = hosted.table.table_id
    store.lose_to(lambda: other.join(table_id, "Bea", seat=2))
    with pytest.raises(WrongTableState, match="seat 2 is taken by Bea"):
        await app.join(table_id, "Cy", seat=2)
    assert await log(store, table_id) == [(1, "TableHosted"), (2, "SeatTaken")]


async def test_a_leave_that_lost_its_race_is_retried(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    joined = await app.join(table_id, "Bea")
    store.lose_to(lambda: other.join(table_id, "Cy"))
    row = await app.leave(table_id, 0, Credentials(seat_token=hosted.seat_token))
    assert [r.occupied for r in row.seat_rows] == [False, True, True, False]
    assert joined.seat == 1
    assert [kind for _, kind in await log(store, table_id)].count("SeatLeft") == 1


async def test_a_start_that_lost_its_race_is_refused_and_deals_nothing(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    seated = await host_full(app, "hearts", 4)
    store.lose_to(lambda: other.leave(seated.table_id, 3, seated.seat(3)))
    with pytest.raises(LostRace, match="the table changed while starting"):
        await app.start(seated.table_id, seated.host)
    kinds = [kind for _, kind in await log(store, seated.table_id)]
    assert kinds[-1] == "SeatLeft" and "GameStarted" not in kinds
    assert (await app.get_table(seated.table_id)).status == TableStatus.OPEN
    # the start the loser folded ahead was dropped: a full table starts once, afresh
    await other.join(seated.table_id, "Dee")
    await app.start(seated.table_id, seated.host)
    kinds = [kind for _, kind in await log(store, seated.table_id)]
    assert kinds.count("GameStarted") == 1 and kinds.count("CardsDealt") == 1


# -- the sweeper's duties --------------------------------------------------------------


async def test_a_duty_that_lost_its_race_does_nothing_quietly(
    app: Parlour, other: Parlour, store: RacingStore
) -> None:
    seated = await playing(app)
    move = await first_gives(store, seated)
    store.lose_to(lambda: other.act(seated.table_id, 1, seated.seat(1), move[1]))
    assert not await app.abandon(seated.table_id, later())
    assert (await app.get_table(seated.table_id)).status == TableStatus.PLAYING
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    store.lose_to(lambda: other.join(hosted.table.table_id, "Bea"))
    assert not await app.expire(hosted.table.table_id, later())
    assert (await app.get_table(hosted.table.table_id)).status == TableStatus.OPEN
    kinds = [kind for _, kind in await log(store, seated.table_id)]
    kinds += [kind for _, kind in await log(store, hosted.table.table_id)]
    assert "GameAbandoned" not in kinds and "TableExpired" not in kinds
    # both rivals got through: the duties lost real races
    assert not any(isinstance(answer, Exception) for answer in store.rivals_answered)
    assert kinds.count("ActionTaken") == 1 and kinds.count("SeatTaken") == 6
