"""A small Monte Carlo look-ahead for the hard Hearts (Kierki) opponent.

To weigh its candidate cards the hard opponent deals the cards it has not
seen to the other seats at random -- respecting the hand sizes, the voids they
have shown and the cards it passed to them -- and plays each candidate out to
the end of the hand in every such deal, everyone following a quick
normal-style policy. It keeps the card with the fewest points taken on
average, counting a moon shot as the game does (26 for everyone else).

Everything is done on bitsets of ``card.index`` (clubs bits 0-12, diamonds
13-25, hearts 26-38, spades 39-51), so a whole play-out costs well under a
millisecond and the number of deals is chosen to stay within a time budget.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

from parlour.engine.cards import Card

SUIT_MASKS = tuple(0x1FFF << (13 * suit) for suit in range(4))
HEARTS = SUIT_MASKS[2]
QUEEN_INDEX = 39 + 10
QUEEN = 1 << QUEEN_INDEX
SPADE_HONOURS = (1 << (39 + 11)) | (1 << (39 + 12))
SEATS = 4
#: Simulated card plays a decision may spend (about 2-3 microseconds each).
PLAY_BUDGET = 2500
MIN_DEALS, MAX_DEALS = 4, 24
#: Points per deal by which a card must beat the heuristic choice to replace it.
MARGIN = 0.5


def bits(cards: Sequence[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def points(mask: int) -> int:
    return (mask & HEARTS).bit_count() + (13 if mask & QUEEN else 0)


def _high(mask: int) -> int:
    return mask.bit_length() - 1


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _lowest_rank(mask: int) -> int:
    """The card of lowest rank in ``mask`` (any suit)."""
    best, best_rank = -1, 99
    for suit in range(4):
        held = mask & SUIT_MASKS[suit]
        if held:
            card = _low(held)
            if card - 13 * suit < best_rank:
                best, best_rank = card, card - 13 * suit
    return best


def _highest_rank(mask: int) -> int:
    best, best_rank = -1, -1
    for suit in range(4):
        held = mask & SUIT_MASKS[suit]
        if held:
            card = _high(held)
            if card - 13 * suit > best_rank:
                best, best_rank = card, card - 13 * suit
    return best


def policy(
    hand: int,
    led: int,
    best: int,
    last: bool,
    broken: bool,
    queen_gone: bool,
    first: bool = False,
) -> int:
    """The quick player used in play-outs: duck high, unload the queen and hearts when void.

    ``first``: the hand's first trick, on which no heart and not the queen may
    be discarded while the seat has another card.
    """
    if led < 0:
        allowed = hand if broken else (hand & ~HEARTS) or hand
        if not queen_gone:
            allowed = (allowed & ~(QUEEN | SPADE_HONOURS)) or allowed
        return _lowest_rank(allowed)
    following = hand & SUIT_MASKS[led]
    if following:
        under = following & ((1 << best) - 1)
        if under:
            return _high(under)
        if last:
            return _high((following & ~QUEEN) or following)
        return _low(following)
    if first and hand & ~(HEARTS | QUEEN):
        hand &= ~(HEARTS | QUEEN)
    if hand & QUEEN:
        return _high(QUEEN)
    if not queen_gone and hand & SPADE_HONOURS:
        return _high(hand & SPADE_HONOURS)
    if hand & HEARTS:
        return _high(hand & HEARTS)
    return _highest_rank(hand)


def play_out(
    hands: list[int],
    seat: int,
    trick: list[int],
    taken: list[int],
    broken: bool,
    queen_gone: bool,
    first: bool = False,
) -> list[int]:
    """Play the hand to its end from a trick in progress; points per seat (moon applied).

    ``trick`` holds the cards already on the current trick, ``seat`` is the
    seat next to play. ``hands`` and ``taken`` are modified. ``first``: the
    trick in progress is the hand's first (its discard rule applies to it).
    """
    left = sum(hand.bit_count() for hand in hands)
    count = len(trick)
    led = best = winner = -1
    mask = 0
    if trick:
        led = trick[0] // 13
        leader = (seat - count) % SEATS
        for i, card in enumerate(trick):
            mask |= 1 << card
            if card // 13 == led and card > best:
                best, winner = card, (leader + i) % SEATS
    while left:
        hand = hands[seat]
        if count == 0:
            card = policy(hand, -1, -1, False, broken, queen_gone)
            led, best, winner = card // 13, card, seat
        else:
            card = policy(hand, led, best, count == SEATS - 1, broken, queen_gone, first)
            suit = card // 13
            if suit == led:
                if card > best:
                    best, winner = card, seat
            elif suit == 2:
                broken = True
        if card == QUEEN_INDEX:
            queen_gone = True
        hands[seat] = hand & ~(1 << card)
        mask |= 1 << card
        left -= 1
        count += 1
        if count == SEATS:
            taken[winner] += points(mask)
            seat, count, mask, first = winner, 0, 0, False
        else:
            seat = (seat + 1) % SEATS
    if 26 in taken:
        return [0 if pts == 26 else 26 for pts in taken]
    return taken


def deal_unseen(
    unseen: list[int],
    sizes: dict[int, int],
    voids: dict[int, set[int]],
    known: dict[int, int],
    rng: random.Random,
) -> dict[int, int] | None:
    """Give each other seat ``sizes[seat]`` unseen cards, honouring voids and known cards."""
    hands = {seat: known.get(seat, 0) for seat in sizes}
    room = {seat: sizes[seat] - hands[seat].bit_count() for seat in sizes}
    placed = 0
    for mask in known.values():
        placed |= mask
    pool = [card for card in unseen if not placed >> card & 1]
    rng.shuffle(pool)
    # Cards only a few seats can hold go first, so a seat void in many suits fills last.
    pool.sort(key=lambda c: sum(1 for s in sizes if c // 13 not in voids.get(s, ())))
    for card in pool:
        open_seats = [s for s in sizes if room[s] > 0 and card // 13 not in voids.get(s, ())]
        if not open_seats:
            return None
        seat = max(open_seats, key=lambda s: room[s] + rng.random())
        hands[seat] |= 1 << card
        room[seat] -= 1
    return hands


def best_card(
    me: int,
    hand: int,
    candidates: list[int],
    preferred: int,
    trick: list[int],
    unseen: list[int],
    sizes: dict[int, int],
    voids: dict[int, set[int]],
    known: dict[int, int],
    taken: list[int],
    broken: bool,
    rng: random.Random,
    budget: int = PLAY_BUDGET,
    deal_range: tuple[int, int] = (MIN_DEALS, MAX_DEALS),
    margin: float = MARGIN,
) -> int:
    """The candidate with the fewest points for ``me`` on average over sampled deals.

    ``budget`` is the number of simulated card plays to spend, spread over
    between ``deal_range`` deals; another card must beat ``preferred`` by
    ``margin`` points per deal to replace it (the hard level's caution; the
    expert level searches deeper and trusts its search, with no margin).
    """
    remaining = hand.bit_count() * SEATS
    deals_wanted = budget // max(1, len(candidates) * remaining)
    deals_wanted = max(deal_range[0], min(deal_range[1], deals_wanted))
    queen_gone = not (hand & QUEEN) and QUEEN_INDEX not in unseen
    totals = dict.fromkeys(candidates, 0)
    for _ in range(deals_wanted):
        others = deal_unseen(unseen, sizes, voids, known, rng)
        if others is None:
            others = deal_unseen(unseen, sizes, {}, known, rng)
        if others is None:
            continue
        for card in candidates:
            hands = [others.get(s, 0) for s in range(SEATS)]
            hands[me] = hand & ~(1 << card)
            now_broken = broken or (bool(trick) and card // 13 == 2 and trick[0] // 13 != 2)
            gone = queen_gone or card == QUEEN_INDEX
            result = play_out(
                hands, (me + 1) % SEATS, [*trick, card], list(taken), now_broken, gone
            )
            totals[card] += result[me]
    # The heuristic choice stands unless the look-ahead finds clearly better.
    best = min(candidates, key=lambda c: (totals[c], c != preferred, c))
    if totals[best] + margin * deals_wanted <= totals[preferred]:
        return best
    return preferred


# -- the expert's pass: candidate sets weighed by play-outs ------------------------------------

SPADES = SUIT_MASKS[3]
LOW_SPADES = SPADES & ((1 << QUEEN_INDEX) - 1)
HIGH_HEARTS = sum(1 << (26 + rank) for rank in range(9, 13))  # jack to ace
#: Fewer low spades than this and the queen, king and ace of spades are unsafe (as hearts_pass).
GUARDS_NEEDED = 4
TWO_OF_CLUBS = 1


def _highest_first(mask: int) -> list[int]:
    """The cards of ``mask``, highest rank first (then the higher suit)."""
    held = [card for card in range(52) if mask >> card & 1]
    return sorted(held, key=lambda card: (-(card % 13), -card))


def quick_pass(hand: int) -> int:
    """The three cards a simulated seat passes: the hard level's plan (hearts_pass) on bits."""
    short = (hand & LOW_SPADES).bit_count() < GUARDS_NEEDED
    plan: list[int] = []
    if short and hand & QUEEN:
        plan.append(QUEEN_INDEX)
    room = 3 - len(plan)
    voids = [(hand & SUIT_MASKS[suit], suit) for suit in (0, 1)]
    voids = [(held, suit) for held, suit in voids if 0 < held.bit_count() <= room]
    if voids:  # the shortest side suit; of two as short, the one with the higher top card
        shortest, _ = min(
            voids, key=lambda pair: (pair[0].bit_count(), 13 * pair[1] - _high(pair[0]))
        )
        plan += _highest_first(shortest)
    if short:
        plan += _highest_first(hand & SPADE_HONOURS)
    plan += _highest_first(hand & HIGH_HEARTS)
    plan += _highest_first(hand)
    given = 0
    for card in plan:
        given |= 1 << card
        if given.bit_count() == 3:
            break
    return given


def best_pass(
    hand: int,
    candidates: list[int],
    offset: int,
    rng: random.Random,
    budget: int,
) -> list[int]:
    """The three of ``candidates`` to pass that leave this seat (seat 0) the fewest points.

    Each sample deals the other 39 cards to seats 1-3 at random; they pass as
    the hard level would (``quick_pass``), this seat passes each candidate set
    to seat ``offset`` in turn and receives from the seat passing to it, and
    the hand is played out from the two of clubs (the same deal for every set).
    ``budget`` is the number of simulated card plays to spend.
    """
    sets = [list(chosen) for chosen in combinations(candidates, 3)]
    masks = [bits_of(chosen) for chosen in sets]
    unseen = [card for card in range(52) if not hand >> card & 1]
    samples = max(8, budget // (52 * len(sets)))
    totals = [0] * len(sets)
    for _ in range(samples):
        rng.shuffle(unseen)
        dealt = [hand, bits_of(unseen[0:13]), bits_of(unseen[13:26]), bits_of(unseen[26:39])]
        # the other seats' passes do not depend on this seat's: made once per sample
        passed = [0, 0, 0, 0]
        for seat in range(1, SEATS):
            given = quick_pass(dealt[seat])
            passed[seat] |= dealt[seat] & ~given
            passed[(seat + offset) % SEATS] |= given
        for index, mine in enumerate(masks):
            hands = passed.copy()
            hands[0] |= hand & ~mine
            hands[offset] |= mine
            leader = next(seat for seat in range(SEATS) if hands[seat] & TWO_OF_CLUBS)
            result = play_out(hands, leader, [], [0] * SEATS, False, False, True)
            totals[index] += result[0]
    best = min(range(len(sets)), key=lambda index: (totals[index], index))
    return sets[best]


def bits_of(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask
