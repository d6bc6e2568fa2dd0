"""Typed domain events: one frozen dataclass per event type of a table's log.

Each class names its type (``TYPE``, a member of ``statuses.EventType``: the
one spelling of each name) and the schema version writers use for it today
(:meth:`DomainEvent.schema_version`, from ``upcast.CURRENT_VERSIONS``);
:meth:`DomainEvent.new` makes the event to append, with its payload. A stored
event is read back with :func:`decode`, which upcasts an older schema version
first (``upcast.py``; nowhere else), so a reader only ever meets the current
shape, as a class to ``match``. The store keeps payloads as JSON objects:
tuples here are lists there.

Nothing here knows of gRPC or of a database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from parlour.service.domain.statuses import EventType
from parlour.service.domain.upcast import CURRENT_VERSIONS, current_version, upcast_payload
from parlour.service.store.protocol import NewEvent, StoredEvent


@dataclass(frozen=True, slots=True)
class DomainEvent:
    """An event of a table's log, by its fields."""

    TYPE: ClassVar[EventType]
    #: TYPE's value as a plain str, set for each class below: quicker to hash
    #: and to format than the enum member, for the code that runs per event
    NAME: ClassVar[str]

    @classmethod
    def schema_version(cls) -> int:
        """The version of this type's payload that is written today."""
        return current_version(cls.TYPE)

    def payload(self) -> dict[str, Any]:
        """The payload the store keeps (JSON values: tuples become lists).

        A field left at None is an optional key the payload does not carry
        (a table without players' entropy has no seed, an old deal no salt).
        """
        return {
            item.name: list(value) if isinstance(value, tuple) else value
            for item in fields(self)
            for value in (getattr(self, item.name),)
            if value is not None
        }

    def new(self, digest: str = "") -> NewEvent:
        """The event to append (``digest``: the chained digest, for the events that carry one)."""
        return NewEvent(self.TYPE.value, self.payload(), digest, self.schema_version())


@dataclass(frozen=True, slots=True)
class TableHosted(DomainEvent):
    """A table was set up: the game, its seats and options, and who may sit where."""

    TYPE = EventType.TABLE_HOSTED
    game: str
    seats: int
    options: dict[str, Any] = field(default_factory=dict)
    seat_kinds: tuple[str, ...] = ()
    bot_levels: tuple[str, ...] = ()
    name: str = ""
    # the turn clock's settings (clock.py): turn_seconds, bank_seconds, away_bot_level
    clock: dict[str, Any] | None = None
    # players' entropy (docs/fair-deals.md): the option, the public commitment
    # to the server's seed, and the seed itself (private until the game is over)
    players_entropy: bool | None = None
    server_seed_commitment: str | None = None
    server_seed: str | None = None
    # a fork's source (replay/fork.py): {"table_id": ..., "seq": ...}
    forked_from: dict[str, Any] | None = None
    # issue 30: per seat, the sha256 hex of an invite-only seat's code ("" for a seat open
    # to anyone), and False when spectators may not watch (None: they may)
    seat_code_hashes: tuple[str, ...] | None = None
    spectators: bool | None = None
    # issue 32: False when the table starts with its chat off (None: on)
    chat: bool | None = None


@dataclass(frozen=True, slots=True)
class SeatTaken(DomainEvent):
    TYPE = EventType.SEAT_TAKEN
    seat: int
    player_name: str = ""
    entropy: str | None = None  # the seat's contribution to the shuffle, as hex
    account_id: str | None = None  # the account that took the seat (issue 30), if any


@dataclass(frozen=True, slots=True)
class SeatLeft(DomainEvent):
    TYPE = EventType.SEAT_LEFT
    seat: int


@dataclass(frozen=True, slots=True)
class GameStarted(DomainEvent):
    TYPE = EventType.GAME_STARTED
    contributions: tuple[str, ...] | None = None  # with players' entropy, in seat order


@dataclass(frozen=True, slots=True)
class CardsDealt(DomainEvent):
    """The outcome of chance: the shuffled cards, in dealing order."""

    TYPE = EventType.CARDS_DEALT
    cards: tuple[str, ...]
    # schema 4: the deal's number, its salt (private until the game is over)
    # and the public commitment to cards and salt (docs/fair-deals.md)
    deal: int | None = None
    salt: str | None = None
    commitment: str | None = None


@dataclass(frozen=True, slots=True)
class ActionTaken(DomainEvent):
    """A seat's move, in the engine's notation ("play QS", "bid 3")."""

    TYPE = EventType.ACTION_TAKEN
    seat: int
    action: str


@dataclass(frozen=True, slots=True)
class GameFinished(DomainEvent):
    TYPE = EventType.GAME_FINISHED
    scores: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class SeatAway(DomainEvent):
    """A person's turn clock ran out: a bot of ``bot_level`` plays the seat from now."""

    TYPE = EventType.SEAT_AWAY
    seat: int
    bot_level: str = ""


@dataclass(frozen=True, slots=True)
class SeatReturned(DomainEvent):
    """The person took the seat back with its token."""

    TYPE = EventType.SEAT_RETURNED
    seat: int


@dataclass(frozen=True, slots=True)
class TableExpired(DomainEvent):
    """An open table nobody started in time."""

    TYPE = EventType.TABLE_EXPIRED


@dataclass(frozen=True, slots=True)
class GameAbandoned(DomainEvent):
    """No person acted in time: the game ends with the scores as they stand, no winner."""

    TYPE = EventType.GAME_ABANDONED
    scores: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class SeatRemoved(DomainEvent):
    """The host removed the person in ``seat`` before the start: the seat reopens, and
    ``account_id`` may not sit at this table again (None: the person had no account, so
    from now on the table seats only signed-in players)."""

    TYPE = EventType.SEAT_REMOVED
    seat: int
    account_id: str | None = None


@dataclass(frozen=True, slots=True)
class ChatSaid(DomainEvent):
    """A seat said a line at the table: public, to every seat and spectator (issue 32).

    ``text`` is already checked (NFC, at most ``chat.MAX_CHAT_CHARS``, no control
    character); ``player_name`` is the seat's name when it was said.
    """

    TYPE = EventType.CHAT_SAID
    seat: int
    text: str
    player_name: str = ""


@dataclass(frozen=True, slots=True)
class ChatSwitched(DomainEvent):
    """The host switched the table's chat on (``on``) or off."""

    TYPE = EventType.CHAT_SWITCHED
    on: bool


EVENT_CLASSES: dict[str, type[DomainEvent]] = {
    kind.TYPE.value: kind
    for kind in (
        TableHosted,
        SeatTaken,
        SeatLeft,
        GameStarted,
        CardsDealt,
        ActionTaken,
        GameFinished,
        SeatAway,
        SeatReturned,
        TableExpired,
        GameAbandoned,
        SeatRemoved,
        ChatSaid,
        ChatSwitched,
    )
}


for _kind in EVENT_CLASSES.values():
    _kind.NAME = _kind.TYPE.value


class UnknownEventType(Exception):
    """A stored event whose type this code does not know."""


Payload = dict[str, Any]
Decoder = Callable[[Payload], DomainEvent]


def _fields_decoder(kind: type[DomainEvent]) -> Decoder:
    """A payload's fields as ``kind``: lists become tuples, a missing key its default."""
    names = tuple(item.name for item in fields(kind))

    def decode_fields(payload: Payload) -> DomainEvent:
        values = {}
        for name in names:
            if name in payload:
                value = payload[name]
                values[name] = tuple(value) if type(value) is list else value
        return kind(**values)

    return decode_fields


# The two events of every move and deal (nearly all of a log) are read by hand:
# replaying a log is mostly decoding them. A log repeats the same few hundred
# moves, and an event is immutable: each is made once (making a frozen
# dataclass costs several times a look-up).
_TAKEN: dict[tuple[Any, Any], ActionTaken] = {}
_TAKEN_KEPT = 4096


def _action_taken(payload: Payload) -> ActionTaken:
    key = (payload["seat"], payload["action"])
    taken = _TAKEN.get(key)
    if taken is None:
        if len(_TAKEN) >= _TAKEN_KEPT:
            _TAKEN.clear()
        taken = _TAKEN[key] = ActionTaken(int(key[0]), str(key[1]))
    return taken


def _cards_dealt(payload: Payload) -> CardsDealt:
    get = payload.get
    return CardsDealt(tuple(payload["cards"]), get("deal"), get("salt"), get("commitment"))


#: event type -> (the schema version written today, the decoder of its current payload)
_DECODERS: dict[str, tuple[int, Decoder]] = {
    name: (CURRENT_VERSIONS.get(name, 1), _fields_decoder(kind))
    for name, kind in EVENT_CLASSES.items()
}
_DECODERS[ActionTaken.TYPE] = (ActionTaken.schema_version(), _action_taken)
_DECODERS[CardsDealt.TYPE] = (CardsDealt.schema_version(), _cards_dealt)
_TAKEN_NAME, _TAKEN_VERSION = ActionTaken.NAME, ActionTaken.schema_version()


def decode(event: StoredEvent) -> DomainEvent:
    """The typed event a stored one holds, upcast to the current schema version.

    Fields a payload lacks take their defaults (early logs wrote fewer); keys
    that are not fields are not read. An unknown type raises
    :class:`UnknownEventType`, a schema version with no way to the current one
    ``upcast.UnknownSchemaVersion``, a payload without a required field
    KeyError or TypeError.
    """
    kind = event.type
    if kind == _TAKEN_NAME and event.schema_version == _TAKEN_VERSION:
        return _action_taken(event.payload)  # nearly every event of a log: no table look-up
    found = _DECODERS.get(kind)
    if found is None:
        raise UnknownEventType(f"no event type {kind!r}")
    current, decoder = found
    if event.schema_version == current:
        return decoder(event.payload)
    return decoder(upcast_payload(event.type, event.schema_version, event.payload))


def decode_payload(event_type: str, payload: Payload) -> DomainEvent:
    """The typed event of a current ``payload`` of ``event_type`` (one being written)."""
    found = _DECODERS.get(event_type)
    if found is None:
        raise UnknownEventType(f"no event type {event_type!r}")
    return found[1](payload)
