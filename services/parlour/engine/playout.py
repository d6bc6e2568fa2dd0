"""Random playouts: the chance source used by tests, benchmarks and self-play.

The engine itself never shuffles; this module is the "outside" that supplies
decks, from a caller-seeded ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.cards import Card

Chooser = Callable[[GameState, int, list[Action]], Action]


def shuffled(cards: tuple[Card, ...], rng: random.Random) -> list[Card]:
    deck = list(cards)
    rng.shuffle(deck)
    return deck


def random_chooser(rng: random.Random) -> Chooser:
    def choose(state: GameState, seat: int, legal: list[Action]) -> Action:
        return rng.choice(legal)

    return choose


def step(state: GameState, rng: random.Random, choose: Chooser) -> None:
    """Advance one step: a deal if one is due, else one action of the first seat to act."""
    cards = state.chance()
    if cards is not None:
        state.deal(shuffled(cards, rng))
        return
    seat = state.to_act()[0]
    state.apply(seat, choose(state, seat, state.legal_actions(seat)))


def play_out(state: GameState, rng: random.Random, choose: Chooser | None = None) -> GameState:
    """Play ``state`` to the end with ``choose`` (random legal moves by default)."""
    chooser = choose or random_chooser(rng)
    while not state.is_over:
        step(state, rng, chooser)
    return state
