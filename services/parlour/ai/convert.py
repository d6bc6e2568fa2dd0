"""The contract's View as the engine's pure View, so a worker's strategies read
what the server sent exactly as they read a view in self-play.

Only value types cross: cards, actions and the view dataclasses (never a game
state). Actions are read from their canonical text, so every action kind the
contract lists converts the same way the server parses it.
"""

from __future__ import annotations

from collections.abc import Iterable

from parlour.ai.convert_results import end_reason, end_rule, hand_result
from parlour.engine.actions import Action
from parlour.engine.cards import Card, Suit
from parlour.engine.trick import Play, Trick
from parlour.engine.view import Move, PlayerView, View
from parlour.v1 import common_pb2, play_pb2

SUITS: dict[int, Suit | None] = {
    common_pb2.SUIT_UNSPECIFIED: None,
    common_pb2.SUIT_CLUBS: Suit.CLUBS,
    common_pb2.SUIT_DIAMONDS: Suit.DIAMONDS,
    common_pb2.SUIT_HEARTS: Suit.HEARTS,
    common_pb2.SUIT_SPADES: Suit.SPADES,
}


def suit(value: int) -> Suit | None:
    """The engine suit of a proto Suit (None for SUIT_UNSPECIFIED)."""
    return SUITS[value]


def action(message: common_pb2.Action) -> Action:
    """The engine action of a proto Action (by its canonical text)."""
    return Action.parse(message.text)


def legal_actions(view: play_pb2.View) -> list[Action]:
    """The view's legal actions as engine actions, in id order (id = index + 1)."""
    return [action(legal.action) for legal in view.legal_actions]


def _cards(codes: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes)


def _card(code: str) -> Card | None:
    return Card.parse(code) if code else None


def trick(message: play_pb2.Trick) -> Trick:
    return Trick(
        leader=message.leader,
        plays=tuple(Play(play.seat, Card.parse(play.card)) for play in message.plays),
        winner=message.winner if message.HasField("winner") else None,
        led_suit=suit(message.led_suit),
    )


def player(message: play_pb2.Player) -> PlayerView:
    return PlayerView(
        seat=message.seat,
        hand_size=message.hand_size,
        score=message.score,
        tricks_taken=message.tricks_taken,
        bid=message.bid,
        team=message.team if message.HasField("team") else None,
        points_this_hand=message.points_this_hand,
    )


def view(message: play_pb2.View) -> View:
    """The engine View of a proto View (a seat's own, or a spectator's)."""
    return View(
        game=message.game,
        seat=message.seat if message.HasField("seat") else None,
        seats=message.seat_count,
        phase=message.phase,
        hand_number=message.hand_number,
        dealer=message.dealer,
        to_act=tuple(message.to_act),
        hand=_cards(message.hand),
        players=tuple(player(p) for p in message.players),
        legal_actions=tuple(legal_actions(message)),
        trump=suit(message.trump),
        trump_text=message.trump_text,
        turned_card=_card(message.turned_card),
        current_trick=trick(message.current_trick) if message.HasField("current_trick") else None,
        last_trick=trick(message.last_trick) if message.HasField("last_trick") else None,
        tricks=tuple(trick(t) for t in message.tricks),
        history=tuple(Move(move.seat, move.text) for move in message.history),
        suit_in_force=suit(message.suit_in_force),
        suit_in_force_text=message.suit_in_force_text,
        top_card=_card(message.top_card),
        stock_count=message.stock_count if message.HasField("stock_count") else None,
        contract=message.contract,
        pass_direction=message.pass_direction,
        passed_cards=_cards(message.passed_cards),
        received_cards=_cards(message.received_cards),
        hearts_broken=message.hearts_broken if message.HasField("hearts_broken") else None,
        hand_scores=tuple(tuple(score.points) for score in message.hand_scores),
        scores=tuple(message.scores),
        is_over=message.is_over,
        winners=tuple(message.winners),
        notes=tuple(message.notes),
        end_rule=end_rule(message.end_rule) if message.HasField("end_rule") else None,
        last_hand=hand_result(message.last_hand) if message.HasField("last_hand") else None,
        end_reason=end_reason(message.end_reason),
        passes_in_a_row=message.passes_in_a_row,
        must_play=_card(message.must_play_card),
    )
