"""What the service adds to the contract's conversions: tables, statuses, clocks, events.

Engine values cross in ``parlour.contract`` (both directions, shared with the
bots); here are the facts only the service holds: table rows and seat kinds,
table statuses, the clock options and a snapshot's clocks and endings, and the
public events of a table's log. Event descriptions go through
``fold.describe``, which hides a Hearts pass; their words come from
``parlour.words``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import resources
from typing import TYPE_CHECKING

from google.protobuf.timestamp_pb2 import Timestamp

from parlour.contract.actions import action_from_proto as action_from_proto
from parlour.contract.actions import action_to_proto, action_words
from parlour.contract.cards import by_name, inverse
from parlour.contract.options import option_spec_to_proto
from parlour.contract.options import option_text as option_text
from parlour.contract.results import fill_end_rule
from parlour.contract.view import public_view_to_proto, view_to_proto
from parlour.engine.actions import ActionKind
from parlour.engine.registry import GameInfo
from parlour.engine.view import View
from parlour.service.domain.clock import CLOCK_OPTIONS
from parlour.service.domain.events import ActionTaken, CardsDealt, ChatSaid, decode
from parlour.service.domain.fold import ChatEntry, describe, parse_action
from parlour.service.domain.phrases import event_phrase
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.domain.table_options import TABLE_OPTIONS
from parlour.service.store.protocol import StoredEvent, TableRow
from parlour.v1 import catalogue_pb2, common_pb2, lobby_pb2, play_pb2
from parlour.words import DEFAULT_LANGUAGE, say_event, say_phrase

if TYPE_CHECKING:
    from parlour.service.app.views import SeatView

STATUS_TO_PROTO = by_name(TableStatus, lobby_pb2.TableStatus, "TABLE_STATUS_")
STATUS_FROM_PROTO = inverse(STATUS_TO_PROTO)
SEAT_KIND_TO_PROTO = by_name(SeatKind, lobby_pb2.SeatKind, "SEAT_KIND_")
# a seat choice that names no kind is a person's seat
SEAT_KIND_FROM_PROTO = inverse(SEAT_KIND_TO_PROTO) | {
    lobby_pb2.SEAT_KIND_UNSPECIFIED: SeatKind.PERSON
}


# -- catalogue -------------------------------------------------------------------------------


def game_info(info: GameInfo, *, with_rules: bool) -> catalogue_pb2.GameInfo:
    message = catalogue_pb2.GameInfo(
        id=info.id,
        name=info.name,
        min_seats=info.min_seats,
        max_seats=info.max_seats,
        options=[
            option_spec_to_proto(spec) for spec in (*info.options, *CLOCK_OPTIONS, *TABLE_OPTIONS)
        ],
        summary=info.summary,
        rules_text=info.rules_text if with_rules else "",
    )
    fill_end_rule(message.end_rule, info.end_rule)
    return message


def rules_in(info: GameInfo, language: str) -> str | None:
    """The game's rules in ``language`` where there is a text in it other than the
    English original: the engine's own ("hearts.pl.md", the Polish original of
    Kierki), else the phrasebook's translation (``parlour/words/rules``); None for English."""
    if language == DEFAULT_LANGUAGE:
        return None
    stem = info.rules_file.removesuffix(".md")
    for package in ("parlour.engine", "parlour.words"):
        found = resources.files(package).joinpath("rules", f"{stem}.{language}.md")
        if found.is_file():
            return found.read_text(encoding="utf-8")
    return None


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
                invite_only=bool(seat.code_hash),
                signed_in=seat.account_id is not None,
            )
            for seat in row.seat_rows
        ],
        options={name: option_text(value) for name, value in row.options.items()},
        status=STATUS_TO_PROTO.get(row.status, lobby_pb2.TABLE_STATUS_UNSPECIFIED),
        version=row.version,
        created_at=created,
        updated_at=updated,
    )


# -- views -----------------------------------------------------------------------------------


def view(value: View, row: TableRow) -> play_pb2.View:
    """The contract's View of an engine view (one seat's, or a spectator's), with the
    players' names and seat kinds from the table's row."""
    message = view_to_proto(value)
    _fill_table(message, value, row)
    return message


def public_view(value: View, row: TableRow, snap: SeatView) -> play_pb2.View:
    """The part of every seat's View at ``snap``'s version that they all share, from the
    spectator's view ``value``: its public fields, the players' names and seat kinds,
    the clocks and the chat. Not for a table that ended without finishing its game
    (:func:`fill_clock` then clears seat fields too). Joined to a seat's own part
    (``contract.view.seat_part_to_proto``) it is that seat's :func:`any_view`."""
    message = public_view_to_proto(value)
    _fill_table(message, value, row)
    fill_clock(message, snap)
    return message


def _fill_table(message: play_pb2.View, value: View, row: TableRow) -> None:
    seat_rows = row.seat_rows
    for player in message.players:
        if player.seat < len(seat_rows):
            seat = seat_rows[player.seat]
            player.player_name = seat.player_name or ""
            player.kind = SEAT_KIND_TO_PROTO[seat.kind]
    status = TableStatus.FINISHED if value.is_over else TableStatus.PLAYING
    message.table_status = STATUS_TO_PROTO[status]


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


def chat_line(entry: ChatEntry) -> play_pb2.ChatLine:
    """A chat line as the contract carries it (the same for every viewer)."""
    line = play_pb2.ChatLine(
        version=entry.version, seat=entry.seat, player_name=entry.player_name, text=entry.text
    )
    line.said_at.FromDatetime(entry.said_at)
    return line


def fill_clock(message: play_pb2.View, snap: SeatView) -> None:
    """The turn clocks, away seats and an ending without a finished game (issue 12)."""
    message.chat.extend(chat_line(entry) for entry in snap.chat)
    message.chat_enabled = snap.chat_on
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


def event_reader(event: StoredEvent, viewer: int | None) -> int | None:
    """Whom ``viewer`` reads ``event`` as: its own seat for a card it gave, else None.

    :func:`public_event` of an event is the same for every viewer of one reader:
    only a Hearts card given reads differently, to the seat that gave it
    (``fold.describe`` hides it from everyone else); every other event reads the
    same to all, the seat that made a move included. So a message built for one
    reader may be sent to every viewer of that reader.
    """
    if viewer is not None and event.type == ActionTaken.TYPE:
        typed = decode(event)
        if (
            isinstance(typed, ActionTaken)
            and typed.seat == viewer
            and parse_action(typed.action).kind is ActionKind.GIVE
        ):
            return viewer
    return None


def length_delimited(number: int, payload: bytes) -> bytes:
    """A serialized message's field ``number`` holding ``payload`` (a message's bytes):
    the protobuf wire format's tag, length and bytes, to join with a message's other
    fields' bytes (as the encoder would lay them out)."""
    head = bytearray()
    for varint in ((number << 3) | 2, len(payload)):  # the tag (wire type 2), the length
        while varint > 0x7F:
            head.append((varint & 0x7F) | 0x80)
            varint >>= 7
        head.append(varint)
    return bytes(head) + payload


def public_event(event: StoredEvent, viewer: int | None) -> play_pb2.PublicEvent:
    typed = decode(event)
    seat, taken, text = describe(typed, viewer)
    message = play_pb2.PublicEvent(version=event.seq, type=event.type, text=text)
    if isinstance(typed, CardsDealt):  # public from the start: the deck and salt are not
        message.deal_commitment = typed.commitment or ""
    elif isinstance(typed, ChatSaid):  # public: the same line for every viewer
        message.chat.CopyFrom(
            chat_line(
                ChatEntry(event.seq, typed.seat, typed.player_name, typed.text, event.created_at)
            )
        )
    if seat is not None:
        message.seat = seat
    done = ""
    if taken is not None:
        if taken.card is None and taken.kind is ActionKind.GIVE:
            message.action.kind = common_pb2.ACTION_KIND_GIVE
            message.action.text = "give"
        else:
            message.action.CopyFrom(action_to_proto(taken))
            done = action_words(taken, "past")
    phrased = event_phrase(typed, viewer)  # in the call's language
    if phrased is not None:
        message.words = say_phrase(phrased[0], None, **phrased[1])
    else:
        message.words = say_event(text, seat=seat, done=done)
    return message
