"""A trick and its plays: the values both a seat's view and a hand's result hold.

Their own module, so that :mod:`parlour.engine.view` and
:mod:`parlour.engine.results` can both use them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from parlour.engine.cards import Card, Suit


@dataclass(frozen=True, slots=True)
class Play:
    """One card played to a trick, and by whom."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led, the cards in order, and (once complete) who took it."""

    leader: int
    plays: tuple[Play, ...]
    winner: int | None = None
    led_suit: Suit | None = None
