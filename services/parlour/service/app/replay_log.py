"""A table's event log, cut to what the caller may see (GetReplay's application layer).

A finished game's log is public, whole. While a game is on, a seat gets its
own cards of each deal and its own Hearts passes, a spectator only the public
events, and nobody gets digests (a digest hashes every hidden hand; late in
a hand the few hands still possible could be tried against it). Which cards a
deal gave a seat is the engine's to say (``GameState.deal_order``), so the log
is folded to ask it at each deal. (Comparing the hand before and after a deal
would miss the cards a Crazy 8s seat still held from the last round and was
dealt again.)

Deals are committed (``deals.py``): while the game is on, a deal shows its
number and public commitment but neither its deck nor its salt, and
TableHosted leaves out the server's seed (its commitment stays); all of them
are revealed with the rest of the log once the game is over.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from parlour.engine.actions import ActionKind
from parlour.engine.cards import Card
from parlour.service.app import auth
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.app.seating import holds_seat
from parlour.service.domain.errors import BadRequest, Barred
from parlour.service.domain.events import (
    ActionTaken,
    CardsDealt,
    DomainEvent,
    GameAbandoned,
    GameFinished,
    TableHosted,
    decode,
)
from parlour.service.domain.fold import Folded, describe, parse_action
from parlour.service.domain.statuses import EventType
from parlour.service.domain.table_options import spectators_allowed
from parlour.service.store.protocol import StoredEvent, TableRow

_ENDS = (EventType.GAME_FINISHED, EventType.GAME_ABANDONED)


@dataclass(frozen=True)
class VisibleEvent:
    """An event as one caller may see it (payload in the current schema)."""

    event: StoredEvent
    redacted: bool
    text: str


@dataclass(frozen=True)
class ReplayLog:
    """What GetReplay answers."""

    table: TableRow
    events: tuple[VisibleEvent, ...]
    finished: bool

    @property
    def complete(self) -> bool:
        return not any(item.redacted for item in self.events)


def visible_log(events: Sequence[StoredEvent], seat: int | None) -> list[VisibleEvent]:
    """``events`` as ``seat`` (None: a spectator) may see them.

    The whole log once the game is over; until then each deal keeps only
    ``seat``'s own cards, other seats' Hearts passes lose their card, and
    every digest is withheld.
    """
    typed = [decode(event) for event in events]
    if any(isinstance(event, GameFinished | GameAbandoned) for event in typed):
        return [
            VisibleEvent(_current(event, read), False, describe(read, _actor(read))[2])
            for event, read in zip(events, typed, strict=True)
        ]
    folded = Folded()
    visible = []
    for event, read in zip(events, typed, strict=True):
        own: list[str] = []
        if isinstance(read, CardsDealt) and seat is not None and folded.state is not None:
            deck = [Card.parse(code) for code in read.cards]
            own = [str(card) for card in folded.state.dealt_cards(deck, seat)]
        folded.take(read, event)
        current = _current(event, read)
        payload, redacted = _redact(read, seat, own)
        shown = replace(current, payload=current.payload if payload is None else payload, digest="")
        visible.append(VisibleEvent(shown, redacted, describe(read, seat)[2]))
    return visible


def _current(event: StoredEvent, read: DomainEvent) -> StoredEvent:
    """``event`` at the current schema version: its payload is what it decoded to."""
    version = read.schema_version()
    if event.schema_version == version:
        return event
    return replace(event, schema_version=version, payload=read.payload())


def _redact(
    event: DomainEvent, seat: int | None, own: list[str]
) -> tuple[dict[str, Any] | None, bool]:
    """The payload ``seat`` may see of ``event`` (None: all of it), and whether it was cut."""
    match event:
        case ActionTaken():
            actor = event.seat
            if parse_action(event.action).kind is ActionKind.GIVE and actor != seat:
                return {"seat": actor, "action": "give", "redacted": True}, True
        case CardsDealt():
            payload: dict[str, Any] = {"redacted": True, "deck_size": len(event.cards)}
            if event.deal is not None:
                payload["deal"] = event.deal
            if event.commitment is not None:
                payload["commitment"] = event.commitment
            if seat is not None:
                payload["own_cards"] = own
            return payload, True
        case TableHosted() if event.server_seed is not None:
            return replace(event, server_seed=None).payload(), True
    return None, False


def _actor(event: DomainEvent) -> int | None:
    return event.seat if isinstance(event, ActionTaken) else None


class ReplayPrivate(Barred):
    """The table allows no spectators, and the caller holds none of its seats."""

    REASON = "REPLAY_PRIVATE"


def check_may_read(table: TableRow, seat: int | None, credentials: Credentials) -> bool:
    """Refuse a caller who may not read table ``table``'s replay (the top of
    replay.proto: it follows the spectator setting); True if anyone may read it."""
    if seat is not None and not 0 <= seat < table.seats:
        raise BadRequest(
            f"table {table.table_id} has seats 0 to {table.seats - 1}, not seat {seat}"
        )
    if spectators_allowed(table.options):
        return True
    rows = table.seat_rows if seat is None else table.seat_rows[seat : seat + 1]
    given = auth.token_hash(credentials.seat_token) if credentials.seat_token else None
    for row in rows:
        if holds_seat(row, credentials):
            return False
        if given and row.token_hash and hmac.compare_digest(given, row.token_hash):
            return False
    raise ReplayPrivate(
        f"table {table.table_id} allows no spectators: only its players may read its replay"
    )


def check_seat_token(table: TableRow, seat: int, credentials: Credentials) -> None:
    """Refuse a caller who does not hold ``seat`` (its token, or its account's session)."""
    if not 0 <= seat < table.seats:
        raise BadRequest(
            f"table {table.table_id} has seats 0 to {table.seats - 1}, not seat {seat}"
        )
    row = table.seat_rows[seat]
    if not holds_seat(row, credentials):
        auth.check_token(credentials.seat_token, row.token_hash, f"seat {seat}")


async def get_replay(
    app: Parlour, table_id: str, seat: int | None, credentials: Credentials
) -> ReplayLog:
    """Table ``table_id``'s log for ``seat`` (checked against its token) or a spectator."""
    if not table_id:
        raise BadRequest("table_id is required")
    table = await app.get_table(table_id)
    events = await app.store.read(table_id)
    finished = any(event.type in _ENDS for event in events)
    if seat is not None and not finished:
        check_seat_token(table, seat, credentials)
    check_may_read(table, seat, credentials)
    visible = await asyncio.to_thread(visible_log, events, seat)
    return ReplayLog(table, tuple(visible), finished)
