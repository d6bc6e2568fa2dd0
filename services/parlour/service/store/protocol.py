"""The event store protocol: an append-only log per table plus the lobby projections.

A stored event is (table_id, seq, type, payload): ``seq`` is its place in its
table's log (1, 2, ...), and a table's ``version`` is the seq of its latest
event (0 before any). The key (table_id, seq) is the optimistic-concurrency
check: a writer appends at ``expected_version + 1`` and,
of two writers that read the same version, only one can; the other gets
:class:`ConcurrencyConflict` and nothing of its append is written. Driver
errors are translated at this boundary (``raise ... from``): callers see
only the store's exceptions (``values.py``), :class:`StoreUnavailable` when
the database cannot be reached.

:class:`EventStore` is the one protocol the application uses, all of it
async; appending is written once here, the rest by each implementation
(``open.open_store`` picks one by URL):

* Postgres, the deployment backend: ``postgres.PostgresEventStore``, psycopg 3
  with a ``psycopg_pool`` pool, every statement sent from the event loop.
* An SQLite file, the embedded default: ``sqlite.SqliteEventStore``,
  SQLAlchemy Core in worker threads, writers serialized (a lock per file in
  the process, ``BEGIN IMMEDIATE`` and a busy timeout across processes).
* ``memory://``: ``memory.MemoryEventStore``, plain Python objects in the
  process, for tests and quick trials.

The same contract test runs against all three (``tests/service/test_store.py``).

**Connection budget.** A process holds at most ``connections`` pooled
connections (``--db-connections``, ``$PARLOUR_DB_CONNECTIONS``, default
:data:`DEFAULT_CONNECTIONS`), plus on Postgres one LISTEN connection of its
notifier (none with the NATS notifier). Callers beyond the budget wait for a
connection, up to :data:`CONNECTION_WAIT_SECONDS`, then get
:class:`StoreUnavailable`. Postgres's default ``max_connections`` of 100 thus
carries about ten replicas at the default budget of 8.

This module imports no driver (the application layer uses it). The schema
comes from the Alembic migrations (``migrations/``, run by
``open.upgrade_head``), the single source of it; ``schema.py`` describes it
for SQLAlchemy and a test keeps the two equal. Every key is led by the table
id, and no hot statement joins across tables, so the schema can be
distributed by table id.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.accounts import (
    AccountRow,
    AccountStore,
    AlreadyNamed,
    HeldSeat,
    NameTaken,
    SessionRow,
)
from parlour.service.store.analyses import (
    AnalysisRow,
    AnalysisState,
    AnalysisStore,
    AnalysisUpdate,
)
from parlour.service.store.home import (
    ABANDONED,
    FINISHED,
    HistoryRow,
    HomeStore,
    RatingRow,
    ResultRow,
    subject_of_account,
    subject_of_bot,
)
from parlour.service.store.values import (
    ConcurrencyConflict,
    DuplicateRequest,
    Lease,
    NewEvent,
    SeatRow,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    TableQuery,
    TableRow,
    Turn,
    TurnRow,
    UnknownTable,
    utcnow,
)

# The values and errors are named here too: the other layers import them with the protocol.
__all__ = [
    "ABANDONED",
    "CONNECTIONS_ENV",
    "CONNECTION_WAIT_SECONDS",
    "DEFAULT_CONNECTIONS",
    "FINISHED",
    "NOTIFY_CHANNEL",
    "AccountRow",
    "AccountStore",
    "AlreadyNamed",
    "AnalysisRow",
    "AnalysisState",
    "AnalysisStore",
    "AnalysisUpdate",
    "AppendRefused",
    "ConcurrencyConflict",
    "DuplicateRequest",
    "EventStore",
    "HeldSeat",
    "HistoryRow",
    "HomeStore",
    "Lease",
    "Listener",
    "NameTaken",
    "NewEvent",
    "PendingAppend",
    "RatingRow",
    "ResultRow",
    "SeatRow",
    "SessionRow",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "TableQuery",
    "TableRow",
    "Turn",
    "TurnRow",
    "UnknownTable",
    "aware",
    "connection_budget",
    "first_activity",
    "stored_events",
    "subject_of_account",
    "subject_of_bot",
    "utcnow",
]

#: the Postgres NOTIFY channel of appends ("table_id:seq:bot_turn")
NOTIFY_CHANNEL = "parlour_events"
#: pooled connections per process unless configured (see the module docstring)
DEFAULT_CONNECTIONS = 8
CONNECTIONS_ENV = "PARLOUR_DB_CONNECTIONS"
#: how long a call waits for a pooled connection before the store gives up
CONNECTION_WAIT_SECONDS = 10.0

#: (table_id, last_seq, bot_turn), called after each append this process commits; an
#: awaitable it returns is awaited before the append returns
Listener = Callable[[str, int, bool], Awaitable[None] | None]


class AppendRefused(Exception):
    """What an implementation raises when an append or a new table wrote nothing: the
    table was not at the expected version (``version_moved``) or a key clashed."""

    def __init__(self, *, version_moved: bool) -> None:
        super().__init__("version moved" if version_moved else "key clash")
        self.version_moved = version_moved


@dataclass(frozen=True)
class PendingAppend:
    """An append as an implementation writes it: the events in their stored form."""

    table_id: str
    expected_version: int
    stored: list[StoredEvent]
    table_status: TableStatus | None
    seat_updates: Sequence[SeatRow]
    #: the table's seats to act after this append (None: leave the projection as it is);
    #: written in the same transaction as the events
    turns: Sequence[TurnRow] | None = None
    #: whether the append leaves a bot (or a seat played by a bot) to act: only then are
    #: idle AI workers woken (the last field of the NOTIFY on Postgres)
    bot_turn: bool = True
    #: a person acted (or joined, or came back): the table's idle clock restarts here
    person_active_at: datetime | None = None


class EventStore(ABC):
    """Tables' event logs, the lobby projections and the bot leases (see the module doc).

    The protocol the application uses. An implementation provides the
    abstract methods; appending (the checks, the stored form of the events,
    explaining a refusal, waking the listeners) is written once, here.
    """

    url: str
    is_postgres: bool
    #: the accounts, devices and sessions on the same database (``accounts.py``)
    accounts: AccountStore
    #: history, results and ratings on the same database (``home.py``, issue 31)
    home: HomeStore
    #: the expert's analyses of finished games (``analyses.py``, issue 35)
    analyses: AnalysisStore
    #: whether each append also sends ``pg_notify`` in its transaction (Postgres only;
    #: the notifier sets it: ``notify.make_notifier``)
    notify_in_transaction: bool = False

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(table_id, last_seq, bot_turn)`` after each append this process
        commits."""
        self._listeners.append(listener)

    async def create_table(
        self,
        table: TableRow,
        first: list[NewEvent],
        *,
        turns: Sequence[TurnRow] = (),
        now: datetime | None = None,
    ) -> list[StoredEvent]:
        """Record a new table, its seats and its first events (seq 1..) in one transaction;
        :class:`ConcurrencyConflict` if the id is taken. ``turns`` are its rows of the
        ``turns`` projection (a table forked in play has some)."""
        stored = stored_events(table.table_id, 0, first, None, now or utcnow())
        try:
            await self._create(table, stored, turns)
        except AppendRefused as refused:
            raise ConcurrencyConflict(f"table {table.table_id} already exists") from refused
        # an open table has no turns; a table forked in play may leave a bot to act
        bot_turn = any(turn.kind == SeatKind.BOT for turn in turns)
        await self._announce(table.table_id, len(first), bot_turn)
        return stored

    async def append(
        self,
        table_id: str,
        expected_version: int,
        events: list[NewEvent],
        *,
        request_id: str | None = None,
        table_status: TableStatus | None = None,
        seat_updates: Sequence[SeatRow] = (),
        turns: Sequence[TurnRow] | None = None,
        bot_turn: bool = True,
        person_active_at: datetime | None = None,
        now: datetime | None = None,
    ) -> list[StoredEvent]:
        """Append at ``expected_version + 1 ..`` with the projection changes, all or nothing.

        ``bot_turn``: the append leaves a bot to act (the notifier wakes idle AI workers).

        :class:`ConcurrencyConflict` if the table is no longer at
        ``expected_version``, :class:`DuplicateRequest` if ``request_id`` was used
        on this table before, :class:`UnknownTable` if there is no such table.
        ``turns`` replaces the table's rows of the "who must act now"
        projection; ``now`` is the events' time (the caller's, when it derived
        deadlines from it).
        """
        if not events:
            raise ValueError("append needs at least one event")
        stored = stored_events(table_id, expected_version, events, request_id, now or utcnow())
        pending = PendingAppend(
            table_id,
            expected_version,
            stored,
            table_status,
            seat_updates,
            turns=turns,
            bot_turn=bot_turn,
            person_active_at=person_active_at,
        )
        try:
            await self._append(pending)
        except AppendRefused as refused:
            if request_id is not None:
                first = await self.find_request(table_id, request_id)
                if first is not None:
                    raise DuplicateRequest(table_id, request_id, first) from refused
            if refused.version_moved:
                await self.get_table(table_id)  # UnknownTable if there is none
            message = f"{table_id} is no longer at version {expected_version}"
            raise ConcurrencyConflict(message) from refused
        await self._announce(table_id, stored[-1].seq, bot_turn)
        return stored

    async def _announce(self, table_id: str, seq: int, bot_turn: bool) -> None:
        for listener in self._listeners:
            pending = listener(table_id, seq, bot_turn)
            if pending is not None:
                await pending

    @abstractmethod
    async def _create(
        self, table: TableRow, stored: list[StoredEvent], turns: Sequence[TurnRow]
    ) -> None:
        """Write the table, its seats, events and (a table forked in play) turns in one
        transaction; :class:`AppendRefused` if the id is taken."""

    @abstractmethod
    async def _append(self, append: PendingAppend) -> None:
        """Write the events and projection changes in one transaction if the table is at
        ``expected_version``; else write nothing and raise :class:`AppendRefused`."""

    @abstractmethod
    async def read(
        self, table_id: str, after_seq: int = 0, upto_seq: int | None = None
    ) -> list[StoredEvent]:
        """The table's events with ``after_seq < seq <= upto_seq``, in order."""

    @abstractmethod
    async def last_seq(self, table_id: str) -> int:
        """The seq of the table's last event (0 when it has none)."""

    @abstractmethod
    async def find_request(self, table_id: str, request_id: str) -> int | None:
        """The seq of the (first) event a request produced, or None."""

    @abstractmethod
    async def get_table(self, table_id: str) -> TableRow:
        """The table with its seats; :class:`UnknownTable` if there is none."""

    @abstractmethod
    async def list_tables(self, query: TableQuery = TableQuery()) -> list[TableRow]:
        """The tables ``query`` asks for, newest first (ties by id)."""

    async def claim_bot_turn(
        self, worker_id: str, lease_seconds: float, candidates: list[Turn]
    ) -> Turn | None:
        """Lease the first candidate nobody else holds a live lease on (one atomic upsert each).

        A candidate is free when it has no lease, its lease has expired, was
        granted at an earlier version, or is ``worker_id``'s own (renewed).
        """
        now = utcnow()
        expires_at = now + timedelta(seconds=lease_seconds)
        for table_id, seat, version in candidates:
            claim = {"table_id": table_id, "seat": seat, "worker_id": worker_id}
            claim |= {"version": version, "expires_at": expires_at, "now": now}
            if await self._claim(claim):
                return (table_id, seat, version)
        return None

    @abstractmethod
    async def _claim(self, claim: dict[str, Any]) -> bool:
        """Take or renew one lease if it is free (see claim_bot_turn); False if not, or if
        the table is gone."""

    @abstractmethod
    async def release_lease(self, table_id: str, seat: int, worker_id: str | None = None) -> bool:
        """Give up the lease on a bot seat (only ``worker_id``'s, if given); True if one went."""

    @abstractmethod
    async def get_lease(self, table_id: str, seat: int) -> Lease | None:
        """The lease on a bot seat, live or expired, or None."""

    @abstractmethod
    async def bot_turns(
        self, now: datetime, games: Sequence[str] = (), limit: int = 16, worker_id: str = ""
    ) -> list[Turn]:
        """Up to ``limit`` bot turns from the ``turns`` projection that hold no live lease
        but ``worker_id``'s own (only of ``games``, if given), the longest-waiting first;
        an index scan, whatever the number of tables waiting for people."""

    @abstractmethod
    async def due_turns(self, now: datetime, limit: int = 100) -> list[Turn]:
        """Up to ``limit`` person turns whose clock ran out by ``now`` (the deadline index)."""

    @abstractmethod
    async def idle_tables(
        self, status: TableStatus, before: datetime, limit: int = 100
    ) -> list[str]:
        """Tables with ``status`` whose last person activity was before ``before`` (tables
        without a person are never idle)."""

    @abstractmethod
    async def turn_rows(self, table_id: str) -> list[TurnRow]:
        """The table's rows of the ``turns`` projection, by seat."""

    @abstractmethod
    async def count_tables(self) -> dict[str, int]:
        """How many tables there are in each status (for the operator's metrics)."""

    @abstractmethod
    def stats(self) -> dict[str, int]:
        """Pool figures: ``connections`` (budget), ``open``, ``in_use``, ``waiting``."""

    @abstractmethod
    async def close(self) -> None:
        """Close every pooled connection."""


def connection_budget(connections: int | None = None) -> int:
    """The pooled connections per process: the argument, else ``$PARLOUR_DB_CONNECTIONS``."""
    value = connections or int(os.environ.get(CONNECTIONS_ENV) or DEFAULT_CONNECTIONS)
    if value < 1:
        raise ValueError(f"the connection budget must be at least 1, not {value}")
    return value


def stored_events(
    table_id: str,
    expected_version: int,
    events: list[NewEvent],
    request_id: str | None,
    now: datetime,
) -> list[StoredEvent]:
    """``events`` as they are stored at seq ``expected_version + 1 ..``; the request id goes
    on the first only (the UNIQUE (table_id, request_id) guard)."""
    return [
        StoredEvent(
            table_id,
            expected_version + offset,
            event.type,
            event.schema_version,
            event.payload,
            event.digest,
            request_id if offset == 1 else None,
            now,
        )
        for offset, event in enumerate(events, start=1)
    ]


def aware(moment: datetime) -> datetime:
    """SQLite hands timestamps back naive; everything the store writes is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def first_activity(table: TableRow) -> datetime | None:
    """A table with a person seat starts its idle clock when hosted; one without never does."""
    if any(row.kind == SeatKind.PERSON for row in table.seat_rows):
        return table.person_active_at or table.created_at
    return None
