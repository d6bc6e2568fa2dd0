"""The expert Wizard opponent: bids and plays by determinized search (``wizard_search``).

It bids by simulation: for each bid worth considering (within three of the
normal opponent's estimate), it plays the round out over sampled deals of the
unseen cards, the seats still to bid bidding as the normal opponent would on
their sampled hands, and keeps the bid that scores best on average. While
seats are still to bid after it, it also counts a chance of taking one trick
more than a play-out gives it: measured, its play-outs fall short of what it
then takes (``wizard_search.LIFT_PER_CARD``). The last bidder's bids count
the total they make too: its play-outs underrate a round whose bids add up to
the tricks or one fewer (``wizard_search.TOTAL_BONUS``). In play it weighs
every legal card the same way, over deals that respect the voids the other
seats have shown, with everyone's bids and tricks as they stand. In both, a
sampled deal counts by how well it explains the bids already made (a seat that
bid high holds a hand worth that many tricks, more likely than not). After a
turned wizard, as dealer, it names trump as the normal opponent does.
"""

from __future__ import annotations

import functools
import operator
import random
from collections.abc import Sequence

from parlour.ai import wizard_search as search
from parlour.ai.common import current_plays, of_kind, tricks_seen, voids_shown
from parlour.ai.wizard import PACK, card_worth, choose_trump, expected_tricks
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card, Suit
from parlour.engine.view import View

#: The default thinking budget: simulated card plays per decision.
EXPERT_BUDGET = 80_000
#: Bids further than this from the estimate are not simulated.
BID_WINDOW = 3


def bits(cards: Sequence[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


@functools.lru_cache(maxsize=128)
def worth_table(trump: Suit | None, seats: int, in_hand: int) -> tuple[tuple[float, ...], ...]:
    """The normal opponent's worth of each card (by index) in a hand of ``in_hand`` cards,
    by how many of its suit the hand holds: what ``search.hand_worth`` adds up."""
    dealt = in_hand * seats / len(PACK)
    return tuple(
        tuple(
            card_worth(card, trump, seats, dealt, {card.suit: n}, in_hand)
            for n in range(in_hand + 1)
        )
        for card in (Card.from_index(i) for i in range(60))
    )


def decide_expert(
    view: View, legal: Sequence[Action], rng: random.Random, budget: int = EXPERT_BUDGET
) -> Action:
    if of_kind(legal, ActionKind.NAME_TRUMP):
        return choose_trump(view, legal)
    assert view.seat is not None
    me, seats = view.seat, view.seats
    hand = bits(view.hand)
    played = [0] * seats  # each seat's cards played this round
    for trick in tricks_seen(view):
        for play in trick.plays:
            played[play.seat] |= 1 << play.card.index
    seen = functools.reduce(operator.or_, played, hand)
    if view.turned_card is not None:
        seen |= 1 << view.turned_card.index
    unseen = [c.index for c in PACK if not seen >> c.index & 1]
    sizes = {p.seat: p.hand_size for p in view.players if p.seat != me}
    trump = -1 if view.trump is None else view.trump.index
    worths = worth_table(view.trump, seats, len(view.hand) + played[me].bit_count())
    bids = of_kind(legal, ActionKind.BID)
    if bids:
        guess = expected_tricks(view.hand, view)
        offered = [a.number for a in bids if a.number is not None]
        near = [b for b in offered if abs(b - guess) <= BID_WINDOW] or offered
        known = {p.seat: int(p.bid) for p in view.players if p.seat != me and p.bid.isdigit()}
        choice = search.best_bid(
            me,
            hand,
            near,
            known,
            (view.dealer + 1) % seats,
            trump,
            unseen,
            sizes,
            worths,
            rng,
            budget,
            search.bid_lift(seats - 1 - len(known), len(view.hand)),
        )
        return next(a for a in bids if a.number == choice)
    plays = {a.card.index: a for a in of_kind(legal, ActionKind.PLAY) if a.card is not None}
    voids = {seat: {s.index for s in suits} for seat, suits in voids_shown(view).items()}
    card = search.best_play(
        me,
        hand,
        sorted(plays),
        [(p.seat, p.card.index) for p in current_plays(view)],
        trump,
        [int(p.bid) if p.bid.isdigit() else 0 for p in view.players],
        [p.tricks_taken for p in view.players],
        unseen,
        sizes,
        voids,
        played,
        worths,
        rng,
        budget,
    )
    return plays[card]
