"""The generic random-playout test, run over every registered game.

For each game and seat count, full games of random legal moves (200 in
``make test``; ``PARLOUR_PLAYOUT_GAMES`` sets it, ``make soak`` plays 1,000):
legal actions are never empty for a seat to act until the game ends; no card
is ever duplicated or lost; a seat's view never shows another seat's hidden
cards; replaying the recorded decks and actions gives the same state; scores
in the view agree with the engine.
"""

from __future__ import annotations

import copy
import os
import pickle
import random
from collections import Counter

import pytest

from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.playout import random_chooser, step
from parlour.engine.registry import GAME_MODULES, get_game
from tests.engine.conftest import cards_in_view

GAMES_PER_SEAT_COUNT = int(os.environ.get("PARLOUR_PLAYOUT_GAMES", "200"))
VIEW_CHECKED_GAMES = 25  # every step of the first games is checked seat by seat


def seat_counts() -> list[tuple[str, int]]:
    cases = []
    for game in GAME_MODULES:
        info = get_game(game)
        cases += [(game, seats) for seats in range(info.min_seats, info.max_seats + 1)]
    return cases


def check_views(state: GameState) -> None:
    public = cards_in_view(state.view(None))
    assert state.view(None).hand == ()
    for seat in range(state.seats):
        view = state.view(seat)
        assert sorted(view.hand) == sorted(state.hand(seat))
        allowed = set(state.hand(seat)) | public | set(view.passed_cards)
        leaked = cards_in_view(view) - allowed
        assert not leaked, f"seat {seat} sees hidden cards {sorted(map(str, leaked))}"
        for other in range(state.seats):
            if other != seat:
                hidden = set(state.hand(other)) - public - set(view.passed_cards)
                assert not (cards_in_view(view) & hidden)


def check_conservation(state: GameState, pack: Counter[Card]) -> None:
    assert Counter(state.accounted_cards()) == pack


def play_one(game: str, seats: int, seed: int, check_every_view: bool) -> None:
    rng = random.Random(seed)
    info = get_game(game)
    state = info.new(seats, {})
    log: list[tuple[str, object]] = []
    pack: Counter[Card] | None = None
    while not state.is_over:
        cards = state.chance()
        if cards is not None:
            deck = list(cards)
            rng.shuffle(deck)
            if pack is None:
                pack = Counter(deck)
            state.deal(deck)
            log.append(("deal", tuple(deck)))
            continue
        assert pack is not None
        check_conservation(state, pack)
        to_act = state.to_act()
        assert to_act, "nobody to act, no deal due, and the game is not over"
        seat = rng.choice(to_act)
        legal = state.legal_actions(seat)
        assert legal, f"seat {seat} is to act but has no legal action"
        for other in range(seats):
            if other not in to_act:
                assert state.legal_actions(other) == []
        if check_every_view:
            check_views(state)
            assert tuple(state.view(seat).legal_actions) == tuple(legal)
        action = rng.choice(legal)
        state.apply(seat, action)
        log.append(("act", (seat, action)))
    assert state.to_act() == ()
    assert state.winners(), "a finished game has at least one winner"
    assert state.view(0).scores == state.scores()
    assert state.view(None).is_over
    check_views(state)
    # replaying the same facts gives the same game
    again = info.new(seats, {})
    for kind, fact in log:
        if kind == "deal":
            assert isinstance(fact, tuple)
            again.deal(fact)
        else:
            assert isinstance(fact, tuple)
            seat, action = fact
            assert isinstance(action, Action) and isinstance(seat, int)
            again.apply(seat, action)
    assert again.digest() == state.digest()
    assert again.scores() == state.scores()


@pytest.mark.parametrize(("game", "seats"), seat_counts())
def test_random_playouts(game: str, seats: int) -> None:
    for n in range(GAMES_PER_SEAT_COUNT):
        play_one(game, seats, seed=n * 7919 + seats, check_every_view=n < VIEW_CHECKED_GAMES)


@pytest.mark.parametrize("game", list(GAME_MODULES))
def test_a_state_in_play_clones_copies_and_pickles_to_an_independent_equal_state(
    game: str,
) -> None:
    """clone(), copy.deepcopy and pickle give the same position, which then plays on
    apart from the original (the engines compiled by mypyc as much as in pure Python)."""
    rng = random.Random(7)
    info = get_game(game)
    state = info.new(info.min_seats, {})
    choose = random_chooser(rng)
    for _ in range(25):  # into the first hand: dealt, and some moves made
        step(state, rng, choose)
    before = state.snapshot()
    for twin in (state.clone(), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert type(twin) is type(state) and twin.snapshot() == before
        assert twin.digest() == state.digest()
        seat = twin.to_act()[0]
        twin.apply(seat, twin.legal_actions(seat)[0])
        assert twin.snapshot() != before and state.snapshot() == before
