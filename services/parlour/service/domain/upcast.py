"""Event schema versions, and the upcasters that read old events as current ones.

A stored event is never rewritten: a log written years ago must still replay,
on any machine, to the same digests. When the shape of an event's payload
changes, its type's schema version goes up, writers write the new version,
and an upcaster here turns a payload of the previous version into the next
one. Readers never call these themselves: ``events.decode`` upcasts every
stored event it reads (the service's fold, ``parlour replay``, the Replay
RPC all read through it), so they only ever meet current payloads.

Schema history:

``CardsDealt``
    v1  ``{"deck": "QS 2C 9H ..."}``: the shuffled deck as one space-separated
        string, as the first prototype of the service stored it.
    v2  ``{"cards": ["QS", "2C", "9H", ...]}``: one card code per element, so a
        JSON tool (or a Postgres ``jsonb`` query) can index a single card.

``CardsDealt`` v3 and ``ActionTaken`` v2
    The same payloads; only the digest stored beside the event changed (see
    ``fold.event_digest``). Up to ``CardsDealt`` v2 and ``ActionTaken`` v1 the
    digest hashes a JSON snapshot of the whole engine state; from these
    versions on it chains: a hash of the previous event's digest, this event
    and the seats to act, with the whole-state hash folded in at every deal.
    Replay checks each event with the definition of the version it was
    written at, so old logs verify exactly as before.

``CardsDealt`` v4
    ``{"cards": [...], "deal": n, "salt": "<64 hex>", "commitment": "<64 hex>"}``:
    the deal's number in the game (0, 1, ...), a fresh random salt and the
    commitment ``sha256`` over the deck and salt (``service/deals.py``,
    ``docs/fair-deals.md``). The digest is defined as for v3 (over the cards).
    A v3 deal upcasts unchanged: it has no commitment, so there is nothing
    to verify but its digest.

Also from then on (optional keys, no version change: absent means off/none):
``TableHosted`` ``players_entropy``, ``server_seed_commitment`` and the
private ``server_seed``; ``SeatTaken`` ``entropy`` (the seat's contribution);
``GameStarted`` ``contributions`` (one per seat, in seat order).

Issue 30 (accounts and moderation) added, the same way (optional keys, no
version change, absent means none/on): ``TableHosted`` ``seat_code_hashes``
(per seat, the SHA-256 of an invite-only seat's code, "" for an open seat)
and ``spectators`` (false: no spectators); ``SeatTaken`` ``account_id``
(absent: taken without a session, as every seat before). The new type
``SeatRemoved`` (``seat``, optional ``account_id``) starts at version 1. A log
written before has none of them and folds as before: every seat open, every
table open to spectators, nobody barred.

Issue 32 (table chat) added ``TableHosted`` ``chat`` (false: the table starts
with its chat off; absent: on) and the types ``ChatSaid`` (``seat``, ``text``,
``player_name``) and ``ChatSwitched`` (``on``), at version 1. They carry no
digest and change no game state.

Every other event type is at version 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from parlour.service.domain.statuses import EventType
from parlour.service.store.protocol import StoredEvent

Payload = dict[str, Any]
Upcaster = Callable[[Payload], Payload]

CURRENT_VERSIONS: dict[str, int] = {
    EventType.CARDS_DEALT.value: 4,  # (plain str keys: looked up by the stored type)
    EventType.ACTION_TAKEN.value: 2,
}

#: (event type, version it reads) -> upcaster to version + 1
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


class UnknownSchemaVersion(Exception):
    """An event's schema version that this code cannot read (too new, or no upcaster)."""


def current_version(event_type: str) -> int:
    """The schema version writers use for ``event_type`` today."""
    return CURRENT_VERSIONS.get(event_type, 1)


def upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register the function that turns ``from_version`` of ``event_type`` into the next."""

    def register(function: Upcaster) -> Upcaster:
        _UPCASTERS[(str(event_type), from_version)] = function
        return function

    return register


def upcast_payload(event_type: str, version: int, payload: Payload) -> Payload:
    """``payload`` (written at ``version``) as the current version of ``event_type`` stores it."""
    current = current_version(event_type)
    if version > current:
        raise UnknownSchemaVersion(
            f"{event_type} schema version {version} is newer than this Parlour knows "
            f"(up to {current}); upgrade Parlour to read this log"
        )
    while version < current:
        step = _UPCASTERS.get((event_type, version))
        if step is None:
            raise UnknownSchemaVersion(f"no upcaster from {event_type} schema version {version}")
        payload = step(payload)
        version += 1
    return payload


def upcast(event: StoredEvent) -> StoredEvent:
    """``event`` with its payload at the current schema version (itself if already current).

    For looking at a log as stored rows (tests, tools); a reader decodes instead.
    """
    current = CURRENT_VERSIONS.get(event.type, 1)
    if event.schema_version == current:
        return event
    payload = upcast_payload(event.type, event.schema_version, event.payload)
    return replace(event, schema_version=current, payload=payload)


@upcaster(EventType.CARDS_DEALT, 1)
def _cards_dealt_deck_string_to_list(payload: Payload) -> Payload:
    upgraded = {key: value for key, value in payload.items() if key != "deck"}
    upgraded["cards"] = str(payload["deck"]).split()
    return upgraded


@upcaster(EventType.CARDS_DEALT, 2)
@upcaster(EventType.CARDS_DEALT, 3)
@upcaster(EventType.ACTION_TAKEN, 1)
def _same_payload_chained_digest(payload: Payload) -> Payload:
    return payload
