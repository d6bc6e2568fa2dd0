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
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card
from parlour.service.app import auth
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain.errors import BadRequest
from parlour.service.domain.fold import (
    ACTION_TAKEN,
    CARDS_DEALT,
    GAME_ABANDONED,
    GAME_FINISHED,
    TABLE_HOSTED,
    Folded,
    describe,
)
from parlour.service.domain.upcast import upcast
from parlour.service.store.protocol import StoredEvent, TableRow


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
    current = [upcast(event) for event in events]
    if any(event.type in (GAME_FINISHED, GAME_ABANDONED) for event in current):
        return [VisibleEvent(event, False, describe(event, _actor(event))[2]) for event in current]
    folded = Folded()
    visible = []
    for event in current:
        own: list[str] = []
        if event.type == CARDS_DEALT and seat is not None and folded.state is not None:
            deck = [Card.parse(code) for code in event.payload["cards"]]
            own = [str(card) for card in folded.state.dealt_cards(deck, seat)]
        folded.apply(event)
        payload, redacted = _redact(event, seat, own)
        shown = replace(event, payload=payload, digest="")
        visible.append(VisibleEvent(shown, redacted, describe(event, seat)[2]))
    return visible


def _redact(event: StoredEvent, seat: int | None, own: list[str]) -> tuple[dict[str, Any], bool]:
    if event.type == CARDS_DEALT:
        payload: dict[str, Any] = {"redacted": True, "deck_size": len(event.payload["cards"])}
        for public in ("deal", "commitment"):
            if public in event.payload:
                payload[public] = event.payload[public]
        if seat is not None:
            payload["own_cards"] = own
        return payload, True
    if event.type == TABLE_HOSTED and "server_seed" in event.payload:
        kept = {key: value for key, value in event.payload.items() if key != "server_seed"}
        return kept, True
    if event.type == ACTION_TAKEN:
        actor = int(event.payload["seat"])
        action = Action.parse(str(event.payload["action"]))
        if action.kind is ActionKind.GIVE and actor != seat:
            return {"seat": actor, "action": "give", "redacted": True}, True
    return event.payload, False


def _actor(event: StoredEvent) -> int | None:
    seat = event.payload.get("seat") if event.type == ACTION_TAKEN else None
    return int(seat) if seat is not None else None


async def get_replay(
    app: Parlour, table_id: str, seat: int | None, credentials: Credentials
) -> ReplayLog:
    """Table ``table_id``'s log for ``seat`` (checked against its token) or a spectator."""
    if not table_id:
        raise BadRequest("table_id is required")
    table = await app.get_table(table_id)
    events = await app.store.read(table_id)
    finished = any(event.type in (GAME_FINISHED, GAME_ABANDONED) for event in events)
    if seat is not None and not finished:
        if not 0 <= seat < table.seats:
            raise BadRequest(f"table {table_id} has seats 0 to {table.seats - 1}, not seat {seat}")
        row = table.seat_rows[seat]
        auth.check_token(credentials.seat_token, row.token_hash, f"seat {seat}")
    visible = await asyncio.to_thread(visible_log, events, seat)
    return ReplayLog(table, tuple(visible), finished)
