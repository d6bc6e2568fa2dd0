"""Rematch (issue 31, point 4) on SQLite and Postgres: after a game ends, "play again"
makes a new table with the same game, options and seats; each person accepts with the
same call and takes their own seat; the bots come along; it starts once every person
is back. Refusals change nothing."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from parlour.service.app.parlour import Credentials
from parlour.service.domain.errors import (
    Barred,
    NotSignedIn,
    SeatHeldForRematch,
    WrongTableState,
)
from parlour.service.domain.statuses import SeatKind, TableStatus
from tests.home.conftest import Home, account, host_and_start, play_game


async def test_play_again_seats_everyone_where_they_were_and_starts_when_all_accept(
    home: Home,
) -> None:
    app = home.app
    ada, bea, cyd = [await account(app, n) for n in ("Ada Rose", "Bea Lu", "Cyd Moe")]
    ended = await play_game(home, "crazy8s", [ada, ("bot", "random"), bea], random.Random(5))
    before = await app.get_table(ended)
    state = await app.rematches.state(ended, bea)
    assert state.rematch is None and state.my_seat == 2

    with pytest.raises(Barred, match="only the people who played"):
        await app.rematches.play_again(ended, Credentials(account_id=cyd, account_name="Cyd Moe"))
    with pytest.raises(NotSignedIn):
        await app.rematches.play_again(ended, Credentials())
    assert (await app.rematches.state(ended)).rematch is None  # refusals made nothing

    first = await app.rematches.play_again(
        ended, Credentials(account_id=ada, account_name="Ada Rose")
    )
    rematch = first.state.rematch
    assert rematch is not None and rematch.table_id != ended
    assert first.seat == 0 and first.seat_token and first.host_token
    assert rematch.status == TableStatus.OPEN
    assert (rematch.game, rematch.seats, rematch.options) == (
        before.game,
        before.seats,
        before.options,
    )
    kinds = [(row.kind, row.bot_level, row.occupied, row.account_id) for row in rematch.seat_rows]
    assert kinds == [
        (SeatKind.PERSON, None, True, ada),
        (SeatKind.BOT, "random", True, None),
        (SeatKind.PERSON, None, False, None),
    ]
    again = await app.rematches.play_again(
        ended, Credentials(account_id=ada, account_name="Ada Rose")
    )
    assert again.state.rematch is not None and again.state.rematch.table_id == rematch.table_id
    assert again.seat_token == "" and again.host_token == ""

    accepted = await app.rematches.play_again(
        ended, Credentials(account_id=bea, account_name="Bea Lu")
    )
    assert accepted.seat == 2 and accepted.seat_token and not accepted.host_token
    assert accepted.state.rematch is not None
    assert accepted.state.rematch.status == TableStatus.PLAYING  # everyone back: it started
    started = await app.get_table(rematch.table_id)
    assert started.status == TableStatus.PLAYING
    assert [row.account_id for row in started.seat_rows] == [ada, None, bea]
    # the rematch is in both players' history, newest first
    for who in (ada, bea):
        games = await home.store.home.my_tables(who, 5)
        assert [row.table_id for row in games][:2] == [rematch.table_id, ended]
    # the session plays the new seat
    view = await app.view(rematch.table_id, 2, Credentials(account_id=bea))
    assert view.view is not None and view.view.seat == 2


async def test_no_rematch_before_the_end(home: Home) -> None:
    ada, bea = await account(home.app, "Ada Rose"), await account(home.app, "Bea Lu")
    table_id, _ = await host_and_start(home.app, "crazy8s", [ada, bea])
    with pytest.raises(WrongTableState, match="once the game has ended"):
        await home.app.rematches.play_again(table_id, Credentials(account_id=ada))
    assert await home.store.home.rematch_of(table_id) is None


async def test_a_rematch_seat_waits_for_its_old_player_until_they_decline(home: Home) -> None:
    """Each person's seat at the rematch is held for them: a stranger is refused it
    (SEAT_HELD_FOR_REMATCH), by number or by taking any seat, and the refusal changes
    nothing; once they decline, it is an ordinary free seat."""
    app = home.app
    ada, bea, cyd = [await account(app, n) for n in ("Ada Rose", "Bea Lu", "Cyd Moe")]
    ended = await play_game(home, "crazy8s", [ada, ("bot", "random"), bea], random.Random(6))
    with pytest.raises(WrongTableState, match="no rematch was offered"):
        await app.rematches.decline(ended, Credentials(account_id=bea))
    made = await app.rematches.play_again(
        ended, Credentials(account_id=ada, account_name="Ada Rose")
    )
    assert made.state.rematch is not None
    rematch_id = made.state.rematch.table_id
    state = await app.rematches.state(ended, bea)
    assert list(state.holds) == [2] and state.holds[2].account_id == bea
    assert state.declined == frozenset()

    stranger = Credentials(account_id=cyd, account_name="Cyd Moe")
    for seat in (2, None):
        with pytest.raises(SeatHeldForRematch) as refused:
            await app.join(rematch_id, "Cyd Moe", seat, credentials=stranger)
        assert refused.value.REASON == "SEAT_HELD_FOR_REMATCH"
    with pytest.raises(SeatHeldForRematch):  # a person without an account too
        await app.join(rematch_id, "Dot", None)
    assert not (await app.get_table(rematch_id)).seat_rows[2].occupied  # nothing changed

    with pytest.raises(Barred, match="only the people who played"):
        await app.rematches.decline(ended, stranger)
    with pytest.raises(WrongTableState, match="took your seat"):
        await app.rematches.decline(ended, Credentials(account_id=ada))
    declined = await app.rematches.decline(ended, Credentials(account_id=bea))
    assert declined.holds == {} and declined.declined == frozenset({2})
    joined = await app.join(rematch_id, "Cyd Moe", None, credentials=stranger)
    assert joined.seat == 2 and joined.table.seat_rows[2].account_id == cyd


async def test_a_rematch_seat_is_free_for_anyone_once_its_hold_times_out(home: Home) -> None:
    app = home.app
    ada, bea, cyd = [await account(app, n) for n in ("Ada Rose", "Bea Lu", "Cyd Moe")]
    ended = await play_game(home, "crazy8s", [ada, bea], random.Random(7))
    made = await app.rematches.play_again(
        ended, Credentials(account_id=ada, account_name="Ada Rose")
    )
    assert made.state.rematch is not None
    rematch_id = made.state.rematch.table_id
    stranger = Credentials(account_id=cyd, account_name="Cyd Moe")
    with pytest.raises(SeatHeldForRematch):
        await app.join(rematch_id, "Cyd Moe", 1, credentials=stranger)
    # the hold's time passed (a hold of no time: every hold made is over)
    app.lobby.rematch_hold = timedelta(0)
    assert (await app.rematches.state(ended, bea)).holds == {}
    joined = await app.join(rematch_id, "Cyd Moe", 1, credentials=stranger)
    assert joined.seat == 1
    # Bea's "play again" now finds her seat taken
    with pytest.raises(WrongTableState):
        await app.rematches.play_again(ended, Credentials(account_id=bea, account_name="Bea Lu"))
