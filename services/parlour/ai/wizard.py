"""The Wizard computer opponent ("What the computer opponent does", wizard.md).

It counts its expected tricks -- a wizard is one, a jester none, any other
card its chance of taking a trick, which depends on how high it is, whether it
is trump, how long its suit is, how much of the pack is dealt and how many
play -- and bids the nearest number still on offer.
In play it chases tricks while short of its bid, each as cheaply as it can,
and ducks once it has them, leading a jester when it has one to spare. After
a turned wizard the dealer names its strongest suit as trump.

The chances are a fit to self-play: how often each card of the hands dealt
took a trick under this strategy's own bids and play, refitted until stable
(``parlour selfplay --games wizard`` measures the result).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from parlour.ai.common import (
    cards_played,
    current_plays,
    of_kind,
    playable,
    still_to_play,
    suit_counts,
)
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card, Suit, wizard_deck
from parlour.engine.view import View

PACK = wizard_deck()

Chance = Callable[[Card], float]
Order = Callable[[Card], tuple[int, int]]

#: A wizard nearly always takes its trick (only an earlier wizard beats it).
WIZARD_WORTH = 0.95
#: Each card's chance to take a trick, fitted to self-play (see ``card_worth``):
#: weights of (1, height, height above the middle, share of the pack dealt, its square,
#: height x dealt, the suit's share of the hand, 1/seats, height/seats) for
#: trumps, for side suits when there is trump, and when there is none.
TRUMP_FIT = (-0.74, 0.489, 0.241, 0.946, -0.873, 0.453, 0.65, 2.286, -0.88)
SIDE_FIT = (0.305, -0.954, 0.633, -0.299, 0.136, 0.287, -0.058, -0.609, 3.208)
NO_TRUMP_FIT = (-0.024, -1.003, 1.324, 0.18, -0.187, 0.324, 0.355, -0.282, 3.049)
#: How much an unseen trump threatens a side-suit card (its holder must be void first).
RUFF_THREAT = 0.35
#: Chasing: the cheapest winner that holds at least this often is good enough.
SAFE_ENOUGH = 0.5


def strength(card: Card, trump: Suit | None) -> int:
    """Order of usefulness for taking tricks: jester < side suits < trump < wizard."""
    if card.is_wizard:
        return 40
    if card.is_jester:
        return 0
    return int(card.rank) + (20 if card.suit is trump else 0)


def winner_index(cards: Sequence[Card], trump: Suit | None) -> int:
    """Which of the cards on a trick takes it (or would, were the trick to end now)."""
    led: Suit | None = None
    for i, card in enumerate(cards):
        if card.is_wizard:
            return i  # the first wizard takes it, whatever else is down
        if card.is_ordinary and led is None:
            led = card.suit
    best = -1
    for wanted in (trump, led):
        if wanted is None:
            continue
        for i, card in enumerate(cards):
            if not card.is_ordinary or card.suit is not wanted:
                continue
            if best < 0 or card.rank > cards[best].rank:
                best = i
        if best >= 0:
            return best
    return 0  # nothing but jesters: the first one


def wins_now(table: Sequence[Card], card: Card, trump: Suit | None) -> bool:
    return winner_index([*table, card], trump) == len(table)


def hold_chance(
    card: Card, table: Sequence[Card], unseen: set[Card], cards_behind: int, trump: Suit | None
) -> float:
    """How likely ``card``, winning the trick now, still wins it after the seats behind play.

    Each unseen card sits behind this seat with chance ``cards_behind / unseen``;
    the card holds if none of the cards that would beat it is there.
    """
    if cards_behind <= 0 or not unseen:
        return 1.0
    if card.is_wizard:
        return 1.0
    if card.is_jester:
        return 0.0  # only a trick of nothing but jesters goes to a jester
    on_table = [c for c in table if c.is_ordinary]
    led = on_table[0].suit if on_table else card.suit
    wizards = sum(1 for c in unseen if c.is_wizard)
    higher = sum(1 for c in unseen if c.is_ordinary and c.suit is card.suit and c.rank > card.rank)
    threats = float(wizards + higher)
    if card.suit is not trump and trump is not None and card.suit is led:
        threats += RUFF_THREAT * sum(1 for c in unseen if c.is_ordinary and c.suit is trump)
    behind = min(1.0, cards_behind / len(unseen))
    return float((1.0 - behind) ** threats)


def expected_tricks(hand: Sequence[Card], view: View) -> float:
    """The bid before any card is played: the sum of each card's chance to take a trick."""
    dealt = len(hand) * view.seats / len(PACK)  # how much of the pack is out
    lengths = suit_counts(hand)
    trump = view.trump
    return sum(card_worth(c, trump, view.seats, dealt, lengths, len(hand)) for c in hand)


def card_worth(
    card: Card,
    trump: Suit | None,
    seats: int,
    dealt: float,
    lengths: dict[Suit, int],
    in_hand: int,
) -> float:
    """One card's chance to take a trick, by height, trump or not, and suit lengths.

    A linear fit to how often each card took a trick in self-play (the cards
    of every hand dealt, with the bids and play of this strategy).
    """
    if card.is_wizard:
        return WIZARD_WORTH
    if card.is_jester:
        return 0.0
    height = (int(card.rank) - 2) / 12
    share = lengths.get(card.suit, 0) / in_hand
    if card.suit is trump:
        fit = TRUMP_FIT
    else:
        fit = SIDE_FIT if trump is not None else NO_TRUMP_FIT

    def fitted(h: float) -> float:
        features = (
            1.0,
            h,
            max(0.0, h - 0.5),
            dealt,
            dealt**2,
            h * dealt,
            share,
            1 / seats,
            h / seats,
        )
        return sum(w * f for w, f in zip(fit, features, strict=True))

    # The fit is piecewise linear in height; its running maximum keeps a higher
    # card worth at least as much as a lower one of the same kind.
    worth = max(fitted(h) for h in (0.0, min(height, 0.5), height))
    return min(1.0, max(0.0, worth))


def choose_bid(view: View, legal: Sequence[Action]) -> Action:
    """The nearest number still on offer to the expected tricks (ties go low)."""
    bids = [a for a in legal if a.kind is ActionKind.BID and a.number is not None]
    target = expected_tricks(view.hand, view)
    return min(bids, key=lambda a: (abs(float(a.number or 0) - target), a.number or 0))


def choose_trump(view: View, legal: Sequence[Action]) -> Action:
    """The dealer's strongest suit: the most cards, counting high ones for more."""
    scores: dict[Suit, float] = {}
    for card in view.hand:
        if card.is_ordinary:
            scores[card.suit] = scores.get(card.suit, 0.0) + 1.0 + int(card.rank) / 14
    names = [a for a in legal if a.kind is ActionKind.NAME_TRUMP and a.suit is not None]
    return max(names, key=lambda a: scores.get(a.suit, 0.0) if a.suit else 0.0)


def tricks_still_wanted(view: View) -> int:
    assert view.seat is not None
    me = view.players[view.seat]
    bid = int(me.bid) if me.bid.strip().isdigit() else 0
    return bid - me.tricks_taken


def choose_play(view: View, legal: Sequence[Action]) -> Action:
    cards = playable(legal)
    trump = view.trump
    table = [play.card for play in current_plays(view)]
    unseen = set(PACK) - set(view.hand) - cards_played(view)
    if view.turned_card is not None:
        unseen.discard(view.turned_card)
    behind = sum(view.players[s].hand_size for s in still_to_play(view))

    def chance(card: Card) -> float:
        if not wins_now(table, card, trump):
            return 0.0
        return hold_chance(card, table, unseen, behind, trump)

    def by_strength(card: Card) -> tuple[int, int]:
        return strength(card, trump), card.index

    wanted = tricks_still_wanted(view)
    if wanted > 0:
        return cards[_chase(list(cards), chance, by_strength, wanted, len(view.hand), bool(table))]
    return cards[_duck(list(cards), table, trump, chance, by_strength, behind == 0)]


def _chase(
    cards: list[Card],
    chance: Chance,
    by_strength: Order,
    wanted: int,
    in_hand: int,
    following: bool,
) -> Card:
    """Short of the bid: take a trick as cheaply as will likely hold."""
    odds = {card: chance(card) for card in cards}
    safe = [c for c in cards if odds[c] >= SAFE_ENOUGH]
    if safe:
        return min(safe, key=by_strength)
    desperate = wanted >= in_hand
    if desperate or (following and any(odds.values())):
        winners = [c for c in cards if odds[c] > 0]
        if winners:
            return max(winners, key=lambda c: (odds[c], -by_strength(c)[0]))
    # Nothing worth spending: give the trick up with the least useful card,
    # keeping jesters for later ducks unless every remaining trick is needed.
    ordinary = [c for c in cards if not c.is_jester]
    if desperate or not ordinary:
        return min(cards, key=by_strength)
    return min(ordinary, key=by_strength)


def _duck(
    cards: list[Card],
    table: list[Card],
    trump: Suit | None,
    chance: Chance,
    by_strength: Order,
    last: bool,
) -> Card:
    """The bid is made (or was none): lose the trick, keeping the cards that lose well."""
    if not table:
        jesters = [c for c in cards if c.is_jester]
        if jesters:
            return jesters[0]  # a jester lead never takes the trick
        return min(cards, key=lambda c: (chance(c), by_strength(c)))
    losers = [c for c in cards if not wins_now(table, c, trump)]
    if losers:
        return max(losers, key=by_strength)  # the highest card that still loses
    if last:
        return max(cards, key=by_strength)  # taking it anyway: spend the most dangerous card
    return min(cards, key=lambda c: (chance(c), by_strength(c)))


def decide(view: View, legal: Sequence[Action], rng: random.Random) -> Action:
    """The normal Wizard opponent."""
    if of_kind(legal, ActionKind.NAME_TRUMP):
        return choose_trump(view, legal)
    if of_kind(legal, ActionKind.BID):
        return choose_bid(view, legal)
    if of_kind(legal, ActionKind.PLAY):
        return choose_play(view, legal)
    return legal[0]
