"""Build the positions the strategy tests decide: a seat's view and its legal actions.

A position is written the way a player would describe it: the hand as card
codes, the trick so far as (seat, card) pairs, the legal actions as their text.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from parlour.ai.registry import strategy_for
from parlour.engine.actions import Action
from parlour.engine.cards import Card, Suit, parse_cards
from parlour.engine.trick import Play, Trick
from parlour.engine.view import PlayerView, View


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def trick(leader_and_cards: Sequence[tuple[int, str]], winner: int | None = None) -> Trick:
    plays = tuple(Play(seat, Card.parse(code)) for seat, code in leader_and_cards)
    leader = plays[0].seat if plays else 0
    return Trick(leader, plays, winner, plays[0].card.suit if plays else None)


def actions(*texts: str) -> tuple[Action, ...]:
    return tuple(Action.parse(text) for text in texts)


def plays_of(hand: str) -> tuple[Action, ...]:
    """Every card of ``hand`` as a legal play."""
    return tuple(Action.play(card) for card in cards(hand))


def view(
    game: str,
    *,
    seat: int = 0,
    seats: int = 4,
    hand: str = "",
    legal: Sequence[Action] = (),
    phase: str = "play",
    table: Sequence[tuple[int, str]] = (),
    tricks: Sequence[Trick] = (),
    trump: Suit | None = None,
    hand_sizes: Sequence[int] | None = None,
    bids: Sequence[str] | None = None,
    taken: Sequence[int] | None = None,
    dealer: int = 0,
    **extra: object,
) -> View:
    """A view for ``seat``: unspecified players hold as many cards as ``seat`` does."""
    own = cards(hand)
    sizes = list(hand_sizes) if hand_sizes is not None else [len(own)] * seats
    players = tuple(
        PlayerView(
            seat=s,
            hand_size=sizes[s],
            score=0,
            tricks_taken=0 if taken is None else taken[s],
            bid="" if bids is None else bids[s],
            team=s % 2 if game == "kaiser" else None,
        )
        for s in range(seats)
    )
    current = trick(table) if table else (Trick(seat, ()) if phase == "play" else None)
    return View(
        game=game,
        seat=seat,
        seats=seats,
        phase=phase,
        hand_number=1,
        dealer=dealer,
        to_act=(seat,),
        hand=own,
        players=players,
        legal_actions=tuple(legal),
        trump=trump,
        current_trick=current,
        tricks=tuple(tricks),
        **extra,  # type: ignore[arg-type]
    )


def decide(game: str, level: str, position: View, seed: int = 0) -> str:
    """The move the strategy makes in ``position``, as text."""
    strategy = strategy_for(game, level)
    return str(strategy.choose(position, position.legal_actions, random.Random(seed)))
