"""A seat's view to and from the contract's View.

Only a seat's own view (``state.view(seat)``) is ever converted for that
seat, and a spectator's is ``state.view(None)``: the engine already leaves
other seats' cards out, so no hidden card can cross here. What the engine
does not know (players' names, seat kinds, the table's status, clocks) the
service adds to the message; reading a view back leaves those out.
"""

from __future__ import annotations

from collections.abc import Iterable

from parlour.contract.actions import legal_actions_from_proto, legal_entry
from parlour.contract.cards import (
    SUIT_TO_PROTO,
    card_codes,
    card_from_code,
    cards_from_codes,
    fill_trick,
    suit_from_proto,
    trick_from_proto,
)
from parlour.contract.results import (
    END_REASON_TO_PROTO,
    end_reason_from_proto,
    end_rule_from_proto,
    fill_end_rule,
    fill_hand_result,
    hand_result_from_proto,
)
from parlour.engine.view import Move, PlayerView, View
from parlour.v1 import play_pb2

#: the fields a seat's public facts share with the contract's Player, by name
_PLAYER_FIELDS = ("seat", "hand_size", "score", "tricks_taken", "bid", "points_this_hand")


def _fill_players(message: play_pb2.View, players: Iterable[PlayerView]) -> None:
    added = message.players
    for player in players:
        entry = added.add(**{name: getattr(player, name) for name in _PLAYER_FIELDS})
        if player.team is not None:
            entry.team = player.team


def player_from_proto(message: play_pb2.Player) -> PlayerView:
    return PlayerView(
        seat=message.seat,
        hand_size=message.hand_size,
        score=message.score,
        tricks_taken=message.tricks_taken,
        bid=message.bid,
        team=message.team if message.HasField("team") else None,
        points_this_hand=message.points_this_hand,
    )


#: The View's fields that differ from one seat to another at the same moment: the
#: seat itself, its cards, its choices and its own notes. Every other field of a seat's
#: view is the spectator's (checked on random games of every game by
#: tests/contract/test_view_parts.py), so a table's answers build those once for all
#: seats from the spectator's view (:func:`public_view_to_proto`), which holds no hidden
#: card, and each seat's own fields apart (:func:`seat_part_to_proto`).
SEAT_FIELDS = frozenset(
    {"seat", "hand", "legal_actions", "passed_cards", "received_cards", "must_play_card", "notes"}
)


def view_to_proto(value: View) -> play_pb2.View:
    """The contract's View of an engine view (one seat's, or a spectator's).

    Written for speed (views are converted on every move): sub-messages are
    built in place with add() rather than built and then copied in.
    """
    message = public_view_to_proto(value)
    _fill_seat_part(message, value)
    return message


def seat_part_to_proto(value: View) -> play_pb2.View:
    """Only the :data:`SEAT_FIELDS` of ``value``: the part of a View that is the seat's own.

    Its bytes joined to those of :func:`public_view_to_proto` of the spectator's view
    at the same moment are the bytes of the seat's whole View (protobuf merges the
    fields of concatenated messages; the two parts share none).
    """
    message = play_pb2.View()
    _fill_seat_part(message, value)
    return message


def _fill_seat_part(message: play_pb2.View, value: View) -> None:
    if value.seat is not None:
        message.seat = value.seat
    if value.hand:
        message.hand.extend(card_codes(value.hand))
    if value.passed_cards:
        message.passed_cards.extend(card_codes(value.passed_cards))
    if value.received_cards:
        message.received_cards.extend(card_codes(value.received_cards))
    if value.must_play is not None:
        message.must_play_card = str(value.must_play)
    if value.notes:
        message.notes.extend(value.notes)
    legal_actions = message.legal_actions
    for number, legal in enumerate(value.legal_actions, start=1):
        legal_message, legal_label = legal_entry(legal)
        legal_actions.add(id=number, action=legal_message, label=legal_label)


def public_view_to_proto(value: View) -> play_pb2.View:
    """Every field of the contract's View of ``value`` but the :data:`SEAT_FIELDS`."""
    message = play_pb2.View(
        game=value.game,
        seat_count=value.seats,
        phase=value.phase,
        hand_number=value.hand_number,
        dealer=value.dealer,
        to_act=value.to_act,
        trump=SUIT_TO_PROTO[value.trump],
        trump_text=value.trump_text,
        turned_card="" if value.turned_card is None else str(value.turned_card),
        suit_in_force=SUIT_TO_PROTO[value.suit_in_force],
        suit_in_force_text=value.suit_in_force_text,
        top_card="" if value.top_card is None else str(value.top_card),
        contract=value.contract,
        pass_direction=value.pass_direction,
        scores=value.scores,
        is_over=value.is_over,
        winners=value.winners,
        end_reason=END_REASON_TO_PROTO[value.end_reason],
        passes_in_a_row=value.passes_in_a_row,
    )
    _fill_players(message, value.players)
    tricks = message.tricks
    for trick in value.tricks:
        fill_trick(tricks.add(), trick)
    history = message.history
    for move in value.history:
        history.add(seat=move.seat, text=move.text)
    hand_scores = message.hand_scores
    for points in value.hand_scores:
        hand_scores.add(points=points)
    _fill_optional(message, value)
    return message


def _fill_optional(message: play_pb2.View, value: View) -> None:
    """The fields a view may leave absent (a trick not begun, no stock...)."""
    if value.current_trick is not None:
        fill_trick(message.current_trick, value.current_trick)
    if value.last_trick is not None:
        fill_trick(message.last_trick, value.last_trick)
    if value.stock_count is not None:
        message.stock_count = value.stock_count
    if value.hearts_broken is not None:
        message.hearts_broken = value.hearts_broken
    if value.end_rule is not None:
        fill_end_rule(message.end_rule, value.end_rule)
    if value.last_hand is not None:
        fill_hand_result(message.last_hand, value.last_hand)


def view_from_proto(message: play_pb2.View) -> View:
    """The engine View of a contract View (a seat's own, or a spectator's)."""
    has = message.HasField
    return View(
        game=message.game,
        seat=message.seat if has("seat") else None,
        seats=message.seat_count,
        phase=message.phase,
        hand_number=message.hand_number,
        dealer=message.dealer,
        to_act=tuple(message.to_act),
        hand=cards_from_codes(message.hand),
        players=tuple(player_from_proto(player) for player in message.players),
        legal_actions=tuple(legal_actions_from_proto(message)),
        trump=suit_from_proto(message.trump),
        trump_text=message.trump_text,
        turned_card=card_from_code(message.turned_card),
        current_trick=trick_from_proto(message.current_trick) if has("current_trick") else None,
        last_trick=trick_from_proto(message.last_trick) if has("last_trick") else None,
        tricks=tuple(trick_from_proto(trick) for trick in message.tricks),
        history=tuple(Move(move.seat, move.text) for move in message.history),
        suit_in_force=suit_from_proto(message.suit_in_force),
        suit_in_force_text=message.suit_in_force_text,
        top_card=card_from_code(message.top_card),
        stock_count=message.stock_count if has("stock_count") else None,
        contract=message.contract,
        pass_direction=message.pass_direction,
        passed_cards=cards_from_codes(message.passed_cards),
        received_cards=cards_from_codes(message.received_cards),
        hearts_broken=message.hearts_broken if has("hearts_broken") else None,
        hand_scores=tuple(tuple(score.points) for score in message.hand_scores),
        scores=tuple(message.scores),
        is_over=message.is_over,
        winners=tuple(message.winners),
        notes=tuple(message.notes),
        end_rule=end_rule_from_proto(message.end_rule) if has("end_rule") else None,
        last_hand=hand_result_from_proto(message.last_hand) if has("last_hand") else None,
        end_reason=end_reason_from_proto(message.end_reason),
        passes_in_a_row=message.passes_in_a_row,
        must_play=card_from_code(message.must_play_card),
    )
