"""The Kaiser computer opponent ("What the computer opponent does", kaiser.md).

It rates each suit as trump by length and top cards, adds for holding the
five of hearts and subtracts for holding the three of spades, and bids the
floor rather than reaching: the lowest bid on offer that the hand rates at,
else a pass (the dealer, forced to bid, bids the floor). It names its
best-rated suit as trump. In play it chases the five of hearts, ducks when
the three of spades is on the table, and lets its partner have a trick the
partner is already winning.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from parlour.ai.common import (
    cards_played,
    current_plays,
    of_kind,
    playable,
    still_to_play,
    winning_play,
)
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import SUITS, Card, Rank, Suit, kaiser_deck
from parlour.engine.view import View

PACK = kaiser_deck()
FIVE_OF_HEARTS = Card.parse("5H")
THREE_OF_SPADES = Card.parse("3S")

#: What the partner is expected to bring: a quarter of the eight tricks.
PARTNER_TRICKS = 2.0
#: Holding the five: it is worth five to whichever side takes it, likely ours.
FIVE_BONUS = 3.0
#: Holding the three: it costs three to whoever takes it, likely us.
THREE_PENALTY = 2.0
#: No trump pays double and costs double: ask for this much more before bidding it.
NO_TRUMP_MARGIN = 1.0

_TRUMP_HONOURS = {Rank.ACE: 1.0, Rank.KING: 0.8, Rank.QUEEN: 0.55, Rank.JACK: 0.35}


def suit_rating(hand: Sequence[Card], trump: Suit | None) -> float:
    """Points the partnership can expect with ``trump`` (None: no trump)."""
    tricks = 0.0
    for suit in SUITS:
        held = sorted((c for c in hand if c.suit is suit), key=lambda c: -c.rank)
        if suit is trump:
            tricks += sum(_TRUMP_HONOURS.get(c.rank, 0.0) for c in held)
            tricks += 0.75 * max(0, len(held) - 3)  # long trumps take tricks by length
            continue
        if held and held[0].rank == Rank.ACE:
            tricks += 0.9 if trump is None else 0.75
        kings = [c for c in held if c.rank == Rank.KING]
        if kings and len(held) >= 2:
            tricks += 0.5 if trump is None else 0.35
    rating = tricks + PARTNER_TRICKS
    if FIVE_OF_HEARTS in hand:
        rating += FIVE_BONUS
    if THREE_OF_SPADES in hand:
        rating -= THREE_PENALTY
    return rating


def best_trump(hand: Sequence[Card]) -> Suit:
    return max(SUITS, key=lambda suit: (suit_rating(hand, suit), suit.index))


def choose_bid(view: View, legal: Sequence[Action]) -> Action:
    """The lowest bid on offer the hand rates at; else pass; a forced dealer bids the floor."""
    bids = sorted(
        (a for a in legal if a.kind is ActionKind.BID and a.number is not None),
        key=lambda a: (a.number or 0, a.no_trump),
    )
    suited = suit_rating(view.hand, best_trump(view.hand))
    no_trump = suit_rating(view.hand, None) - NO_TRUMP_MARGIN
    for bid in bids:
        if (no_trump if bid.no_trump else suited) >= (bid.number or 0):
            return bid
    passes = of_kind(legal, ActionKind.PASS)
    return passes[0] if passes else bids[0]


def choose_trump(view: View, legal: Sequence[Action]) -> Action:
    names = [a for a in legal if a.kind is ActionKind.NAME_TRUMP and a.suit is not None]
    if not names:
        return legal[0]
    return max(names, key=lambda a: suit_rating(view.hand, a.suit))


def beats(card: Card, best: Card, trump: Suit | None) -> bool:
    if card.suit is best.suit:
        return card.rank > best.rank
    return card.suit is trump


def is_boss(card: Card, trump: Suit | None, unseen: set[Card]) -> bool:
    """No unseen card could take a trick that ``card`` is winning."""
    for other in unseen:
        if other.suit is card.suit and other.rank > card.rank:
            return False
        if other.suit is trump and card.suit is not trump:
            return False
    return True


def _value(table: Sequence[Card]) -> int:
    return 1 + (5 if FIVE_OF_HEARTS in table else 0) - (3 if THREE_OF_SPADES in table else 0)


def _low(cards: Sequence[Card], trump: Suit | None) -> Card:
    """The cheapest card to give up: side suits before trump, low before high,
    keeping the five (a gift for the partner) and the three (for the opponents)."""
    plain = [c for c in cards if c not in (FIVE_OF_HEARTS, THREE_OF_SPADES)] or list(cards)
    return min(plain, key=lambda c: (c.suit is trump, c.rank, c.index))


def choose_play(view: View, legal: Sequence[Action]) -> Action:
    cards = playable(legal)
    hand = list(cards)
    trump = view.trump
    unseen = set(PACK) - set(view.hand) - cards_played(view)
    plays = current_plays(view)
    if not plays:
        return cards[_lead(view, hand, trump, unseen)]
    assert view.seat is not None
    partner = (view.seat + 2) % 4
    table = [p.card for p in plays]
    led = table[0].suit
    best = winning_play(plays, trump)
    assert best is not None
    behind = still_to_play(view)
    last = not behind
    winners = [c for c in hand if beats(c, best.card, trump)]
    losers = [c for c in hand if c not in winners]

    if best.seat == partner:
        partner_holds = last or is_boss(best.card, trump, unseen)
        if partner_holds and FIVE_OF_HEARTS in losers:
            return cards[FIVE_OF_HEARTS]  # a gift of five to the partner's trick
        keep = [c for c in losers if c is not THREE_OF_SPADES] or losers
        return cards[_low(keep or hand, trump)]  # let the partner have it

    if _value(table) < 0:
        # The three of spades is down: duck under it with the highest card that loses.
        ducks = [c for c in losers if c is not FIVE_OF_HEARTS] or losers
        following = [c for c in ducks if c.suit is led]
        if following:
            return cards[max(following, key=lambda c: c.rank)]
        if ducks:
            return cards[_low(ducks, trump)]
        return cards[min(hand, key=lambda c: c.rank)]

    if winners:
        if last:
            return cards[min(winners, key=lambda c: (c.suit is trump, c.rank))]
        sure = [c for c in winners if is_boss(c, trump, unseen)]
        if sure:
            return cards[min(sure, key=lambda c: (c.suit is trump, c.rank))]
        if FIVE_OF_HEARTS in table:
            return cards[max(winners, key=lambda c: (c.suit is trump, c.rank))]  # chase the five
        if partner not in behind:
            return cards[max(winners, key=lambda c: (c.suit is trump, c.rank))]
    if THREE_OF_SPADES in losers and partner not in behind:
        return cards[THREE_OF_SPADES]  # the opponents are taking this one: give them the three
    return cards[_low(losers or hand, trump)]


def _lead(view: View, hand: list[Card], trump: Suit | None, unseen: set[Card]) -> Card:
    """Draw trumps with the top trump, cash sure winners, else lead low from a long side suit."""
    trumps = [c for c in hand if c.suit is trump]
    opponents_trumps = [c for c in unseen if c.suit is trump]
    if trumps and opponents_trumps:
        top = max(trumps, key=lambda c: c.rank)
        if is_boss(top, trump, unseen):
            return top
    for card in sorted(hand, key=lambda c: -c.rank):
        if card.suit is not trump and is_boss(card, trump, unseen):
            return card
    plain = [c for c in hand if c not in (FIVE_OF_HEARTS, THREE_OF_SPADES)] or hand
    side = [c for c in plain if c.suit is not trump] or plain
    length = {s: sum(1 for c in hand if c.suit is s) for s in SUITS}
    return min(side, key=lambda c: (-length[c.suit], c.rank))


def decide(view: View, legal: Sequence[Action], rng: random.Random) -> Action:
    """The normal Kaiser opponent."""
    if of_kind(legal, ActionKind.NAME_TRUMP):
        return choose_trump(view, legal)
    if of_kind(legal, ActionKind.BID):
        return choose_bid(view, legal)
    if of_kind(legal, ActionKind.PLAY):
        return choose_play(view, legal)
    return legal[0]
