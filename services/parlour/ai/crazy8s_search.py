"""Determinized play-outs for the expert Crazy 8s opponent (compiled with mypyc).

The expert deals the cards it has not seen -- everything but its hand and the
discard pile -- into the other hands and the stock at random, respecting their
sizes, and plays the round out from each candidate move in every such deal,
everyone following the normal opponent's rule (shed the most expensive card,
save eights, name the suit held most of). It keeps the move that scores best
on average for what the game is decided on: in the game's last round, winning
the game (the lowest total, ties shared), the points only breaking near-ties;
in an earlier round, the points it leaves the others holding against its own.

Cards are ``card.index`` numbers 0-51 (suit-major, 13 a suit, the two first).
The simulator sees what the seat sees: its hand, the pile, the sizes of the
other hands and of the stock, the totals, and what the public history shows
of each other hand (``groups``: so many cards, none of them in a bitset).
"""

from __future__ import annotations

import random

EIGHT = 6  # rank index of the eight (2 is 0)
PENALTY = tuple(50 if r == EIGHT else 1 if r == 12 else 10 if r >= 8 else r + 2 for r in range(13))
#: A play-out stops (and is scored as it stands) after this many moves.
MAX_MOVES = 300
#: Worth of winning the game, against the points that only break near-ties.
WIN = 100.0
TIE_BREAK = 0.01
#: The fewest and the most deals a decision is weighed over.
LEAST_DEALS = 8
MOST_DEALS = 1000


def penalty(hand: list[int]) -> int:
    total = 0
    for card in hand:
        total += PENALTY[card % 13]
    return total


def playable_mask(suit: int, top: int) -> int:
    """The cards that would play: the suit in force, the top card's rank, every eight."""
    mask = 0x1FFF << (13 * suit)
    for other in range(4):
        mask |= 1 << (13 * other + top % 13) | 1 << (13 * other + EIGHT)
    return mask


def deal_hidden(
    unseen: list[int], groups: list[list[tuple[int, int]]], rng: random.Random
) -> tuple[list[list[int]], list[int]] | None:
    """The other hands and the stock from the shuffled ``unseen`` cards, or None if stuck.

    Every group of a seat's hand takes its count of cards from outside its
    forbidden bitset; the most constrained groups choose first.
    """
    rng.shuffle(unseen)
    order = [
        (forbidden.bit_count(), seat, n)
        for seat, held in enumerate(groups)
        for n, (count, forbidden) in enumerate(held)
    ]
    order.sort(reverse=True)
    hands: list[list[int]] = [[] for _ in groups]
    pool = unseen
    for _, seat, n in order:
        count, forbidden = groups[seat][n]
        rest: list[int] = []
        for card in pool:
            if count and not forbidden >> card & 1:
                hands[seat].append(card)
                count -= 1
            else:
                rest.append(card)
        if count:
            return None
        pool = rest
    return hands, pool


def plays(card: int, suit: int, top: int) -> bool:
    return card % 13 == EIGHT or card // 13 == suit or card % 13 == top % 13


def choose(hand: list[int], suit: int, top: int, others_low: bool) -> tuple[int, int]:
    """The normal opponent's move as (card, suit named); (-1, -1) when nothing plays."""
    best, eight, ordinary, playable = -1, -1, 0, 0
    for card in hand:
        if not plays(card, suit, top):
            continue
        playable += 1
        if card % 13 == EIGHT:
            eight = max(eight, card)
        else:
            ordinary += 1
            if best < 0 or (PENALTY[card % 13], card) > (PENALTY[best % 13], best):
                best = card
    if not playable:
        return -1, -1
    if ordinary and not (others_low and ordinary < playable):
        return best, best // 13
    return eight, most_held(hand, eight)


def most_held(hand: list[int], playing: int) -> int:
    """The suit to name with an eight: the one held most of (eights aside), first on ties."""
    counts = [0, 0, 0, 0]
    for card in hand:
        if card != playing and card % 13 != EIGHT:
            counts[card // 13] += 1
    named = 0
    for suit in range(1, 4):
        if counts[suit] > counts[named]:
            named = suit
    return named


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
        low = False
        for other in range(seats):
            if other != seat and len(hands[other]) <= 1:
                low = True
        card, named = choose(hand, suit, pile[-1], low)
        while card < 0:  # draw until one plays, rebuilding the stock when it runs out
            if not stock and len(pile) > 1:
                stock = pile[:-1]
                rng.shuffle(stock)
                pile = pile[-1:]
            if not stock:
                break
            drawn = stock.pop()
            hand.append(drawn)
            if plays(drawn, suit, pile[-1]):  # a drawn card that plays is played at once
                card = drawn
                named = most_held(hand, drawn) if drawn % 13 == EIGHT else drawn // 13
        if card < 0:
            passes += 1
            if passes == seats:
                break
        else:
            passes = 0
            suit = named
            hand.remove(card)
            pile.append(card)
            if not hand:
                break
        seat = (seat + 1) % seats
    return [penalty(h) for h in hands]


def utility(penalties: list[int], totals: list[int], me: int, last_round: bool) -> float:
    """What a finished play-out is worth to ``me``."""
    seats = len(penalties)
    others = 0
    for seat in range(seats):
        if seat != me:
            others += penalties[seat]
    margin = others / (seats - 1) - penalties[me]
    if not last_round:
        return margin
    finals = [totals[seat] + penalties[seat] for seat in range(seats)]
    lowest = min(finals)
    if finals[me] != lowest:
        return TIE_BREAK * margin
    return WIN / finals.count(lowest) + TIE_BREAK * margin


def best_move(
    me: int,
    hand: list[int],
    candidates: list[tuple[int, int]],
    pile: list[int],
    sizes: list[int],
    groups: list[list[tuple[int, int]]],
    totals: list[int],
    last_round: bool,
    rng: random.Random,
    budget: int,
) -> int:
    """The index in ``candidates`` ((card, suit named) pairs) with the best average worth.

    ``groups`` is what is known of each seat's hand (see ``deal_hidden``); a
    seat whose groups do not add up to its size is dealt without them.
    """
    seats = len(sizes)
    known = set(hand) | set(pile)
    unseen = [i for i in range(52) if i not in known]
    free = [[(sizes[seat], 0)] if seat != me else [] for seat in range(seats)]
    for seat in range(seats):
        if seat != me and sum(count for count, _ in groups[seat]) != sizes[seat]:
            groups = free
    moves_each = 6 * sum(sizes) + 10
    deals = max(LEAST_DEALS, min(MOST_DEALS, budget // (len(candidates) * moves_each)))
    totals_by_move = [0.0] * len(candidates)
    for _ in range(deals):
        dealt = deal_hidden(unseen, groups, rng) or deal_hidden(unseen, free, rng)
        if dealt is None:
            continue
        hands, stock = dealt
        hands[me] = hand
        for n in range(len(candidates)):
            card, named = candidates[n]
            trial = [h[:] for h in hands]
            trial[me].remove(card)
            if trial[me]:
                result = play_out(trial, stock[:], [*pile, card], named, (me + 1) % seats, rng)
            else:
                result = [penalty(h) for h in trial]
            totals_by_move[n] += utility(result, totals, me, last_round)
    best = 0
    for n in range(1, len(candidates)):
        if totals_by_move[n] > totals_by_move[best]:
            best = n
    return best
