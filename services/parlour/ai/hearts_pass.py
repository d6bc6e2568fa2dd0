"""Which three cards a Hearts (Kierki) computer opponent passes, at each level.

The pass is three single-card picks ("give" actions). Each pick re-plans from
the whole hand as dealt (the cards still held plus those already chosen) and
gives the first card of the plan not yet given, so the three picks are the
head of one plan.

- Easy passes its highest cards.
- Normal passes the queen, ace and king of spades when short of low spades to
  guard them, then high hearts, then the top of its shortest side suit,
  trying to void it.
- Hard ranks the same cards but voids a short side suit before anything but
  the queen of spades: a void is where it will unload the queen and hearts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from parlour.ai.common import of_kind
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card, Rank, Suit
from parlour.engine.view import View

QUEEN_OF_SPADES = Card.parse("QS")
SPADE_HONOURS = (Card.parse("AS"), Card.parse("KS"))
PICKS = 3
#: Fewer low spades than this and the queen, king and ace of spades are unsafe to keep.
GUARDS_NEEDED = 4
#: Hearts this high or higher are passed by normal and hard.
HIGH_HEART = Rank.JACK

Plan = Callable[[Sequence[Card]], list[Card]]


def highest_first(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: (-c.rank, -c.index))


def short_of_spades(hand: Sequence[Card]) -> bool:
    guards = [c for c in hand if c.suit is Suit.SPADES and c.rank < Rank.QUEEN]
    return len(guards) < GUARDS_NEEDED


def plan_easy(hand: Sequence[Card]) -> list[Card]:
    """The highest cards, whatever they are."""
    return highest_first(hand)


def _spade_danger(hand: Sequence[Card]) -> tuple[list[Card], list[Card]]:
    if not short_of_spades(hand):
        return [], []
    queen = [QUEEN_OF_SPADES] if QUEEN_OF_SPADES in hand else []
    return queen, [c for c in SPADE_HONOURS if c in hand]


def _high_hearts(hand: Sequence[Card]) -> list[Card]:
    return highest_first(c for c in hand if c.suit is Suit.HEARTS and c.rank >= HIGH_HEART)


def _shortest_side_suit(hand: Sequence[Card], room: int) -> list[Card]:
    """The cards of the shortest club or diamond suit that ``room`` picks can clear."""
    suits: list[list[Card]] = []
    for suit in (Suit.CLUBS, Suit.DIAMONDS):
        held = [c for c in hand if c.suit is suit]
        if 0 < len(held) <= room:
            suits.append(held)
    if not suits:
        return []

    def shortest_then_lowest(held: list[Card]) -> tuple[int, int]:
        return len(held), -max(c.rank for c in held)

    chosen = min(suits, key=shortest_then_lowest)
    return highest_first(chosen)


def plan_normal(hand: Sequence[Card]) -> list[Card]:
    """Dangerous spades (when short), then high hearts, then towards a void."""
    queen, honours = _spade_danger(hand)
    plan = queen + honours + _high_hearts(hand)
    plan += _shortest_side_suit(hand, PICKS)
    return _dedupe(plan + highest_first(hand))


def plan_hard(hand: Sequence[Card]) -> list[Card]:
    """The queen (when short), then a void if the picks left can make one, then as normal."""
    queen, honours = _spade_danger(hand)
    void = _shortest_side_suit(hand, PICKS - len(queen))
    plan = queen + void + honours + _high_hearts(hand)
    return _dedupe(plan + highest_first(hand))


def _dedupe(cards: list[Card]) -> list[Card]:
    return list(dict.fromkeys(cards))


def choose_give(view: View, legal: Sequence[Action], plan: Plan) -> Action:
    """The next card of the plan that may still be given."""
    offered = {a.card: a for a in of_kind(legal, ActionKind.GIVE) if a.card is not None}
    dealt = sorted(set(view.hand) | set(view.passed_cards))
    for card in plan(dealt):
        if card in offered:
            return offered[card]
    return next(iter(offered.values()), legal[0])
