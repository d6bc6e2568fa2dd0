"""What every computer opponent shares: the strategy protocol, the random
baseline and small helpers for reading a view.

A strategy is a pure function of what one seat may see (its ``View``), the
legal actions the server lists for it, and a seeded ``random.Random``. It
never sees another seat's hidden cards: everything here reads only the view.
This package may import the card model, actions and view types of the engine,
never a game's state (see ``tests/test_boundaries.py``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card, Suit
from parlour.engine.trick import Play, Trick
from parlour.engine.view import View

Decide = Callable[[View, Sequence[Action], random.Random], Action]


class Strategy(Protocol):
    """A computer opponent: picks one of the legal actions for the seat in view."""

    @property
    def name(self) -> str: ...

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action: ...


@dataclass(frozen=True, slots=True)
class NamedStrategy:
    """A strategy made from a plain decision function, named ``game/level``."""

    game: str
    level: str
    decide: Decide

    @property
    def name(self) -> str:
        return f"{self.game}/{self.level}"

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError(f"{self.name}: no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        return self.decide(view, legal, rng)


def choose_randomly(view: View, legal: Sequence[Action], rng: random.Random) -> Action:
    """The baseline: a uniformly random legal action."""
    return legal[rng.randrange(len(legal))]


# -- reading the legal actions ------------------------------------------------------
def of_kind(legal: Iterable[Action], kind: ActionKind) -> list[Action]:
    return [action for action in legal if action.kind is kind]


def playable(legal: Iterable[Action]) -> dict[Card, Action]:
    """The cards that may be played now, each with its (first) play action."""
    found: dict[Card, Action] = {}
    for action in legal:
        if action.kind is ActionKind.PLAY and action.card is not None:
            found.setdefault(action.card, action)
    return found


# -- reading the table ---------------------------------------------------------------
def current_plays(view: View) -> tuple[Play, ...]:
    return () if view.current_trick is None else view.current_trick.plays


def tricks_seen(view: View) -> tuple[Trick, ...]:
    """The completed tricks of this hand, then the trick in progress (if any)."""
    if view.current_trick is not None and view.current_trick.plays:
        return (*view.tricks, view.current_trick)
    return view.tricks


def cards_played(view: View) -> set[Card]:
    """Every card played to a trick this hand, the trick in progress included."""
    return {play.card for trick in tricks_seen(view) for play in trick.plays}


def still_to_play(view: View) -> list[int]:
    """The seats that play to the current trick after this one, in order."""
    assert view.seat is not None
    played = len(current_plays(view))
    return [(view.seat + k) % view.seats for k in range(1, view.seats - played)]


def voids_shown(view: View) -> dict[int, set[Suit]]:
    """Suits each seat has shown it lacks: it played another suit on a lead of that suit.

    Only ordinary cards count, so Wizard's wizards and jesters (which may be
    played whatever one holds) reveal nothing.
    """
    voids: dict[int, set[Suit]] = {}
    for trick in tricks_seen(view):
        led: Suit | None = None
        for play in trick.plays:
            card = play.card
            if not card.is_ordinary:
                if card.is_wizard and led is None:
                    break  # a wizard at the front: no suit led, nothing to follow
                continue
            if led is None:
                led = card.suit
            elif card.suit is not led:
                voids.setdefault(play.seat, set()).add(led)
    return voids


def winning_play(plays: Sequence[Play], trump: Suit | None) -> Play | None:
    """Who is winning a trick of ordinary cards so far: highest trump, else highest of the lead."""
    if not plays:
        return None
    best = plays[0]  # the winner so far is always of the led suit or trump
    for play in plays[1:]:
        card, top = play.card, best.card
        if (card.suit is top.suit and card.rank > top.rank) or (
            card.suit is trump and top.suit is not trump
        ):
            best = play
    return best


def suit_counts(cards: Iterable[Card]) -> dict[Suit, int]:
    counts: dict[Suit, int] = {}
    for card in cards:
        if card.is_ordinary:
            counts[card.suit] = counts.get(card.suit, 0) + 1
    return counts


def unseen_cards(pack: Iterable[Card], view: View, also_known: Iterable[Card] = ()) -> set[Card]:
    """Cards of ``pack`` this seat has not seen: not in its hand, not played, not shown."""
    seen = set(view.hand) | cards_played(view) | set(also_known)
    if view.turned_card is not None:
        seen.add(view.turned_card)
    return {card for card in pack if card not in seen}
