"""The expert Kaiser opponent: determinized play-outs of the hand.

In play, and when it names trump, it deals the cards it has not seen to the
other three seats at random -- respecting their hand sizes and the suits they
have shown they lack -- and plays the hand out from each candidate in every
such deal, everyone following a quick partnership policy (win cheaply, let a
partner's winning trick stand, chase the five of hearts, give the three of
spades to the other side). It keeps the move with the best average result for
its side under Kaiser's scoring: what its side scores this hand minus what
the other side scores, the contract made or set as the rules say. It bids as
the normal opponent does.

The simulator lives here and reads only the seat's view. Cards are
``card.index`` numbers (suit-major, 13 a suit, higher index = higher rank).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from parlour.ai import kaiser
from parlour.ai.common import current_plays, of_kind, voids_shown
from parlour.ai.hearts_search import deal_unseen
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card
from parlour.engine.view import View

FIVE = Card.parse("5H").index
THREE = Card.parse("3S").index
PACK = [c.index for c in kaiser.PACK]
#: The default thinking budget: simulated card plays per decision.
EXPERT_BUDGET = 30_000


def value(cards: Sequence[int]) -> int:
    """A trick's worth: 1, plus 5 for the five of hearts, minus 3 for the three of spades."""
    return 1 + (5 if FIVE in cards else 0) - (3 if THREE in cards else 0)


def _winner(plays: Sequence[tuple[int, int]], trump: int) -> tuple[int, int]:
    """(seat, card) winning a trick so far."""
    best = plays[0]
    for play in plays[1:]:
        card, top = play[1], best[1]
        if (card // 13 == top // 13 and card > top) or (card // 13 == trump and top // 13 != trump):
            best = play
    return best


def _policy(
    hand: list[int], seat: int, plays: list[tuple[int, int]], trump: int, out: set[int], seats: int
) -> int:
    """The quick partnership player of the play-outs."""
    if plays:
        led = plays[0][1] // 13
        legal = [c for c in hand if c // 13 == led] or hand
    else:
        legal = hand
    if len(legal) == 1:
        return legal[0]

    def strength(c: int) -> int:
        return c % 13 + (20 if c // 13 == trump else 0)

    def boss(c: int) -> bool:
        return not any(o // 13 == c // 13 and o > c for o in out) and (
            c // 13 == trump or trump < 0 or not any(o // 13 == trump for o in out)
        )

    if not plays:
        bosses = [c for c in legal if boss(c) and c != FIVE]
        if bosses:
            return max(bosses, key=strength)
        plain = [c for c in legal if c not in (FIVE, THREE)] or legal
        return min(plain, key=strength)
    last = len(plays) == seats - 1
    who, top = _winner(plays, trump)
    table = [card for _, card in plays]
    winners = [c for c in legal if _winner([*plays, (seat, c)], trump)[0] == seat]
    if who % 2 == seat % 2 and (last or boss(top)):
        if FIVE in legal:
            return FIVE  # partner's trick: feed it the five
        plain = [c for c in legal if c != THREE] or legal
        return min(plain, key=strength)
    if winners and THREE not in table:
        safe = [c for c in winners if last or boss(c)]
        if safe:
            return min(safe, key=strength)
        if FIVE in table:
            return max(winners, key=strength)
    losers = [c for c in legal if c not in winners]
    if THREE in losers:
        return THREE  # the other side is taking this trick: give it the three
    pool = [c for c in (losers or legal) if c != FIVE] or losers or legal
    return min(pool, key=strength)


def play_out(
    hands: list[list[int]],
    trump: int,
    taken: list[int],
    seat: int,
    plays: list[tuple[int, int]],
    out: set[int],
) -> list[int]:
    """Play the hand to its end from a trick in progress; points per side (0: seats 0 and 2)."""
    seats = len(hands)
    plays = list(plays)
    while True:
        if len(plays) == seats:
            who, _ = _winner(plays, trump)
            taken[who % 2] += value([card for _, card in plays])
            plays = []
            seat = who
            if not hands[seat]:
                return taken
        card = _policy(hands[seat], seat, plays, trump, out, seats)
        hands[seat].remove(card)
        out.discard(card)
        plays.append((seat, card))
        seat = (seat + 1) % seats


def contract(view: View) -> tuple[int, int, bool] | None:
    """(bidder, number, no trump) of the standing contract, read from the bids."""
    best: tuple[int, int, bool] | None = None
    for player in view.players:
        text = player.bid.strip().upper()
        if not text or text == "PASS":
            continue
        no_trump = text.endswith("NT")
        number = int(text[:-2] if no_trump else text)
        if best is None or (number, no_trump) > (best[1], best[2]):
            best = (player.seat, number, no_trump)
    return best


def score(taken: list[int], bid: tuple[int, int, bool], side: int) -> int:
    """This hand's score for ``side`` minus the other side's."""
    bidder, number, no_trump = bid
    times = 2 if no_trump else 1
    change = list(taken)
    bidders = bidder % 2
    change[bidders] = taken[bidders] * times if taken[bidders] >= number else -number * times
    return change[side] - change[1 - side]


def decide_expert(
    view: View, legal: Sequence[Action], rng: random.Random, budget: int = EXPERT_BUDGET
) -> Action:
    plays = [a for a in of_kind(legal, ActionKind.PLAY) if a.card is not None]
    trumps = [a for a in of_kind(legal, ActionKind.NAME_TRUMP) if a.suit is not None]
    bid = contract(view)
    if (not plays and not trumps) or bid is None or len(legal) == 1:
        return kaiser.decide(view, legal, rng)
    assert view.seat is not None
    me, seats = view.seat, view.seats
    hand = [c.index for c in view.hand]
    seen = {p.card.index for t in view.tricks for p in t.plays}
    seen |= {p.card.index for p in current_plays(view)}
    unseen = [c for c in PACK if c not in seen and c not in hand]
    sizes = {p.seat: p.hand_size for p in view.players if p.seat != me}
    voids = {seat: {s.index for s in suits} for seat, suits in voids_shown(view).items()}
    taken = [0, 0]
    for trick in view.tricks:
        if trick.winner is not None:
            taken[trick.winner % 2] += value([p.card.index for p in trick.plays])
    current = [(p.seat, p.card.index) for p in current_plays(view)]
    options: list[tuple[Action, int, int]] = []  # (action, card or -1, trump)
    if plays:
        trump = -1 if view.trump is None else view.trump.index
        options = [(a, a.card.index, trump) for a in plays if a.card is not None]
    else:
        options = [(a, -1, a.suit.index) for a in trumps if a.suit is not None]
    deals = max(8, min(300, budget // (len(options) * max(1, len(hand)) * seats)))
    totals = [0.0] * len(options)
    for _ in range(deals):
        others = deal_unseen(unseen, sizes, voids, {}, rng) or deal_unseen(
            unseen, sizes, {}, {}, rng
        )
        if others is None:
            continue
        cards = {s: [c for c in PACK if others[s] >> c & 1] for s in others}
        for n, (_, card, trump) in enumerate(options):
            hands = [hand[:] if s == me else cards[s][:] for s in range(seats)]
            out = set(unseen)
            if card >= 0:
                hands[me].remove(card)
                on_table = [*current, (me, card)]
                result = play_out(hands, trump, list(taken), (me + 1) % seats, on_table, out)
            else:  # naming trump: the bidder leads the first trick
                result = play_out(hands, trump, [0, 0], me, [], out)
            totals[n] += score(result, bid, me % 2)
    best = max(range(len(options)), key=lambda n: totals[n])
    return options[best][0]
