"""The Crazy 8s computer opponent ("What the computer opponent does", crazy8s.md).

It plays the most expensive card it can get rid of, saves its eights until
the endgame or until nothing else plays, and when it plays an eight names the
suit it holds most of. It draws (or passes) only when it must: the engine
lists a draw only when nothing in hand plays.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from parlour.ai.common import of_kind, suit_counts
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card, Rank, Suit
from parlour.engine.view import View

#: An opponent down to this many cards is about to go out: the endgame.
ENDGAME = 1


def penalty(card: Card) -> int:
    """What the card costs if caught holding it: eight 50, ten to king 10, ace 1, else face."""
    if card.rank == Rank.EIGHT:
        return 50
    if Rank.TEN <= card.rank <= Rank.KING:
        return 10
    if card.rank == Rank.ACE:
        return 1
    return int(card.rank)


def is_eight(card: Card | None) -> bool:
    return card is not None and card.rank == Rank.EIGHT


def suit_to_name(hand: Sequence[Card], playing: Card) -> dict[Suit, int]:
    """How many of each suit would be left to follow with after ``playing`` (eights aside)."""
    return suit_counts(card for card in hand if card is not playing and not is_eight(card))


def in_endgame(view: View) -> bool:
    """An opponent is about to go out: an eight still held would cost 50."""
    opponents = [p.hand_size for p in view.players if p.seat != view.seat]
    return bool(opponents) and min(opponents) <= ENDGAME


def next_seat_lacks(view: View) -> set[Suit]:
    """Suits the next player has shown it lacks: it drew or passed with that suit in force.

    Read from the public history of the round; what it drew since may have
    brought the suit back, so only its latest run of draws counts.
    """
    assert view.seat is not None
    following = (view.seat + 1) % view.seats
    in_force: Suit | None = None  # unknown until the first card is played this round
    lacking: set[Suit] = set()
    drawing = False
    for move in view.history:
        words = move.text.split()
        if words[0] == "play":
            in_force = Suit.parse(words[3]) if len(words) == 4 else Card.parse(words[1]).suit
            drawing = False
        elif move.seat == following and words[0] in ("draw", "pass") and in_force is not None:
            if not drawing:
                lacking = set()
            lacking.add(in_force)
            drawing = True
    return lacking


def decide(view: View, legal: Sequence[Action], rng: random.Random) -> Action:
    """The normal Crazy 8s opponent."""
    plays = [a for a in of_kind(legal, ActionKind.PLAY) if a.card is not None]
    if not plays:
        return legal[0]  # a draw or a pass: the only thing there is to do
    lacks = next_seat_lacks(view)
    ordinary = [a for a in plays if not is_eight(a.card)]
    if ordinary and not (in_endgame(view) and len(ordinary) < len(plays)):
        return max(ordinary, key=lambda a: _shedding_order(view.hand, a, lacks))
    eights = [a for a in plays if is_eight(a.card)]
    return _best_eight(view.hand, eights, lacks, blocking=in_endgame(view))


def _shedding_order(
    hand: Sequence[Card], action: Action, lacks: set[Suit]
) -> tuple[int, bool, int, int]:
    """Most expensive first; then a suit the next player lacks; then keep the suit
    that leaves most to follow with."""
    card = action.card
    assert card is not None
    left = suit_to_name(hand, card)
    return penalty(card), card.suit in lacks, left.get(card.suit, 0), card.index


def _best_eight(
    hand: Sequence[Card], eights: list[Action], lacks: set[Suit], blocking: bool
) -> Action:
    """An eight, naming the suit held most of (ties: one the next player lacks).

    ``blocking``: the next player is about to go out, so a suit it lacks comes first.
    """

    def preference(action: Action) -> tuple[bool, int, bool, int]:
        assert action.card is not None
        held = suit_to_name(hand, action.card)
        named = action.suit if action.suit is not None else action.card.suit
        return blocking and named in lacks, held.get(named, 0), named in lacks, named.index

    return max(eights, key=preference)
