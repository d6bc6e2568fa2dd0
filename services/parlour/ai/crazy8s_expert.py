"""The expert Crazy 8s opponent: determinized play-outs of the round (``crazy8s_search``).

When it has a choice (which card, which suit to name), it weighs every legal
play over random deals of the cards it has not seen, playing the round out as
the normal opponent would, and keeps the best on average for what the game is
decided on. Draws and passes are never a choice (the rules force them).

It reads only the seat's view. The discard pile is rebuilt from the public
history (the turned card and every card played, the latest ones still on the
pile) and the pile and stock sizes. The deals respect what the history shows
of the other hands: a seat that drew or passed held nothing that played then
(no card of the suit in force, none of the top card's rank, no eight), and
only the cards it has drawn since are free of that.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from parlour.ai import crazy8s_search as search
from parlour.ai.common import of_kind
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card, Suit
from parlour.engine.view import View

#: The default thinking budget: simulated moves per decision.
EXPERT_BUDGET = 100_000


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


def hand_groups(view: View) -> list[list[tuple[int, int]]]:
    """What the public history shows of each other seat's hand (none for the viewer's own).

    A seat's hand is a list of groups ``(cards, forbidden)``: so many of its
    cards, none of them in the bitset ``forbidden``. Its dealt hand is one
    group; every card it draws starts a group of its own; a draw or a pass
    forbids, in every group it holds then, the cards that would have played.
    A card played comes out of the group it was drawn into (a drawn card that
    plays is played at once), or else the largest group that allows it.
    """
    seats = view.seats
    moves = [(m.seat, m.text.split()) for m in view.history]
    groups: list[list[list[int]]] = []
    for seat in range(seats):
        played = sum(1 for who, words in moves if who == seat and words[0] == "play")
        drawn = sum(1 for who, words in moves if who == seat and words[0] == "draw")
        dealt = view.players[seat].hand_size + played - drawn
        groups.append([] if seat == view.seat or dealt < 0 else [[dealt, 0]])
    top = view.turned_card.index if view.turned_card is not None else -1
    suit = top // 13
    for n, (seat, words) in enumerate(moves):
        held = groups[seat]
        if words[0] == "play":
            card = Card.parse(words[1]).index
            if held:
                after_draw = n > 0 and moves[n - 1][0] == seat and moves[n - 1][1][0] == "draw"
                allowing = [g for g in held if not g[1] >> card & 1] or held
                group = held[-1] if after_draw else max(allowing, key=lambda g: g[0])
                group[0] -= 1
                if group[0] <= 0:
                    held.remove(group)
            top = card
            suit = Suit.parse(words[3]).index if len(words) == 4 else card // 13
            continue
        if not held or top < 0:
            continue
        playable = search.playable_mask(suit, top)
        for group in held:
            group[1] |= playable
        if words[0] == "draw":  # the card drawn did not play either, unless it is played next
            held.append([1, playable])
    return [[(count, forbidden) for count, forbidden in held] for held in groups]


def decide_expert(
    view: View, legal: Sequence[Action], rng: random.Random, budget: int = EXPERT_BUDGET
) -> Action:
    plays = [a for a in of_kind(legal, ActionKind.PLAY) if a.card is not None]
    if len(plays) < 2:
        return plays[0] if plays else legal[0]
    assert view.seat is not None and view.suit_in_force is not None
    candidates = [
        (a.card.index, (a.suit or a.card.suit).index) for a in plays if a.card is not None
    ]
    rounds = view.end_rule.rounds if view.end_rule is not None else 1
    totals = list(view.scores) or [0] * view.seats
    best = search.best_move(
        view.seat,
        [c.index for c in view.hand],
        candidates,
        discard_pile(view),
        [p.hand_size for p in view.players],
        hand_groups(view),
        totals,
        view.hand_number >= (rounds or 1),
        rng,
        budget,
    )
    return plays[best]
