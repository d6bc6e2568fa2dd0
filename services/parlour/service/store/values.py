"""The store's values and errors: what goes into a table's log and comes out of it.

Plain frozen dataclasses (an event to append, a stored event, a table and its
seats as the lobby sees them, a bot lease, a row of the "who must act now"
projection, a listing's query) and the store's own exceptions. The domain and
the application read and build these; only the store writes them down.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from parlour.service.domain.statuses import SeatKind, TableStatus


def utcnow() -> datetime:
    """Now, in UTC: every time the store writes is UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended; the store gives it its seq."""

    type: str
    payload: dict[str, Any]
    digest: str = ""
    schema_version: int = 1


@dataclass(frozen=True)
class StoredEvent:
    """An event as recorded in the log of table ``table_id``."""

    table_id: str
    seq: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    digest: str
    request_id: str | None
    created_at: datetime


@dataclass(frozen=True)
class SeatRow:
    """One seat of a table as the lobby sees it."""

    seat: int
    kind: SeatKind
    bot_level: str | None = None
    player_name: str | None = None
    token_hash: str | None = None  # sha256 hex of the seat token
    occupied: bool = False
    #: the account that took the seat (None: free, a bot, or taken without a session)
    account_id: str | None = None
    #: sha256 hex of an invite-only seat's code (None: open to anyone)
    code_hash: str | None = None

    def freed(self) -> SeatRow:
        """The seat as it is once its person leaves or is removed (still invite-only if it was)."""
        return SeatRow(seat=self.seat, kind=self.kind, code_hash=self.code_hash)


@dataclass(frozen=True)
class TableRow:
    """A table in the lobby: the projection of its events."""

    table_id: str
    game: str
    seats: int
    options: dict[str, Any]
    status: TableStatus
    host_token_hash: str
    version: int  # seq of the table's last event
    name: str
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    seat_rows: tuple[SeatRow, ...] = ()
    #: the last person activity (None: no person at the table); see idle_tables
    person_active_at: datetime | None = None
    #: the account that hosted it (None: hosted without a session)
    host_account_id: str | None = None


@dataclass(frozen=True)
class Lease:
    """One worker's claim on a bot seat's turn at ``version``, until ``expires_at``."""

    table_id: str
    seat: int
    worker_id: str
    version: int
    expires_at: datetime


#: (table_id, seat, version): a bot seat's turn
Turn = tuple[str, int, int]


@dataclass(frozen=True)
class TurnRow:
    """One row of the "who must act now" projection (``turns``): a seat the table waits for.

    ``kind`` is who plays it now: BOT for a bot seat or a person's seat being
    played by a bot (away), PERSON otherwise. ``since`` is when the seat's
    turn began (the time of the event that started it) and ``deadline`` when
    its clock runs out (None: no clock). Both are derived from the event log
    (``clock.py``), so the projection can be rebuilt from it.
    """

    seat: int
    kind: SeatKind
    game: str
    since: datetime
    deadline: datetime | None = None


@dataclass(frozen=True)
class TableQuery:
    """Which tables a listing wants: at most ``limit``, optionally only those with this
    status and/or game, and only those after ``after`` = (created_at, table_id) in the
    listing's order (the keyset cursor of a page)."""

    status: TableStatus | None = None
    game: str | None = None
    limit: int = 100
    after: tuple[datetime, str] | None = None


class StoreError(Exception):
    """Base of the store's own errors."""


class ConcurrencyConflict(StoreError):
    """Another writer took the (table_id, seq) this append expected to be free."""


class DuplicateRequest(StoreError):
    """The request_id was already used for this table; ``first_seq`` is what it produced."""

    def __init__(self, table_id: str, request_id: str, first_seq: int) -> None:
        super().__init__(f"request {request_id!r} already produced event {first_seq} of {table_id}")
        self.table_id = table_id
        self.request_id = request_id
        self.first_seq = first_seq


class UnknownTable(StoreError):
    """No table has this id."""


class StoreUnavailable(StoreError):
    """The database cannot be reached (down, overloaded, or the connection dropped)."""
