"""A hand's result names who took the cards that count apart from the tricks:
Kaiser's five of hearts and three of spades, Hearts' queen of spades."""

from __future__ import annotations

import random

from parlour.engine.cards import Card
from parlour.engine.playout import random_chooser, step
from parlour.engine.registry import new_game
from parlour.engine.results import HeartsHandResult, KaiserHandResult


def _first_hand(game: str, seed: int) -> tuple[object, list[tuple[int, list[Card]]]]:
    """Play ``game`` at random to the end of its first hand: (its detail, each trick's
    (winner, cards)) as the public views showed them."""
    rng = random.Random(seed)
    state = new_game(game, 4)
    choose = random_chooser(rng)
    tricks: list[tuple[int, list[Card]]] = []
    while state.last_hand() is None:
        step(state, rng, choose)
        view = state.view(None)
        if view.last_trick is not None and view.last_trick.winner is not None:
            taken = (view.last_trick.winner, [play.card for play in view.last_trick.plays])
            if not tricks or tricks[-1] != taken:
                tricks.append(taken)
    result = state.last_hand()
    assert result is not None
    return result.detail, tricks


def _taker(tricks: list[tuple[int, list[Card]]], code: str) -> int | None:
    card = Card.parse(code)
    return next((winner for winner, cards in tricks if card in cards), None)


def test_kaiser_names_who_took_the_five_of_hearts_and_the_three_of_spades() -> None:
    for seed in range(5):
        detail, tricks = _first_hand("kaiser", seed)
        assert isinstance(detail, KaiserHandResult)
        assert detail.five_of_hearts_seat == _taker(tricks, "5H")
        assert detail.three_of_spades_seat == _taker(tricks, "3S")
        assert detail.five_of_hearts_seat is not None


def test_hearts_names_who_took_the_queen_of_spades() -> None:
    for seed in range(5):
        detail, tricks = _first_hand("hearts", seed)
        assert isinstance(detail, HeartsHandResult)
        assert detail.queen_of_spades_seat is not None
        assert detail.queen_of_spades_seat == _taker(tricks, "QS")
