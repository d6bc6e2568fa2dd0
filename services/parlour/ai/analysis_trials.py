"""The play-outs behind the analysis (``analysis``): one trial per game and decision kind.

A trial is the candidate actions of one decision and a sampler. Each call of
the sampler deals the cards the deciding seat has not seen afresh, consistent
with its view (hand sizes, the voids shown, the cards it passed; Wizard's deals
weighted by how well they explain the bids, as its expert does; Kaiser's, at a
bid or a pass, by how well they explain the calls before it), and plays
every candidate out to the end of the hand on that one deal (common random
numbers), with everyone -- the deciding seat too, after this decision --
following the quick policy of the game's expert searcher. It answers the deal's
weight and, per candidate, the deciding seat's score change (Kaiser: its side's
lead over the other side) for the hand, in the game's points; None when no deal fits.

Everything here reads only the view, through the experts' own samplers and
play-outs (``hearts_search``, ``wizard_search``, ``crazy8s_search``,
``kaiser_expert``), never a game's state.

Candidate sets (every legal action unless said here):

- Wizard bids: the bids within ``wizard_expert.BID_WINDOW`` of the normal
  estimate (where the expert's own bid lies), and the bid played.
- Hearts passes: a pass chosen one card at a time is judged card by card, each
  legal card completed to three by the hard plan (``hearts_pass.plan_hard``);
  a pass of several cards at once is judged against every set of as many of
  the hard plan's first seven cards (the sets the expert weighs) and the set
  played.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from parlour.ai import crazy8s_search, hearts_search, kaiser, kaiser_expert, wizard_search
from parlour.ai.common import current_plays, of_kind, tricks_seen, voids_shown
from parlour.ai.crazy8s_expert import discard_pile, hand_groups
from parlour.ai.hearts import PASS_OFFSET, points_taken
from parlour.ai.hearts_pass import plan_hard
from parlour.ai.wizard import expected_tricks
from parlour.ai.wizard_expert import BID_WINDOW, worth_table
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card, standard_deck, wizard_deck
from parlour.engine.view import View

#: One deal: its weight and the score of each candidate on it (None: no deal fits).
Sample = tuple[float, list[float]] | None
Sampler = Callable[[random.Random], Sample]

HEARTS_PACK = [card.index for card in standard_deck()]
WIZARD_PACK = [card.index for card in wizard_deck()]
KAISER_PACK = kaiser_expert.PACK
#: Hearts: the first cards of the hard plan whose sets a pass of several cards is weighed against.
PASS_CANDIDATES = 7


@dataclass(frozen=True, slots=True)
class Trial:
    """A decision's candidate actions and the sampler that plays each out on one deal."""

    candidates: list[Action]
    sample: Sampler


def bits(cards: Sequence[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def _with_played(candidates: list[Action], played: Action) -> list[Action]:
    return candidates if played in candidates else [*candidates, played]


def _index_voids(view: View) -> dict[int, set[int]]:
    return {seat: {suit.index for suit in suits} for seat, suits in voids_shown(view).items()}


# -- Hearts ----------------------------------------------------------------------------
def hearts_trial(view: View, played: Action) -> Trial:
    if played.kind is ActionKind.GIVE:
        return _hearts_pass(view, played)
    return _hearts_play(view, played)


def _hearts_play(view: View, played: Action) -> Trial:
    assert view.seat is not None
    me = view.seat
    candidates = _with_played(of_kind(view.legal_actions, ActionKind.PLAY), played)
    seen = {p.card.index for trick in tricks_seen(view) for p in trick.plays}
    hand = bits(view.hand)
    unseen = [c for c in HEARTS_PACK if not seen_or_held(c, seen, hand)]
    sizes = {p.seat: p.hand_size for p in view.players if p.seat != me}
    voids = _index_voids(view)
    known: dict[int, int] = {}
    offset = PASS_OFFSET.get(view.pass_direction)
    if offset is not None and view.received_cards:  # the cards passed are the receiver's
        receiver = (me + offset) % view.seats
        known[receiver] = bits([c for c in view.passed_cards if c.index not in seen])
    trick = [p.card.index for p in current_plays(view)]
    taken = points_taken(view)
    broken = bool(view.hearts_broken)
    queen_gone = not hand & hearts_search.QUEEN and hearts_search.QUEEN_INDEX not in unseen
    first = not view.tricks
    cards = [a.card.index for a in candidates if a.card is not None]

    def sample(rng: random.Random) -> Sample:
        others = hearts_search.deal_unseen(unseen, sizes, voids, known, rng)
        if others is None:
            others = hearts_search.deal_unseen(unseen, sizes, {}, known, rng)
        if others is None:
            return None
        scores: list[float] = []
        for card in cards:
            hands = [others.get(seat, 0) for seat in range(hearts_search.SEATS)]
            hands[me] = hand & ~(1 << card)
            on_table = [*trick, card]
            now_broken = broken or (
                len(on_table) > 1 and card // 13 == 2 and on_table[0] // 13 != 2
            )
            gone = queen_gone or card == hearts_search.QUEEN_INDEX
            scores.append(_hearts_finish(hands, me, on_table, list(taken), now_broken, gone, first))
        return 1.0, scores

    return Trial(candidates, sample)


def seen_or_held(card: int, seen: set[int], hand: int) -> bool:
    return card in seen or bool(hand >> card & 1)


def _hearts_finish(
    hands: list[int],
    me: int,
    on_table: list[int],
    taken: list[int],
    broken: bool,
    queen_gone: bool,
    first: bool,
) -> float:
    """Points ``me`` scores this hand once ``on_table`` (``me`` played last) is played out.

    A trick the card completes is settled here: ``hearts_search.play_out``
    continues a trick in progress only.
    """
    seats = hearts_search.SEATS
    if len(on_table) < seats:
        return float(
            hearts_search.play_out(
                hands, (me + 1) % seats, on_table, taken, broken, queen_gone, first
            )[me]
        )
    led = on_table[0] // 13
    leader = (me + 1) % seats  # me played fourth
    best = max((c for c in on_table if c // 13 == led), default=on_table[0])
    winner = (leader + on_table.index(best)) % seats
    mask = 0
    for card in on_table:
        mask |= 1 << card
    taken[winner] += hearts_search.points(mask)
    return float(hearts_search.play_out(hands, winner, [], taken, broken, queen_gone)[me])


def _hearts_pass(view: View, played: Action) -> Trial:
    """The pass: every other seat dealt afresh and passing as the hard level would."""
    assert view.seat is not None
    me = view.seat
    offset = PASS_OFFSET.get(view.pass_direction, 0)
    chosen = list(view.passed_cards)
    dealt = sorted({*view.hand, *chosen})
    plan = [card for card in plan_hard(dealt) if card not in chosen]
    sets: list[tuple[Card, ...]]
    if len(played.cards) == 1:
        candidates = _with_played(of_kind(view.legal_actions, ActionKind.GIVE), played)
        sets = []
        for action in candidates:
            pick = [*chosen, *action.cards]
            rest = [card for card in plan if card not in pick]
            sets.append(tuple(pick + rest[: 3 - len(pick)]))
    else:
        wanted = len(played.cards)
        heads = plan[:PASS_CANDIDATES]
        candidates = [Action.give(*sorted(combo)) for combo in combinations(heads, wanted)]
        candidates = [a for a in candidates if a != played] + [played]
        sets = [(*chosen, *action.cards) for action in candidates]
    hand = bits(dealt)
    masks = [bits(chosen_set) for chosen_set in sets]
    unseen = [card for card in HEARTS_PACK if not hand >> card & 1]
    seats = hearts_search.SEATS
    others = [(me + k) % seats for k in range(1, seats)]

    def sample(rng: random.Random) -> Sample:
        pool = unseen[:]
        rng.shuffle(pool)
        hands = [0] * seats
        hands[me] = hand
        for n, seat in enumerate(others):
            hands[seat] = hearts_search.bits_of(pool[13 * n : 13 * n + 13])
        after = [0] * seats  # the other seats' passes do not depend on this seat's
        for seat in others:
            given = hearts_search.quick_pass(hands[seat]) if offset else 0
            after[seat] |= hands[seat] & ~given
            after[(seat + offset) % seats] |= given
        scores: list[float] = []
        for mine in masks:
            trial = after.copy()
            trial[me] |= hand & ~mine
            trial[(me + offset) % seats] |= mine
            leader = next(s for s in range(seats) if trial[s] & hearts_search.TWO_OF_CLUBS)
            result = hearts_search.play_out(trial, leader, [], [0] * seats, False, False, True)
            scores.append(float(result[me]))
        return 1.0, scores

    return Trial(candidates, sample)


# -- Wizard ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _WizardTable:
    """What the Wizard samplers read off the view, as bitsets."""

    me: int
    seats: int
    hand: int
    played: list[int]  # each seat's cards played this round
    unseen: list[int]
    sizes: dict[int, int]


def _wizard_table(view: View) -> _WizardTable:
    assert view.seat is not None
    me, seats = view.seat, view.seats
    played = [0] * seats
    for trick in tricks_seen(view):
        for play in trick.plays:
            played[play.seat] |= 1 << play.card.index
    seen = bits(view.hand)
    for mask in played:
        seen |= mask
    if view.turned_card is not None:
        seen |= 1 << view.turned_card.index
    unseen = [c for c in WIZARD_PACK if not seen >> c & 1]
    sizes = {p.seat: p.hand_size for p in view.players if p.seat != me}
    return _WizardTable(me, seats, bits(view.hand), played, unseen, sizes)


def wizard_trial(view: View, played: Action) -> Trial:
    if played.kind is ActionKind.NAME_TRUMP:
        return _wizard_trump(view, played)
    if played.kind is ActionKind.BID:
        return _wizard_bid(view, played)
    return _wizard_play(view, played)


def _wizard_play(view: View, played: Action) -> Trial:
    table = _wizard_table(view)
    me, seats = table.me, table.seats
    candidates = _with_played(of_kind(view.legal_actions, ActionKind.PLAY), played)
    cards = [a.card.index for a in candidates if a.card is not None]
    trump = -1 if view.trump is None else view.trump.index
    worths = worth_table(view.trump, seats, len(view.hand) + table.played[me].bit_count())
    bids = [int(p.bid) if p.bid.isdigit() else 0 for p in view.players]
    others_bids = [-1 if seat == me else bids[seat] for seat in range(seats)]
    taken = [p.tricks_taken for p in view.players]
    voids = _index_voids(view)
    trick = [(p.seat, p.card.index) for p in current_plays(view)]

    def sample(rng: random.Random) -> Sample:
        others = wizard_search.deal_unseen(table.unseen, table.sizes, voids, rng)
        if others is None:
            others = wizard_search.deal_unseen(table.unseen, table.sizes, {}, rng)
        if others is None:
            return None
        dealt = [others.get(seat, 0) for seat in range(seats)]
        weight = wizard_search.likelihood(dealt, table.played, others_bids, worths)
        scores: list[float] = []
        for card in cards:
            hands = dealt[:]
            hands[me] = table.hand & ~(1 << card)
            result = wizard_search.play_out(
                hands, trump, bids, list(taken), (me + 1) % seats, [*trick, (me, card)]
            )
            scores.append(float(wizard_search.round_score(bids[me], result[me])))
        return weight, scores

    return Trial(candidates, sample)


def _wizard_bid(view: View, played: Action) -> Trial:
    """As the expert bids (``wizard_search.best_bid``): the seats after bid as normal would,
    the bidder's lift and the last bidder's correction for the total counted."""
    table = _wizard_table(view)
    me, seats = table.me, table.seats
    guess = expected_tricks(view.hand, view)
    offered = of_kind(view.legal_actions, ActionKind.BID)
    near = [a for a in offered if abs((a.number or 0) - guess) <= BID_WINDOW] or offered
    candidates = _with_played(near, played)
    numbers = [a.number or 0 for a in candidates]
    trump = -1 if view.trump is None else view.trump.index
    worths = worth_table(view.trump, seats, len(view.hand))
    known = {p.seat: int(p.bid) for p in view.players if p.seat != me and p.bid.isdigit()}
    made = [known.get(seat, -1) for seat in range(seats)]
    lift = wizard_search.bid_lift(seats - 1 - len(known), len(view.hand))
    bonus = [0.0] * len(numbers)
    if len(known) == seats - 1:
        for n, bid in enumerate(numbers):
            over = min(2, max(-2, sum(known.values()) + bid - len(view.hand)))
            bonus[n] = wizard_search.TOTAL_BONUS[over + 2]
    leader = (view.dealer + 1) % seats
    nothing_played = [0] * seats

    def sample(rng: random.Random) -> Sample:
        others = wizard_search.deal_unseen(table.unseen, table.sizes, {}, rng)
        if others is None:
            return None
        dealt = [others.get(seat, 0) for seat in range(seats)]
        weight = wizard_search.likelihood(dealt, nothing_played, made, worths)
        bids = [
            made[seat] if made[seat] >= 0 else round(wizard_search.hand_worth(dealt[seat], worths))
            for seat in range(seats)
        ]
        scores: list[float] = []
        for n, bid in enumerate(numbers):
            bids[me] = bid
            hands = dealt[:]
            hands[me] = table.hand
            got = wizard_search.play_out(hands, trump, bids, [0] * seats, leader, [])[me]
            score = (1.0 - lift) * wizard_search.round_score(bid, got)
            score += lift * wizard_search.round_score(bid, got + 1)
            scores.append(score + bonus[n])
        return weight, scores

    return Trial(candidates, sample)


def _wizard_trump(view: View, played: Action) -> Trial:
    """The dealer names trump after a turned wizard: every seat then bids as normal would."""
    table = _wizard_table(view)
    me, seats = table.me, table.seats
    candidates = _with_played(of_kind(view.legal_actions, ActionKind.NAME_TRUMP), played)
    suits = [a.suit for a in candidates if a.suit is not None]
    tables = [worth_table(suit, seats, len(view.hand)) for suit in suits]
    leader = (view.dealer + 1) % seats

    def sample(rng: random.Random) -> Sample:
        others = wizard_search.deal_unseen(table.unseen, table.sizes, {}, rng)
        if others is None:
            return None
        dealt = [others.get(seat, 0) for seat in range(seats)]
        dealt[me] = table.hand
        scores: list[float] = []
        for suit, worths in zip(suits, tables, strict=True):
            bids = [round(wizard_search.hand_worth(hand, worths)) for hand in dealt]
            result = wizard_search.play_out(dealt[:], suit.index, bids, [0] * seats, leader, [])
            scores.append(float(wizard_search.round_score(bids[me], result[me])))
        return 1.0, scores

    return Trial(candidates, sample)


# -- Kaiser --------------------------------------------------------------------------------
Contract = tuple[int, int, bool]  # bidder, number, no trump


def side_change(taken: Sequence[int], contract: Contract, side: int) -> float:
    """What the hand adds to ``side``'s score: the bidders their points or minus the bid
    (doubled at no trump), the defenders what they took."""
    bidder, number, no_trump = contract
    if bidder % 2 != side:
        return float(taken[side])
    times = 2 if no_trump else 1
    return float(taken[side] * times if taken[side] >= number else -number * times)


def side_margin(taken: Sequence[int], contract: Contract, side: int) -> float:
    """What the hand adds to ``side``'s lead over the other side: Kaiser is won by the
    side ahead, so a point the defenders take counts for them and, through the
    contract, against the bidders."""
    return side_change(taken, contract, side) - side_change(taken, contract, 1 - side)


def kaiser_trial(view: View, played: Action) -> Trial:
    if played.kind in (ActionKind.BID, ActionKind.PASS):
        return _kaiser_bid(view, played)
    return _kaiser_play(view, played)


def _kaiser_unseen(view: View) -> tuple[list[int], list[int], dict[int, int]]:
    assert view.seat is not None
    hand = [c.index for c in view.hand]
    seen = {p.card.index for trick in tricks_seen(view) for p in trick.plays}
    unseen = [c for c in KAISER_PACK if c not in seen and c not in hand]
    sizes = {p.seat: p.hand_size for p in view.players if p.seat != view.seat}
    return hand, unseen, sizes


def _kaiser_deal(
    unseen: list[int], sizes: dict[int, int], voids: dict[int, set[int]], rng: random.Random
) -> dict[int, list[int]] | None:
    others = hearts_search.deal_unseen(unseen, sizes, voids, {}, rng)
    if others is None:
        others = hearts_search.deal_unseen(unseen, sizes, {}, {}, rng)
    if others is None:
        return None
    return {seat: [c for c in KAISER_PACK if mask >> c & 1] for seat, mask in others.items()}


def _kaiser_play(view: View, played: Action) -> Trial:
    """Card plays and the winning bidder's trump: as the expert plays them out."""
    assert view.seat is not None
    me, seats = view.seat, view.seats
    kinds = (ActionKind.PLAY,) if played.kind is ActionKind.PLAY else (ActionKind.NAME_TRUMP,)
    candidates = _with_played([a for a in view.legal_actions if a.kind in kinds], played)
    contract = kaiser_expert.contract(view)
    assert contract is not None, "Kaiser: a card or trump decision with no contract"
    hand, unseen, sizes = _kaiser_unseen(view)
    voids = _index_voids(view)
    taken = [0, 0]
    for trick in view.tricks:
        if trick.winner is not None:
            taken[trick.winner % 2] += kaiser_expert.value([p.card.index for p in trick.plays])
    current = [(p.seat, p.card.index) for p in current_plays(view)]
    trump = -1 if view.trump is None else view.trump.index
    options = [
        (a.card.index if a.card is not None else -1, a.suit.index if a.suit is not None else trump)
        for a in candidates
    ]

    def sample(rng: random.Random) -> Sample:
        cards = _kaiser_deal(unseen, sizes, voids, rng)
        if cards is None:
            return None
        scores: list[float] = []
        for card, named in options:
            hands = [hand[:] if seat == me else cards[seat][:] for seat in range(seats)]
            out = set(unseen)
            if card >= 0:
                hands[me].remove(card)
                on_table = [*current, (me, card)]
                result = kaiser_expert.play_out(
                    hands, named, list(taken), (me + 1) % seats, on_table, out
                )
            else:  # naming trump: the bidder leads the first trick
                result = kaiser_expert.play_out(hands, named, [0, 0], me, [], out)
            scores.append(side_margin(result, contract, me % 2))
        return 1.0, scores

    return Trial(candidates, sample)


def _call(
    hand: Sequence[Card], ladder: Sequence[Action], standing: tuple[int, bool] | None, forced: bool
) -> Action | None:
    """The normal opponent's call (``kaiser.choose_bid``) above ``standing``; None: a pass."""
    above = [a for a in ladder if standing is None or _rung(a) > standing]
    suited = kaiser.suit_rating(hand, kaiser.best_trump(hand))
    no_trump = kaiser.suit_rating(hand, None) - kaiser.NO_TRUMP_MARGIN
    for bid in above:
        if (no_trump if bid.no_trump else suited) >= (bid.number or 0):
            return bid
    return above[0] if forced and above else None


def _rung(action: Action) -> tuple[int, bool]:
    return action.number or 0, action.no_trump


#: the weight of a deal on which a call made before the decision is not the call the
#: normal opponent's rule would make with that seat's sampled hand: people do not all
#: bid by that rule, so such a deal still counts, a tenth as much as one that fits
KAISER_MISFIT = 0.1
Rung = tuple[int, bool]  # (number, no trump), ordered as the ladder is


def _kaiser_calls(view: View) -> list[tuple[int, Rung | None]]:
    """The calls made this hand before the deciding seat's, in order: (seat, the bid as
    a rung, or None for a pass)."""
    shown = {p.seat: p.bid.strip().upper() for p in view.players}
    calls: list[tuple[int, Rung | None]] = []
    seat = view.dealer
    while (seat := (seat + 1) % view.seats) != view.seat:
        text = shown.get(seat, "")
        if not text:
            break
        if text == "PASS":
            calls.append((seat, None))
        else:
            no_trump = text.endswith("NT")
            calls.append((seat, (int(text[:-2] if no_trump else text), no_trump)))
    return calls


def _kaiser_auction_fit(view: View) -> Callable[[dict[int, list[Card]]], float]:
    """A deal's weight by how well it explains the calls made before this one, each
    seat bidding by the normal opponent's rule (``kaiser.choose_bid``: the lowest bid
    on offer its hand rates at, else a pass): 1 where every call fits,
    ``KAISER_MISFIT`` where one does not. The floor is not in the view: where a bid
    was made it is taken as the first bid's number, which only loosens the test."""
    calls = _kaiser_calls(view)
    offered = of_kind(view.legal_actions, ActionKind.BID)
    no_trump_allowed = any(a.no_trump for a in offered) or any(
        rung is not None and rung[1] for _, rung in calls
    )
    bids = [rung for _, rung in calls if rung is not None]
    floor = bids[0][0] if bids else min((a.number or 0 for a in offered), default=0)
    kinds = (False, True) if no_trump_allowed else (False,)
    ladder = [(n, nt) for n in range(floor, 11) for nt in kinds]
    checks: list[tuple[int, Rung | None, list[Rung]]] = []
    standing: Rung | None = None
    for seat, rung in calls:
        below = [
            r for r in ladder if (standing is None or r > standing) and (rung is None or r < rung)
        ]
        checks.append((seat, rung, below))
        if rung is not None:
            standing = rung

    def weight(hands: dict[int, list[Card]]) -> float:
        for seat, rung, below in checks:
            hand = hands[seat]
            rating = {
                False: kaiser.suit_rating(hand, kaiser.best_trump(hand)),
                True: kaiser.suit_rating(hand, None) - kaiser.NO_TRUMP_MARGIN,
            }
            if any(rating[nt] >= n for n, nt in below) or (
                rung is not None and rating[rung[1]] < rung[0]
            ):
                return KAISER_MISFIT
        return 1.0

    return weight


def _kaiser_bid(view: View, played: Action) -> Trial:
    """A bid or a pass: the unseen cards dealt weighted by how well they explain the calls
    made before it (``_kaiser_auction_fit``), the seats after bid as the normal opponent
    would on the deal, the winning bidder names its best-rated suit, and the hand is
    played out."""
    assert view.seat is not None
    me, seats = view.seat, view.seats
    candidates = _with_played(list(view.legal_actions), played)
    ladder = sorted(of_kind(view.legal_actions, ActionKind.BID), key=_rung)
    standing = kaiser_expert.contract(view)
    later = []
    seat = me
    while seat != view.dealer:
        seat = (seat + 1) % seats
        later.append(seat)
    hand, unseen, sizes = _kaiser_unseen(view)
    held = list(view.hand)
    my_trump = kaiser.best_trump(held)
    fit = _kaiser_auction_fit(view)

    def sample(rng: random.Random) -> Sample:
        cards = _kaiser_deal(unseen, sizes, {}, rng)
        if cards is None:
            return None
        shown = {s: [Card.from_index(c) for c in cards[s]] for s in cards}
        scores: list[float] = []
        for action in candidates:
            best = standing
            if action.kind is ActionKind.BID:
                best = (me, action.number or 0, action.no_trump)
            for seat in later:
                top = None if best is None else (best[1], best[2])
                call = _call(shown[seat], ladder, top, forced=seat == view.dealer and best is None)
                if call is not None:
                    best = (seat, call.number or 0, call.no_trump)
            if best is None:  # four passes: redealt, nothing scored
                scores.append(0.0)
                continue
            bidder = best[0]
            if best[2]:
                trump = -1
            else:
                trump = (my_trump if bidder == me else kaiser.best_trump(shown[bidder])).index
            hands = [hand[:] if s == me else cards[s][:] for s in range(seats)]
            result = kaiser_expert.play_out(hands, trump, [0, 0], bidder, [], set(unseen))
            scores.append(side_margin(result, best, me % 2))
        return fit(shown), scores

    return Trial(candidates, sample)


# -- Crazy 8s --------------------------------------------------------------------------------
def crazy8s_trial(view: View, played: Action) -> Trial:
    """Plays (and the suit named with an eight): the round played out as the expert does."""
    assert view.seat is not None and view.suit_in_force is not None
    me, seats = view.seat, view.seats
    candidates = _with_played(of_kind(view.legal_actions, ActionKind.PLAY), played)
    moves = [
        (a.card.index, (a.suit or a.card.suit).index) for a in candidates if a.card is not None
    ]
    hand = [c.index for c in view.hand]
    pile = discard_pile(view)
    sizes = [p.hand_size for p in view.players]
    known = set(hand) | set(pile)
    unseen = [c for c in range(52) if c not in known]
    groups = hand_groups(view)
    free = [[(sizes[seat], 0)] if seat != me else [] for seat in range(seats)]
    if any(sum(n for n, _ in groups[s]) != sizes[s] for s in range(seats) if s != me):
        groups = free

    def sample(rng: random.Random) -> Sample:
        dealt = crazy8s_search.deal_hidden(unseen, groups, rng) or crazy8s_search.deal_hidden(
            unseen, free, rng
        )
        if dealt is None:
            return None
        hands, stock = dealt
        hands[me] = hand
        seed = rng.getrandbits(64)  # the same rebuilds of the stock for every candidate
        scores: list[float] = []
        for card, named in moves:
            trial = [h[:] for h in hands]
            trial[me].remove(card)
            if trial[me]:
                result = crazy8s_search.play_out(
                    trial, stock[:], [*pile, card], named, (me + 1) % seats, random.Random(seed)
                )
            else:
                result = [crazy8s_search.penalty(h) for h in trial]
            scores.append(float(result[me]))
        return 1.0, scores

    return Trial(candidates, sample)


TRIALS: dict[str, Callable[[View, Action], Trial]] = {
    "wizard": wizard_trial,
    "kaiser": kaiser_trial,
    "hearts": hearts_trial,
    "crazy8s": crazy8s_trial,
}
