"""Ratings (issue 31, point 3) on SQLite and Postgres: OpenSkill Plackett-Luce per game,
a projection of the event log, live as games end and rebuilt from the log with the same
numbers; the rules of docs/ratings.md; the leaderboard in pages."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest

from parlour.cli import main as parlour
from parlour.service.app.ratings import PROVISIONAL_GAMES, outcome, provisional
from parlour.service.domain.errors import BadRequest
from parlour.service.domain.events import (
    GameAbandoned,
    GameFinished,
    SeatAway,
    SeatReturned,
    SeatTaken,
    TableHosted,
)
from parlour.service.store.home import DEFAULT_MU, DEFAULT_SIGMA
from parlour.service.store.protocol import stored_events, utcnow
from tests.home.conftest import Home, account, play_game


def subjects(*account_ids: str) -> list[str]:
    return [f"account:{account_id}" for account_id in account_ids]


async def test_fifty_games_rated_live_equal_the_ratings_rebuilt_from_the_log(
    home: Home, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(31)
    people = [await account(home.app, f"Player {n}") for n in range(5)]
    played = 0
    for number in range(50):
        game_rng = random.Random(number)
        seats: list[str | tuple[str, str] | None] = []
        for _ in range(rng.choice((2, 3))):
            roll = rng.random()
            seats.append(
                ("bot", rng.choice(("random", "easy", "normal")))
                if roll < 0.35
                else None
                if roll < 0.45
                else rng.choice([p for p in people if p not in seats])
            )
        if all(isinstance(who, tuple) for who in seats):
            seats[0] = people[number % len(people)]
        await play_game(home, "crazy8s", seats, game_rng)
        played += 1
    for number in range(2):  # two sides in Kaiser
        await play_game(
            home,
            "kaiser",
            [people[0], ("bot", "normal"), people[1], ("bot", "random")],
            random.Random(100 + number),
        )
        played += 1

    live = await home.store.home.all_ratings()
    assert {row.game for row in live} == {"crazy8s", "kaiser"}
    assert sum(row.games for row in live if row.game == "crazy8s") >= 100
    kaiser = {row.subject: row for row in live if row.game == "kaiser"}
    # partners moved together: one side's two accounts, the other side's two bot levels
    assert kaiser[f"account:{people[0]}"].mu == kaiser[f"account:{people[1]}"].mu
    assert kaiser["bot:kaiser:normal"].mu == kaiser["bot:kaiser:random"].mu

    ended, rated = await home.app.ratings.rebuild()
    assert ended == played and rated == played
    rebuilt = await home.store.home.all_ratings()
    assert [(r.game, r.subject, r.mu, r.sigma, r.games) for r in rebuilt] == [
        (r.game, r.subject, r.mu, r.sigma, r.games) for r in live
    ]

    # the command line does the same, through its own store
    await home.store.home.replace_all([], [])
    command = ["ratings", "--rebuild", "--database-url", store_url]
    assert await asyncio.to_thread(parlour, command) == 0
    assert "rebuilt from 52 ended games (52 rated)" in capsys.readouterr().out
    again = await home.store.home.all_ratings()
    assert [(r.subject, r.mu, r.sigma, r.games) for r in again] == [
        (r.subject, r.mu, r.sigma, r.games) for r in live
    ]


async def test_a_game_moves_the_winner_up_and_the_loser_down_once(home: Home) -> None:
    ada, bea = await account(home.app, "Ada"), await account(home.app)
    table_id = await play_game(home, "crazy8s", [ada, bea, ("bot", "easy")], random.Random(4))
    events = await home.store.read(table_id)
    finished = events[-1].payload
    rows = await home.store.home.ratings("crazy8s", [*subjects(ada, bea), "bot:crazy8s:easy"])
    assert set(rows) == {*subjects(ada, bea), "bot:crazy8s:easy"}
    assert all(row.games == 1 and provisional(row) for row in rows.values())
    winner = finished["winners"][0]
    by_seat = [f"account:{ada}", f"account:{bea}", "bot:crazy8s:easy"]
    assert rows[by_seat[winner]].mu > DEFAULT_MU
    assert all(row.sigma < DEFAULT_SIGMA for row in rows.values())
    assert rows[f"account:{ada}"].name == "Ada" and rows[f"account:{bea}"].name is None
    # rated once: the end hook again changes nothing
    assert not await home.app.ratings.game_ended(table_id)
    assert await home.store.home.ratings("crazy8s", list(rows)) == rows


async def test_the_leaderboard_pages_best_first_people_or_everyone(home: Home) -> None:
    people = [await account(home.app, f"Board {n}") for n in range(3)]
    for number in range(4):
        await play_game(home, "crazy8s", [*people, ("bot", "normal")], random.Random(number))
    board = home.app.leaderboard
    first, rank, token = await board.page("crazy8s", page_size=2)
    assert rank == 1 and len(first) == 2 and token
    rest, rank, last = await board.page("crazy8s", page_size=2, page_token=token)
    assert rank == 3 and len(rest) == 1 and last == ""
    everyone = first + rest
    assert {row.subject for row in everyone} == set(subjects(*people))
    ordinals = [row.ordinal for row in everyone]
    assert ordinals == sorted(ordinals, reverse=True)
    with_bots, _, _ = await board.page("crazy8s", include_bots=True, page_size=10)
    assert "bot:crazy8s:normal" in {row.subject for row in with_bots}
    with pytest.raises(BadRequest, match="another game or status"):
        await board.page("kaiser", page_size=2, page_token=token)
    with pytest.raises(BadRequest, match="not a token"):
        await board.page("crazy8s", page_token=token[:-2] + "xx")
    with pytest.raises(BadRequest, match="no game 'chess'"):
        await board.page("chess")
    assert PROVISIONAL_GAMES == 10


# -- the rules, on logs written for them (docs/ratings.md) ---------------------------------


def log_of(*events: object, table_id: str = "t1") -> list:  # type: ignore[type-arg]
    return stored_events(table_id, 0, [event.new() for event in events], None, utcnow())  # type: ignore[attr-defined]


def hosted(
    game: str = "crazy8s", seats: int = 3, kinds: tuple[str, ...] = (), **more: object
) -> TableHosted:
    kinds = kinds or ("person",) * seats
    levels = tuple("easy" if kind == "bot" else "" for kind in kinds)
    return TableHosted(game, seats, {}, kinds, levels, "t", **more)  # type: ignore[arg-type]


def test_a_seat_is_its_account_even_while_a_bot_played_it() -> None:
    found = outcome(
        log_of(
            hosted(kinds=("person", "person", "bot")),
            SeatTaken(0, "Ada", account_id="a1"),
            SeatTaken(1, "Bea", account_id="b1"),
            SeatAway(1, "easy"),
            SeatReturned(1),
            SeatAway(1, "easy"),
            GameFinished((30, 0, 12), (1,)),
        )
    )
    assert found is not None and found.result.rated
    assert found.sides == (("account:a1",), ("account:b1",), ("bot:crazy8s:easy",))
    # Crazy 8s: the lowest total wins; the winner first, then by total
    assert found.ranks == (3, 1, 2)


def test_a_person_without_an_account_is_left_out_and_the_others_keep_their_order() -> None:
    found = outcome(
        log_of(
            hosted(),
            SeatTaken(0, "Ada", account_id="a1"),
            SeatTaken(1, "Anon"),
            SeatTaken(2, "Cy", account_id="c1"),
            GameFinished((5, 0, 9), (1,)),
        )
    )
    assert found is not None
    assert found.sides == (("account:a1",), ("account:c1",)) and found.ranks == (1, 2)
    alone = outcome(
        log_of(
            hosted(seats=2),
            SeatTaken(0, "A", account_id="a1"),
            SeatTaken(1, "B"),
            GameFinished((0, 3), (0,)),
        )
    )
    assert alone is not None and not alone.result.rated and alone.sides == ()


def test_kaiser_is_two_sides_and_equal_totals_tie() -> None:
    kaiser = outcome(
        log_of(
            hosted("kaiser", 4, ("person", "bot", "person", "bot")),
            SeatTaken(0, "A", account_id="a1"),
            SeatTaken(2, "C", account_id="c1"),
            GameFinished((40, 20, 40, 20), (0, 2)),
        )
    )
    assert kaiser is not None
    assert kaiser.sides == (("account:a1", "account:c1"), ("bot:kaiser:easy", "bot:kaiser:easy"))
    assert kaiser.ranks == (1, 2)
    tie = outcome(
        log_of(
            hosted("wizard", 3),
            *(SeatTaken(n, "x", account_id=f"p{n}") for n in range(3)),
            GameFinished((50, 50, 10), (0, 1)),
        )
    )
    assert tie is not None and tie.ranks == (1, 1, 3)


def test_abandoned_games_are_rated_as_they_stood_unless_nothing_orders_them() -> None:
    seated = [SeatTaken(n, "x", account_id=f"p{n}") for n in range(3)]
    stood = outcome(log_of(hosted(), *seated, GameAbandoned((4, 0, 9))))
    assert stood is not None and stood.result.ending == "abandoned" and stood.result.rated
    assert stood.ranks == (2, 1, 3)
    level = outcome(log_of(hosted(), *seated, GameAbandoned((0, 0, 0))))
    assert level is not None and level.result.ending == "abandoned"
    assert not level.result.rated and level.sides == ()


def test_a_forked_table_and_a_table_still_playing_are_not_rated() -> None:
    seated = [SeatTaken(n, "x", account_id=f"p{n}") for n in range(3)]
    forked = outcome(
        log_of(
            hosted(forked_from={"table_id": "t0", "seq": 9}), *seated, GameFinished((1, 0, 2), (1,))
        )
    )
    assert forked is not None and not forked.result.rated
    assert outcome(log_of(hosted(), *seated)) is None


async def test_a_game_ended_past_a_crash_is_rated_by_the_rebuild(home: Home) -> None:
    ada, bea = await account(home.app), await account(home.app)
    home.app.tables.ended_hooks.clear()  # as if the process died between the two writes
    table_id = await play_game(home, "crazy8s", [ada, bea], random.Random(9))
    assert await home.store.home.ratings("crazy8s", subjects(ada, bea)) == {}
    assert await home.app.ratings.rebuild() == (1, 1)
    rows = await home.store.home.ratings("crazy8s", subjects(ada, bea))
    assert {row.games for row in rows.values()} == {1}
    history = await home.store.home.my_tables(ada, 10)
    assert history[0].table_id == table_id and history[0].result is not None
    assert history[0].result.ended_at - utcnow() < timedelta(0)
