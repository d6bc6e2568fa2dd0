"""Conversions between engine values and the contract's messages.

Only a seat's own view (``state.view(seat)``) is ever converted for that
seat, and a spectator gets ``state.view(None)``: the engine already leaves
other seats' cards out, so hidden information cannot cross here. Event
descriptions go through ``fold.describe``, which hides a Hearts pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from google.protobuf.timestamp_pb2 import Timestamp

from parlour.contract.results import (
    SUIT_TO_PROTO,
    by_name,
    fill_end_rule,
    fill_view_results,
    inverse,
)
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card
from parlour.engine.errors import MalformedAction
from parlour.engine.options import OptionSpec, OptionType
from parlour.engine.registry import GameInfo
from parlour.engine.trick import Trick
from parlour.engine.view import PlayerView, View
from parlour.service.domain.clock import CLOCK_OPTIONS
from parlour.service.domain.fold import describe
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import StoredEvent, TableRow
from parlour.v1 import catalogue_pb2, common_pb2, lobby_pb2, play_pb2
from parlour.words import action_label

if TYPE_CHECKING:
    from parlour.service.app.views import SeatView

SUIT_FROM_PROTO = inverse(SUIT_TO_PROTO)
KIND_TO_PROTO = by_name(ActionKind, common_pb2.ActionKind, "ACTION_KIND_")
KIND_FROM_PROTO = inverse(KIND_TO_PROTO)
OPTION_TYPE_TO_PROTO = by_name(OptionType, catalogue_pb2.OptionType, "OPTION_TYPE_")
STATUS_TO_PROTO = by_name(TableStatus, lobby_pb2.TableStatus, "TABLE_STATUS_")
STATUS_FROM_PROTO = inverse(STATUS_TO_PROTO)
SEAT_KIND_TO_PROTO = by_name(SeatKind, lobby_pb2.SeatKind, "SEAT_KIND_")
# a seat choice that names no kind is a person's seat
SEAT_KIND_FROM_PROTO = inverse(SEAT_KIND_TO_PROTO) | {
    lobby_pb2.SEAT_KIND_UNSPECIFIED: SeatKind.PERSON
}


# -- catalogue -------------------------------------------------------------------------------


def option_text(value: object) -> str:
    """An option value as the contract writes it ("true", "7", "no_passing")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_spec(spec: OptionSpec) -> catalogue_pb2.OptionSpec:
    return catalogue_pb2.OptionSpec(
        name=spec.name,
        type=OPTION_TYPE_TO_PROTO[spec.type],
        default_value=option_text(spec.default),
        allowed_values=[option_text(value) for value in spec.allowed],
        description=spec.description,
    )


def game_info(info: GameInfo, *, with_rules: bool) -> catalogue_pb2.GameInfo:
    message = catalogue_pb2.GameInfo(
        id=info.id,
        name=info.name,
        min_seats=info.min_seats,
        max_seats=info.max_seats,
        options=[option_spec(spec) for spec in (*info.options, *CLOCK_OPTIONS)],
        summary=info.summary,
        rules_text=info.rules_text if with_rules else "",
    )
    fill_end_rule(message.end_rule, info.end_rule)
    return message


# -- lobby -----------------------------------------------------------------------------------


#: The longest table name shown (the limit on HostTableRequest.name).
MAX_TABLE_NAME = 100


def table(row: TableRow) -> lobby_pb2.Table:
    created, updated = Timestamp(), Timestamp()
    created.FromDatetime(row.created_at)
    updated.FromDatetime(row.updated_at)
    return lobby_pb2.Table(
        table_id=row.table_id,
        game=row.game,
        # clipped: tables hosted before the name limit may hold any length
        name=row.name[:MAX_TABLE_NAME],
        seat_count=row.seats,
        seats=[
            lobby_pb2.Seat(
                seat=seat.seat,
                kind=SEAT_KIND_TO_PROTO.get(seat.kind, lobby_pb2.SEAT_KIND_UNSPECIFIED),
                bot_level=seat.bot_level or "",
                player_name=seat.player_name or "",
                occupied=seat.occupied,
            )
            for seat in row.seat_rows
        ],
        options={name: option_text(value) for name, value in row.options.items()},
        status=STATUS_TO_PROTO.get(row.status, lobby_pb2.TABLE_STATUS_UNSPECIFIED),
        version=row.version,
        created_at=created,
        updated_at=updated,
    )


# -- actions ---------------------------------------------------------------------------------


def action(value: Action) -> common_pb2.Action:
    message = common_pb2.Action(
        kind=KIND_TO_PROTO[value.kind],
        card=str(value.card) if value.card is not None else "",
        suit=SUIT_TO_PROTO[value.suit],
        no_trump=value.no_trump,
        text=str(value),
        more_cards=[str(card) for card in value.more],
    )
    if value.number is not None:
        message.number = value.number
    return message


def action_from_proto(message: common_pb2.Action) -> Action:
    """The engine action a request spells out (text wins over the structured fields)."""
    if message.text:
        return Action.parse(message.text)
    kind = KIND_FROM_PROTO.get(message.kind)
    if kind is None:
        raise MalformedAction("action notation", "set the action's text or its kind")
    card = Card.parse(message.card) if message.card else None
    suit = SUIT_FROM_PROTO.get(message.suit)
    if kind in (ActionKind.PLAY, ActionKind.GIVE) and card is None:
        raise MalformedAction("action notation", f"a {kind.value} action needs a card")
    if kind is ActionKind.BID and not message.HasField("number"):
        raise MalformedAction("action notation", "a bid needs a number")
    if kind is ActionKind.NAME_TRUMP and suit is None:
        raise MalformedAction("action notation", "naming trump needs a suit")
    if kind is ActionKind.PLAY:
        assert card is not None
        return Action.play(card, suit)
    if kind is ActionKind.GIVE:
        assert card is not None
        return Action.give(card, *(Card.parse(code) for code in message.more_cards))
    if kind is ActionKind.BID:
        return Action.bid(message.number, message.no_trump)
    if kind is ActionKind.NAME_TRUMP:
        assert suit is not None
        return Action.name_trump(suit)
    return Action(kind)


def label(value: Action) -> str:
    """A short menu label: "play Q♠", "bid 7 no trump", "trump: hearts" (the phrasebook's)."""
    return action_label(
        value.kind.value,
        " ".join(str(card) for card in value.cards),
        number=value.number,
        no_trump=value.no_trump,
        suit=value.suit.value if value.suit is not None else "",
    )


# -- views -----------------------------------------------------------------------------------


def _cards(cards: Iterable[Card]) -> list[str]:
    return [str(card) for card in cards]


# Views are converted twice per move (GetView and Act), so this is written for
# speed: sub-messages are built in place with add() rather than built and then
# copied in, and each legal action's message and label are made once.
_LEGAL: dict[Action, tuple[common_pb2.Action, str]] = {}
_LEGAL_KEPT = 4096


def _legal(value: Action) -> tuple[common_pb2.Action, str]:
    """The action's message and menu label (cached; the messages are only copied from)."""
    made = _LEGAL.get(value)
    if made is None:
        if len(_LEGAL) >= _LEGAL_KEPT:
            _LEGAL.clear()
        made = _LEGAL[value] = (action(value), label(value))
    return made


def _fill_trick(message: play_pb2.Trick, trick: Trick) -> None:
    message.leader = trick.leader
    plays = message.plays
    for play in trick.plays:
        plays.add(seat=play.seat, card=str(play.card))
    message.led_suit = SUIT_TO_PROTO[trick.led_suit]
    if trick.winner is not None:
        message.winner = trick.winner


#: the fields a seat's public facts share with the contract's Player, by name
_PLAYER_FIELDS = ("seat", "hand_size", "score", "tricks_taken", "bid", "points_this_hand")


def _fill_players(message: play_pb2.View, players: Iterable[PlayerView], row: TableRow) -> None:
    seat_rows = row.seat_rows
    added = message.players
    for player in players:
        seat = seat_rows[player.seat] if player.seat < len(seat_rows) else None
        entry = added.add(
            **{name: getattr(player, name) for name in _PLAYER_FIELDS},
            player_name=(seat.player_name or "") if seat else "",
            kind=SEAT_KIND_TO_PROTO[seat.kind] if seat else lobby_pb2.SEAT_KIND_UNSPECIFIED,
        )
        if player.team is not None:
            entry.team = player.team


def view(value: View, row: TableRow) -> play_pb2.View:
    """The contract's View of an engine view (one seat's, or a spectator's)."""
    status = TableStatus.FINISHED if value.is_over else TableStatus.PLAYING
    message = play_pb2.View(
        game=value.game,
        seat_count=value.seats,
        phase=value.phase,
        hand_number=value.hand_number,
        dealer=value.dealer,
        to_act=value.to_act,
        hand=_cards(value.hand),
        trump=SUIT_TO_PROTO[value.trump],
        trump_text=value.trump_text,
        turned_card=str(value.turned_card) if value.turned_card is not None else "",
        suit_in_force=SUIT_TO_PROTO[value.suit_in_force],
        suit_in_force_text=value.suit_in_force_text,
        top_card=str(value.top_card) if value.top_card is not None else "",
        contract=value.contract,
        pass_direction=value.pass_direction,
        passed_cards=_cards(value.passed_cards),
        received_cards=_cards(value.received_cards),
        scores=value.scores,
        is_over=value.is_over,
        winners=value.winners,
        notes=value.notes,
        table_status=STATUS_TO_PROTO[status],
    )
    _fill_players(message, value.players, row)
    legal_actions = message.legal_actions
    for number, legal in enumerate(value.legal_actions, start=1):
        legal_message, legal_label = _legal(legal)
        legal_actions.add(id=number, action=legal_message, label=legal_label)
    tricks = message.tricks
    for trick in value.tricks:
        _fill_trick(tricks.add(), trick)
    history = message.history
    for move in value.history:
        history.add(seat=move.seat, text=move.text)
    hand_scores = message.hand_scores
    for points in value.hand_scores:
        hand_scores.add(points=points)
    if value.seat is not None:
        message.seat = value.seat
    if value.current_trick is not None:
        _fill_trick(message.current_trick, value.current_trick)
    if value.last_trick is not None:
        _fill_trick(message.last_trick, value.last_trick)
    if value.stock_count is not None:
        message.stock_count = value.stock_count
    if value.hearts_broken is not None:
        message.hearts_broken = value.hearts_broken
    fill_view_results(message, value)
    return message


def lobby_view(row: TableRow, seat: int | None) -> play_pb2.View:
    """The view of a table that has not started: seats and names, no cards."""
    message = play_pb2.View(
        game=row.game,
        seat_count=row.seats,
        phase="lobby",
        players=[
            play_pb2.Player(
                seat=seat_row.seat,
                player_name=seat_row.player_name or "",
                kind=SEAT_KIND_TO_PROTO.get(seat_row.kind, lobby_pb2.SEAT_KIND_UNSPECIFIED),
            )
            for seat_row in row.seat_rows
        ],
        table_status=STATUS_TO_PROTO.get(row.status, lobby_pb2.TABLE_STATUS_UNSPECIFIED),
    )
    if seat is not None:
        message.seat = seat
    return message


def any_view(
    value: View | None, row: TableRow, seat: int | None, snap: SeatView | None = None
) -> play_pb2.View:
    message = lobby_view(row, seat) if value is None else view(value, row)
    if snap is not None:
        fill_clock(message, snap)
    return message


def fill_clock(message: play_pb2.View, snap: SeatView) -> None:
    """The turn clocks, away seats and an ending without a finished game (issue 12)."""
    if snap.away or snap.deadlines:
        now = datetime.now(UTC)
        for player in message.players:
            if player.seat in snap.away:
                player.away = True
            deadline = snap.deadlines.get(player.seat)
            if deadline is not None:
                player.turn_deadline.FromDatetime(deadline)
                player.time_left_ms = max(0, int((deadline - now).total_seconds() * 1000))
    if snap.ended == "abandoned":
        message.is_over = True
        message.table_status = lobby_pb2.TABLE_STATUS_ABANDONED
        message.end_reason = play_pb2.END_REASON_ABANDONED
        del message.winners[:]
        del message.to_act[:]
        del message.legal_actions[:]
        message.phase = "over"
    elif snap.ended == "expired":
        message.is_over = True
        message.table_status = lobby_pb2.TABLE_STATUS_EXPIRED
        message.end_reason = play_pb2.END_REASON_EXPIRED


def public_event(event: StoredEvent, viewer: int | None) -> play_pb2.PublicEvent:
    seat, taken, text = describe(event, viewer)
    message = play_pb2.PublicEvent(version=event.seq, type=event.type, text=text)
    if event.type == "CardsDealt":  # public from the start: the deck and salt are not
        message.deal_commitment = str(event.payload.get("commitment") or "")
    if seat is not None:
        message.seat = seat
    if taken is not None:
        if taken.card is None and taken.kind is ActionKind.GIVE:
            message.action.kind = common_pb2.ACTION_KIND_GIVE
            message.action.text = "give"
        else:
            message.action.CopyFrom(action(taken))
    return message
