"""Replay: rebuild a game from its event log, exactly, checking every step.

A table's log (see ``service/fold.py``) records every fact of a game,
including the shuffled decks, so folding it with the rules engine rebuilds the
game on any machine without drawing a random number. Each ``CardsDealt`` and
``ActionTaken`` event carries the digest of the engine state it produced; a
replay recomputes it and stops at the first event whose result differs,
naming that event. Every event is decoded once (``events.decode``, which
reads an older schema through the upcasters in ``domain/upcast.py``) and
folded as its typed class, exactly as the service's fold reads it.

Every committed deal is verified too (``service/deals.py``): the revealed
deck and salt must hash to the commitment published before the deal was
played, and with players' entropy the deck must be the one the server's seed
(checked against its commitment) and the seats' contributions derive.

The export format is JSON lines, one event per line, in seq order::

    {"seq": 1, "type": "TableHosted", "schema_version": 1, "payload": {...}, "digest": ""}

Events are exported as stored (an old event keeps its old schema version), so
an exported log is the table's history byte for byte, not a reinterpretation.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import exc as sa_exc

from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.errors import BadDeck, EngineError
from parlour.service.domain.deals import DealChecker, DealCheckFailed
from parlour.service.domain.events import (
    ActionTaken,
    CardsDealt,
    DomainEvent,
    GameFinished,
    TableHosted,
    UnknownEventType,
    decode,
)
from parlour.service.domain.fold import Folded, digest_of, parse_action
from parlour.service.domain.statuses import EventType
from parlour.service.domain.upcast import UnknownSchemaVersion
from parlour.service.store.open import open_store
from parlour.service.store.protocol import EventStore, StoredEvent
from parlour.service.store.urls import normalize_url
from parlour.service.store.values import StoreUnavailable

#: The fields of one exported line, in the order written.
EXPORT_FIELDS = ("seq", "type", "schema_version", "payload", "digest")

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_COMPACT: dict[str, Any] = {"separators": (",", ":"), "sort_keys": True, "ensure_ascii": False}


class ReplayError(Exception):
    """The log does not replay: ``seq``/``type`` name the first event that failed.

    ``expected`` is what the log claims (a digest, scores, a valid deck...),
    ``got`` what the engine produced or said.
    """

    def __init__(self, seq: int, type: str, expected: str, got: str, what: str = "") -> None:
        where = f"event {seq} ({type}{': ' + what if what else ''})"
        super().__init__(f"{where}: expected {expected}, got {got}")
        self.seq = seq
        self.type = type
        self.expected = expected
        self.got = got


# -- the log as a file --------------------------------------------------------------------


def event_line(event: StoredEvent) -> str:
    """One exported line (without its newline).

    Payload keys are sorted (Postgres JSONB does not keep their order), so a
    game exports to the same bytes from either database.
    """
    fields = [
        json.dumps(name) + ":" + json.dumps(getattr(event, name), **_COMPACT)
        for name in EXPORT_FIELDS
    ]
    return "{" + ",".join(fields) + "}"


def write_log(events: Iterable[StoredEvent], out: IO[str]) -> int:
    """Write ``events`` as JSON lines; returns how many were written."""
    count = 0
    for event in events:
        out.write(event_line(event) + "\n")
        count += 1
    return count


async def export_game(store: EventStore, table_id: str, out: IO[str]) -> int:
    """Write table ``table_id``'s whole log to ``out``; returns the number of events."""
    events = await store.read(table_id)
    if not events:
        raise LookupError(f"no table {table_id!r} in {store.url}")
    return write_log(events, out)


class NoDatabase(LookupError):
    """No Parlour database where the URL points (no file, or a file without its tables)."""


#: how to point the commands at a database, said with every NoDatabase
POINT_AT_ONE = (
    "run this in the folder where `parlour serve` keeps parlour.sqlite3, or point at the "
    "database with --database-url URL (or $PARLOUR_DATABASE_URL)"
)


def _missing_file(database_url: str) -> Path | None:
    """The SQLite file the URL names, if it does not exist (opening it would create it)."""
    url = normalize_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    path = Path(str(url.database))
    return None if path.exists() else path


async def read_log(database_url: str, table_id: str) -> list[StoredEvent]:
    """Table ``table_id``'s whole log from the database (LookupError if there is none;
    :class:`NoDatabase`, creating nothing, if there is no Parlour database there)."""
    missing = _missing_file(database_url)
    if missing is not None:
        raise NoDatabase(f"no database at {missing.absolute()}: {POINT_AT_ONE}")
    store = open_store(database_url, connections=1)
    try:
        events = await store.read(table_id)
    except (sa_exc.OperationalError, sa_exc.ProgrammingError, StoreUnavailable) as error:
        if "no such table" in str(error) or "does not exist" in str(error):
            where = normalize_url(database_url).render_as_string(hide_password=True)
            raise NoDatabase(f"{where} holds no Parlour tables: {POINT_AT_ONE}") from None
        raise
    finally:
        await store.close()
    if not events:
        raise LookupError(f"no table {table_id!r}")
    return events


def parse_log(lines: Iterable[str], source: str = "log") -> list[StoredEvent]:
    """Events from exported JSON lines (blank lines are skipped)."""
    events: list[StoredEvent] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            event = StoredEvent(
                table_id=source,
                seq=int(record["seq"]),
                type=str(record["type"]),
                schema_version=int(record.get("schema_version", 1)),
                payload=dict(record["payload"]),
                digest=str(record.get("digest") or ""),
                request_id=None,
                created_at=_EPOCH,
            )
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{source} line {number} is not an exported event: {error}") from None
        events.append(event)
    return events


def load_log(path: str | Path) -> list[StoredEvent]:
    """The events of an exported log file."""
    path = Path(path)
    with path.open(encoding="utf-8") as lines:
        return parse_log(lines, path.name)


# -- the replay ---------------------------------------------------------------------------


@dataclass
class Step:
    """One replayed event and the game right after it.

    ``event`` is the event as stored, ``typed`` what it decodes to (at the
    current schema version). ``state`` is the live engine state (None before
    the game starts); it changes at the next step, so read what you need from
    it now. ``digest`` is the recomputed digest ("" before the game starts,
    or when not checking); ``setup`` the TableHosted payload.
    """

    event: StoredEvent
    state: GameState | None
    digest: str
    setup: dict[str, Any]
    typed: DomainEvent


def replay(
    events: Iterable[StoredEvent], *, check: bool = True, deals: DealChecker | None = None
) -> Iterator[Step]:
    """Fold ``events`` one by one with the engine, yielding each step.

    With ``check`` (the default) every stored digest is compared with the
    recomputed one and a ``GameFinished`` event's scores with the engine's;
    the first difference raises :class:`ReplayError`, as does an event the
    engine refuses or a gap in the seqs. Checking also verifies every deal's
    commitment (and derivation) with ``deals`` (a fresh :class:`DealChecker`
    if not given), raising at the first that fails.
    """
    folded = Folded()
    checker = deals if deals is not None else DealChecker()
    for stored in events:
        if stored.seq != folded.version + 1:
            raise ReplayError(
                stored.seq,
                stored.type,
                f"the event after {folded.version}",
                f"seq {stored.seq}",
                "the log has a gap or is out of order",
            )
        try:  # decode inline: one call fewer per event (this loop is the replay's cost)
            typed = decode(stored)
        except (UnknownSchemaVersion, UnknownEventType, KeyError, ValueError, TypeError) as error:
            raise _unreadable(stored, error) from None
        previous, state = folded.digest, folded.state
        try:  # inline too: every refusal becomes a ReplayError naming the event
            folded.take(typed, stored)
        except (EngineError, KeyError, ValueError, TypeError, AssertionError) as error:
            raise _refused(stored, typed, state, error) from None
        state = folded.state
        digest = ""
        if check:
            digest = digest_of(typed, stored.schema_version, previous, state) if state else ""
            _check(stored, typed, state, digest)
            if typed.__class__ is not ActionTaken:  # a move has no deal to check
                try:
                    checker.check(typed)
                except DealCheckFailed as failed:
                    raise ReplayError(
                        stored.seq, stored.type, failed.expected, failed.got, failed.what
                    ) from None
        yield Step(stored, state, digest, folded.setup, typed)


def _unreadable(event: StoredEvent, error: Exception) -> ReplayError:
    """The ReplayError saying why ``event`` could not be decoded."""
    if isinstance(error, UnknownSchemaVersion):
        return ReplayError(event.seq, event.type, "a schema version this Parlour reads", str(error))
    if isinstance(error, UnknownEventType):
        return ReplayError(event.seq, event.type, "an event type this Parlour knows", str(error))
    return _malformed(event, error)


def _malformed(event: StoredEvent, error: Exception) -> ReplayError:
    return ReplayError(
        event.seq,
        event.type,
        "a well-formed payload",
        f"{type(error).__name__}: {error} in {json.dumps(event.payload)[:200]}",
    )


def _refused(
    event: StoredEvent, typed: DomainEvent, before: GameState | None, error: Exception
) -> ReplayError:
    """The ReplayError for an event the fold refused, on the state it left unchanged."""
    if not isinstance(error, EngineError):
        return _malformed(event, error)
    if isinstance(typed, CardsDealt) and before is not None and isinstance(error, BadDeck):
        _check_deck(event, typed, before)  # the engine refused the deck unchanged: name the cards
    return ReplayError(event.seq, event.type, "an event the rules allow", str(error), _what(typed))


def _check_deck(event: StoredEvent, dealt: CardsDealt, state: GameState) -> None:
    """Name the card(s) a tampered deck gets wrong (the engine only says it is wrong);
    called once the engine refused it, on the state it left unchanged."""
    wanted = state.chance()
    if wanted is None:
        return  # the engine's own refusal ("no deal is due now") says it best
    given = Counter(Card.parse(code) for code in dealt.cards)
    if given == Counter(wanted):
        return
    extra = sorted((given - Counter(wanted)).elements())
    missing = sorted((Counter(wanted) - given).elements())
    got = "a deck with " + " and ".join(
        part
        for part in (
            f"{' '.join(map(str, extra))} too many" if extra else "",
            f"{' '.join(map(str, missing))} missing" if missing else "",
        )
        if part
    )
    raise ReplayError(
        event.seq, event.type, f"a shuffle of the {len(wanted)} cards the deal needs", got
    )


def _check(event: StoredEvent, typed: DomainEvent, state: GameState | None, digest: str) -> None:
    if event.digest and digest != event.digest:
        raise ReplayError(
            event.seq,
            event.type,
            f"state digest {event.digest}",
            f"{digest or 'no game state'}",
            _what(typed),
        )
    if isinstance(typed, GameFinished) and state is not None:
        claimed = [int(score) for score in typed.scores]
        if claimed != list(state.scores()) or not state.is_over:
            raise ReplayError(
                event.seq,
                event.type,
                f"final scores {claimed}",
                f"scores {list(state.scores())}" + ("" if state.is_over else " with the game on"),
            )


def _what(typed: DomainEvent) -> str:
    match typed:
        case ActionTaken():
            return f"seat {typed.seat} {typed.action}"
        case CardsDealt():
            return f"{len(typed.cards)} cards"
    return ""


# -- a summary, for machines ----------------------------------------------------------------


def summarize(events: Sequence[StoredEvent], *, check: bool = True) -> dict[str, Any]:
    """Replay ``events`` and describe the result as plain JSON-able data.

    ``digests`` lists ``[seq, digest]`` for every event after the game began,
    ``checked`` counts the stored digests that were compared.
    """
    digests: list[list[Any]] = []
    checked = 0
    last: Step | None = None
    hosted: TableHosted | None = None
    deals = DealChecker()
    for step in replay(events, check=check, deals=deals):
        if step.state is not None:
            digests.append([step.event.seq, step.digest])
        elif isinstance(step.typed, TableHosted):
            hosted = step.typed
        checked += bool(step.event.digest)
        last = step
    state = last.state if last is not None else None
    return {
        "game": hosted.game if hosted else "",
        "seats": hosted.seats if hosted else 0,
        "options": hosted.options if hosted else {},
        "events": len(events),
        "checked": checked if check else 0,
        "started": any(event.type == EventType.GAME_STARTED for event in events),
        "finished": bool(state is not None and state.is_over),
        "hand_scores": [list(hand) for hand in state.view(None).hand_scores] if state else [],
        "scores": list(state.scores()) if state else [],
        "winners": list(state.winners()) if state else [],
        "digests": digests,
        "deals_verified": deals.verified,
        "deals_uncommitted": deals.uncommitted,
        "players_entropy": deals.entropy,
    }


def action_of(event: StoredEvent) -> tuple[int, Action]:
    """The seat and action of an ``ActionTaken`` event."""
    taken = decode(event)
    assert isinstance(taken, ActionTaken), f"{event.type} is not an action"
    return taken.seat, parse_action(taken.action)
