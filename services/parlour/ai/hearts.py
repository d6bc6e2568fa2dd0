"""Hearts (Kierki) computer opponents ("Computer opponents", hearts.md).

Every level uses only its own hand, the cards played this hand (who played
what, who took each trick) and the legal actions it is offered.

- **Easy** avoids taking points right now: it plays the highest card that
  would not win the trick with points on it as the trick stands, else its
  lowest card. Nothing can be judged about a lead, so it leads its lowest.
- **Normal** sheds dangerous cards (the ace and king of spades while the
  queen is still out, high hearts), ducks low, unloads the queen of spades
  under a higher spade or when void, and leads its lowest card away from the
  dangerous spades (and from spades while it holds the queen) -- low hearts
  too, once hearts are broken.
- **Hard** remembers which seats have shown a void in which suit, and which
  cards are still out. It leads the card least likely to win, knows when no
  one behind can overtake, and flushes the queen of spades out with low
  spades; then it checks its choice by a small look-ahead (``hearts_search``)
  over deals of the unseen cards that respect the voids it remembers, and
  takes a clearly better card when there is one. When one opponent has taken
  every point so far with many points in, it sees a moon shot coming and
  defends: it takes a trick with points itself rather than feed the shooter.
- **Expert** plays as hard with a search many times deeper that trusts what
  it finds, and weighs its pass by play-outs too: every three of the hard
  plan's first seven cards, each set played out over the same sampled deals
  (the other seats passing as hard would), the set leaving it the fewest
  points passed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from parlour.ai import hearts_search as search
from parlour.ai.common import (
    cards_played,
    current_plays,
    of_kind,
    playable,
    still_to_play,
    suit_counts,
    voids_shown,
    winning_play,
)
from parlour.ai.hearts_pass import choose_give, plan_easy, plan_hard, plan_normal
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card, Rank, Suit, standard_deck
from parlour.engine.trick import Play
from parlour.engine.view import View

PACK = standard_deck()
QUEEN_OF_SPADES = Card.parse("QS")
SPADE_HONOURS = (Card.parse("AS"), Card.parse("KS"))
#: One opponent holding every point taken so far, and at least this many: a moon attempt.
MOON_ALERT = 16


def points(cards: Sequence[Card]) -> int:
    """A heart is a point, the queen of spades thirteen."""
    return sum(1 for c in cards if c.suit is Suit.HEARTS) + (13 if QUEEN_OF_SPADES in cards else 0)


def points_taken(view: View) -> list[int]:
    """Points each seat has taken in the completed tricks of this hand."""
    taken = [0] * view.seats
    for trick in view.tricks:
        if trick.winner is not None:
            taken[trick.winner] += points([p.card for p in trick.plays])
    return taken


def by_rank(card: Card) -> tuple[int, int]:
    return int(card.rank), card.index


@dataclass(frozen=True, slots=True)
class Position:
    """What the seat reads off the table for one card decision."""

    cards: list[Card]  # the legal cards
    plays: tuple[Play, ...]
    best: Play | None  # who is winning the trick so far
    table_points: int
    behind: list[int]  # seats still to play after this one
    queen_out: bool  # the queen of spades is in another hand

    @property
    def led(self) -> Suit | None:
        return self.plays[0].card.suit if self.plays else None

    def beats(self, card: Card) -> bool:
        return self.best is not None and card.suit is self.led and card.rank > self.best.card.rank


def read_position(view: View, legal: Sequence[Action]) -> Position:
    plays = current_plays(view)
    queen_out = QUEEN_OF_SPADES not in view.hand and QUEEN_OF_SPADES not in cards_played(view)
    return Position(
        cards=sorted(playable(legal), key=by_rank),
        plays=plays,
        best=winning_play(plays, None),
        table_points=points([p.card for p in plays]),
        behind=still_to_play(view),
        queen_out=queen_out,
    )


# -- easy ------------------------------------------------------------------------------
def decide_easy(view: View, legal: Sequence[Action], rng: random.Random) -> Action:
    """Avoid taking points right now; nothing more."""
    if of_kind(legal, ActionKind.GIVE):
        return choose_give(view, legal, plan_easy)
    pos = read_position(view, legal)
    cards = playable(legal)
    if not pos.plays:
        return cards[pos.cards[0]]
    safe = [c for c in pos.cards if not (pos.beats(c) and pos.table_points + points([c]) > 0)]
    return cards[max(safe, key=by_rank) if safe else pos.cards[0]]


# -- normal and hard -------------------------------------------------------------------
def decide_normal(view: View, legal: Sequence[Action], rng: random.Random) -> Action:
    if of_kind(legal, ActionKind.GIVE):
        return choose_give(view, legal, plan_normal)
    return playable(legal)[_play(view, read_position(view, legal), hard=False)]


def decide_hard(view: View, legal: Sequence[Action], rng: random.Random) -> Action:
    return _decide_searching(view, legal, rng, HARD_SEARCH)


#: The expert's default thinking budget: simulated card plays per decision. The
#: play-outs are compiled (setup.py): 200,000 cost about what 60,000 did in pure Python.
EXPERT_BUDGET = 200_000


def decide_expert(
    view: View, legal: Sequence[Action], rng: random.Random, budget: int = EXPERT_BUDGET
) -> Action:
    """The hard opponent with a search many times deeper that trusts what it finds."""
    return _decide_searching(view, legal, rng, Search(budget, (16, 600), 0.0, weigh_pass=True))


@dataclass(frozen=True, slots=True)
class Search:
    """How hard the look-ahead works: simulated plays, deals (least, most), caution,
    and whether the pass is weighed by play-outs too (else the hard plan's)."""

    budget: int
    deals: tuple[int, int]
    margin: float
    weigh_pass: bool = False


#: The first cards of the hard plan the expert weighs, every three of them as a pass.
PASS_CANDIDATES = 7


def plan_expert(hand: Sequence[Card], offset: int, budget: int) -> list[Card]:
    """The expert's pass first, then the hard plan (``choose_give`` takes its head)."""
    chosen = [Card.from_index(index) for index in _weigh_pass(search.bits(hand), offset, budget)]
    return chosen + [card for card in plan_hard(hand) if card not in chosen]


@lru_cache(maxsize=256)
def _weigh_pass(hand: int, offset: int, budget: int) -> tuple[int, ...]:
    """Every set of three of the hard plan's first cards, by play-outs (``best_pass``).

    Seeded by the hand, so the three single-card picks of one pass agree.
    """
    cards = [card for card in PACK if hand >> card.index & 1]
    candidates = [card.index for card in plan_hard(cards)[:PASS_CANDIDATES]]
    rng = random.Random(hand * search.SEATS + offset)
    return tuple(search.best_pass(hand, candidates, offset, rng, budget))


HARD_SEARCH = Search(search.PLAY_BUDGET, (search.MIN_DEALS, search.MAX_DEALS), search.MARGIN)


def _decide_searching(
    view: View, legal: Sequence[Action], rng: random.Random, how: Search
) -> Action:
    if of_kind(legal, ActionKind.GIVE):
        offset = PASS_OFFSET.get(view.pass_direction)
        if how.weigh_pass and offset is not None:
            return choose_give(view, legal, partial(plan_expert, offset=offset, budget=how.budget))
        return choose_give(view, legal, plan_hard)
    pos = read_position(view, legal)
    shooter = moon_shooter(view)
    defence = None if shooter is None else break_the_moon(view, pos, shooter)
    if defence is not None:
        return playable(legal)[defence]
    preferred = _play(view, pos, hard=True)
    if len(pos.cards) == 1:
        return playable(legal)[preferred]
    return playable(legal)[search_card(view, pos, preferred, rng, how)]


def _play(view: View, pos: Position, hard: bool) -> Card:
    if not pos.plays:
        if hard:
            unseen = set(PACK) - set(view.hand) - cards_played(view)
            return _lead_hard(view, pos, unseen, voids_shown(view))
        return _lead_normal(view, pos)
    if any(c.suit is pos.led for c in pos.cards):
        last = not pos.behind
        if hard:
            # Nobody behind can overtake when they have all shown a void in the suit.
            voids = voids_shown(view)
            last = last or all(pos.led in voids.get(seat, ()) for seat in pos.behind)
        return _follow(view, pos, last)
    return _discard(view, pos)


def dangerous(card: Card, pos: Position) -> bool:
    """The queen of spades, and the ace or king of spades while the queen is out."""
    return card is QUEEN_OF_SPADES or (card in SPADE_HONOURS and pos.queen_out)


def _lead_normal(view: View, pos: Position) -> Card:
    """Lowest card, away from the dangerous spades (and from spades when holding the queen)."""
    hold_queen = QUEEN_OF_SPADES in view.hand
    safe = [
        c for c in pos.cards if not dangerous(c, pos) and not (hold_queen and c.suit is Suit.SPADES)
    ]
    length = suit_counts(view.hand)
    return min(safe or pos.cards, key=lambda c: (c.rank, length.get(c.suit, 0), c.index))


def _follow(view: View, pos: Position, last: bool) -> Card:
    under = [c for c in pos.cards if not pos.beats(c)]
    if QUEEN_OF_SPADES in under:
        return QUEEN_OF_SPADES  # a higher spade is winning: the queen goes under it
    if under:
        return max(under, key=by_rank)  # duck with the highest card that loses
    others = [c for c in pos.cards if c is not QUEEN_OF_SPADES] or pos.cards
    if last:
        return max(others, key=by_rank)  # it is ours anyway: spend the highest
    assert pos.led is not None
    first_round = not any(t.plays and t.plays[0].card.suit is pos.led for t in view.tricks)
    if pos.table_points == 0 and first_round and pos.led is not Suit.SPADES:
        return max(others, key=by_rank)  # everyone follows the first round of a suit
    return min(others, key=by_rank)  # hope someone behind overtakes


def _discard(view: View, pos: Position) -> Card:
    """Void in the led suit: unload the queen, then the dangerous spades, then high hearts."""
    if QUEEN_OF_SPADES in pos.cards:
        return QUEEN_OF_SPADES
    honours = [c for c in pos.cards if dangerous(c, pos)]
    if honours:
        return max(honours, key=by_rank)
    hearts = [c for c in pos.cards if c.suit is Suit.HEARTS]
    if hearts:
        return max(hearts, key=by_rank)
    length = suit_counts(view.hand)
    return max(pos.cards, key=lambda c: (c.rank, -length.get(c.suit, 0), c.index))


# -- hard only ---------------------------------------------------------------------------
def moon_shooter(view: View) -> int | None:
    """The opponent who has taken every point so far, with many points in; else None."""
    taken = points_taken(view)
    holders = [seat for seat, pts in enumerate(taken) if pts > 0]
    if len(holders) == 1 and holders[0] != view.seat and taken[holders[0]] >= MOON_ALERT:
        return holders[0]
    return None


def break_the_moon(view: View, pos: Position, shooter: int) -> Card | None:
    """Against a moon shot: take a trick with points from the shooter, never feed it.

    None when the position offers no defence, and the usual play stands.
    """
    if not pos.plays:
        unseen = set(PACK) - set(view.hand) - cards_played(view)
        top_hearts = [
            c
            for c in pos.cards
            if c.suit is Suit.HEARTS
            and not any(u.suit is Suit.HEARTS and u.rank > c.rank for u in unseen)
        ]
        # A heart nobody can beat takes a point off the shooter.
        return max(top_hearts, key=by_rank) if top_hearts else None
    if pos.best is None or pos.best.seat != shooter:
        return None
    winners = [c for c in pos.cards if pos.beats(c) and c is not QUEEN_OF_SPADES]
    if winners and (pos.table_points > 0 or pos.led is Suit.HEARTS):
        return max(winners, key=by_rank)  # take the points away from the shooter
    if not any(c.suit is pos.led for c in pos.cards):
        plain = [c for c in pos.cards if points([c]) == 0]
        if plain:
            return max(plain, key=by_rank)  # void: discard, but nothing that feeds the shooter
    return None


def _lead_hard(
    view: View,
    pos: Position,
    unseen: set[Card],
    voids: dict[int, set[Suit]],
) -> Card:
    """The lead least likely to take points, by what is still out and who is void."""
    assert view.seat is not None
    opponents = [s for s in range(view.seats) if s != view.seat]
    hold_queen = QUEEN_OF_SPADES in view.hand
    hold_honour = any(c in view.hand for c in SPADE_HONOURS)

    def risk(card: Card) -> float:
        if dangerous(card, pos):
            return 10.0
        higher = sum(1 for u in unseen if u.suit is card.suit and u.rank > card.rank)
        lower = sum(1 for u in unseen if u.suit is card.suit and u.rank < card.rank)
        void = sum(1 for s in opponents if card.suit in voids.get(s, ()))
        win = 1.0 if higher == 0 else lower / (lower + higher)
        exposure = 1.0 + void + (3.0 if card.suit is Suit.HEARTS else 0.0)
        cost = win * exposure
        if card.suit is Suit.SPADES:
            if hold_queen:
                cost += 2.0  # leading spades walks the queen into trouble
            elif pos.queen_out and not hold_honour and card.rank < Rank.QUEEN:
                cost -= 0.5  # flush the queen out while someone else must take it
        return cost

    return min(pos.cards, key=lambda c: (risk(c), c.rank, c.index))


# -- hard: look-ahead ----------------------------------------------------------------------
PASS_OFFSET = {"left": 1, "right": 3, "across": 2}


def search_card(
    view: View, pos: Position, preferred: Card, rng: random.Random, how: Search = HARD_SEARCH
) -> Card:
    """Weigh each legal card by sampled play-outs (see ``hearts_search``)."""
    assert view.seat is not None
    me = view.seat
    played = cards_played(view)
    unseen = [c.index for c in PACK if c not in played and c not in view.hand]
    sizes = {p.seat: p.hand_size for p in view.players if p.seat != me}
    voids = {seat: {s.index for s in suits} for seat, suits in voids_shown(view).items()}
    known: dict[int, int] = {}
    offset = PASS_OFFSET.get(view.pass_direction)
    if offset is not None and view.received_cards:
        receiver = (me + offset) % view.seats
        still_there = [c for c in view.passed_cards if c not in played]
        known[receiver] = search.bits(still_there)
    trick = [p.card.index for p in pos.plays]
    broken = bool(view.hearts_broken)
    choice = search.best_card(
        me,
        search.bits(view.hand),
        [c.index for c in pos.cards],
        preferred.index,
        trick,
        unseen,
        sizes,
        voids,
        known,
        points_taken(view),
        broken,
        rng,
        how.budget,
        how.deals,
        how.margin,
    )
    return Card.from_index(choice)
