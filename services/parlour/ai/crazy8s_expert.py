"""The expert Crazy 8s opponent: determinized play-outs of the round.

When it has a choice (which card, which suit to name), it deals the cards it
has not seen -- everything but its hand and the discard pile -- into the other
hands and the stock at random, respecting their sizes, and plays the round out
from each candidate move in every such deal, everyone following the normal
opponent's rule (shed the most expensive card, save eights, name the suit
held most of). It keeps the move that scores best on average: winning the
round first, then the penalty points it leaves the others holding against its
own. Draws and passes are never a choice (the rules force them).

The simulator lives here and reads only the seat's view: the discard pile is
rebuilt from the public history (the turned card and every card played, the
latest ones still on the pile) and the pile and stock sizes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from parlour.ai.common import of_kind
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card
from parlour.engine.view import View

EIGHT = 6  # rank index of the eight (2 is 0)
PENALTY = tuple(50 if r == EIGHT else 1 if r == 12 else 10 if r >= 8 else r + 2 for r in range(13))
#: The default thinking budget: simulated moves per decision.
EXPERT_BUDGET = 30_000
#: A play-out stops (and is scored as it stands) after this many moves.
MAX_MOVES = 300
#: Worth of winning the round, against the points left on the table.
WIN = 100.0


def _penalty(hand: list[int]) -> int:
    return sum(PENALTY[c % 13] for c in hand)


def _plays(card: int, suit: int, top: int) -> bool:
    return card % 13 == EIGHT or card // 13 == suit or card % 13 == top % 13


def _choose(hand: list[int], suit: int, top: int, others_low: bool) -> tuple[int, int] | None:
    """The normal opponent's move as (card, suit named), or None when nothing plays."""
    playable = [c for c in hand if _plays(c, suit, top)]
    if not playable:
        return None
    ordinary = [c for c in playable if c % 13 != EIGHT]
    if ordinary and not (others_low and len(ordinary) < len(playable)):
        card = max(ordinary, key=lambda c: (PENALTY[c % 13], c))
        return card, card // 13
    card = max(c for c in playable if c % 13 == EIGHT)
    return card, _most_held(hand, card)


def _most_held(hand: list[int], playing: int) -> int:
    """The suit to name with an eight: the one held most of (eights aside)."""
    counts = [0, 0, 0, 0]
    for c in hand:
        if c != playing and c % 13 != EIGHT:
            counts[c // 13] += 1
    return max(range(4), key=lambda s: counts[s])


def play_out(
    hands: list[list[int]],
    stock: list[int],
    pile: list[int],
    suit: int,
    seat: int,
    rng: random.Random,
) -> list[int]:
    """Play the round from ``seat``'s turn to its end; the penalties per seat."""
    seats = len(hands)
    passes = 0
    for _ in range(MAX_MOVES):
        hand = hands[seat]
        low = min(len(h) for s, h in enumerate(hands) if s != seat) <= 1
        move = _choose(hand, suit, pile[-1], low)
        while move is None:  # draw until one plays, rebuilding the stock when it runs out
            if not stock and len(pile) > 1:
                stock = pile[:-1]
                rng.shuffle(stock)
                pile = pile[-1:]
            if not stock:
                break
            card = stock.pop()
            hand.append(card)
            if _plays(card, suit, pile[-1]):  # a drawn card that plays is played at once
                move = (card, _most_held(hand, card) if card % 13 == EIGHT else card // 13)
        if move is None:
            passes += 1
            if passes == seats:
                break
        else:
            passes = 0
            card, suit = move
            hand.remove(card)
            pile.append(card)
            if not hand:
                break
        seat = (seat + 1) % seats
    return [_penalty(h) for h in hands]


def utility(penalties: list[int], me: int) -> float:
    mine = penalties[me]
    others = [p for s, p in enumerate(penalties) if s != me]
    won = WIN if mine < min(others) else WIN / 2 if mine == min(others) else 0.0
    return won + sum(others) / len(others) - mine


def discard_pile(view: View) -> list[int]:
    """The cards on the discard pile, bottom to top, from the public history."""
    placed = [] if view.turned_card is None else [view.turned_card.index]
    for move in view.history:
        words = move.text.split()
        if words[0] == "play":
            placed.append(Card.parse(words[1]).index)
    in_hands = sum(p.hand_size for p in view.players)
    size = 52 - in_hands - (view.stock_count or 0)
    return placed[-size:] if size > 0 else placed[-1:]


def decide_expert(
    view: View, legal: Sequence[Action], rng: random.Random, budget: int = EXPERT_BUDGET
) -> Action:
    plays = [a for a in of_kind(legal, ActionKind.PLAY) if a.card is not None]
    if len(plays) < 2:
        return plays[0] if plays else legal[0]
    assert view.seat is not None and view.suit_in_force is not None
    me, seats = view.seat, view.seats
    hand = [c.index for c in view.hand]
    pile = discard_pile(view)
    known = set(hand) | set(pile)
    unseen = [i for i in range(52) if i not in known]
    sizes = [p.hand_size for p in view.players]
    moves_each = 6 * sum(sizes) + 10
    deals = max(8, min(300, budget // (len(plays) * moves_each)))
    totals = [0.0] * len(plays)
    for _ in range(deals):
        rng.shuffle(unseen)
        start = 0
        hands: list[list[int]] = []
        for seat in range(seats):
            if seat == me:
                hands.append(hand)
                continue
            hands.append(unseen[start : start + sizes[seat]])
            start += sizes[seat]
        stock = unseen[start:]
        for n, action in enumerate(plays):
            assert action.card is not None
            card = action.card.index
            named = (action.suit or action.card.suit).index
            trial = [h[:] for h in hands]
            trial[me].remove(card)
            if not trial[me]:
                totals[n] += utility([_penalty(h) for h in trial], me)
                continue
            result = play_out(trial, stock[:], [*pile, card], named, (me + 1) % seats, rng)
            totals[n] += utility(result, me)
    best = max(range(len(plays)), key=lambda n: totals[n])
    return plays[best]
