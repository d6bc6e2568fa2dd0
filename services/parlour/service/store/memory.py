"""The event store in this process's memory (``memory://``), for tests and quick trials.

Plain Python objects, after eventsourcing's POPO recorder: the logs, the
lobby projections, the turns and the bot leases are dictionaries behind one
lock, and every write checks and changes them under it, so it is all or
nothing like a transaction. The semantics are the SQL stores' (the same
contract test runs on all three): the version guard, the (table, request id)
uniqueness, the same upserts and the same orderings. Payloads and options are
kept as JSON text, as the databases keep them, so what a caller reads is its
own copy and only JSON survives.

Nothing is written anywhere: each ``open_store("memory://")`` is a new, empty
store, and what it holds is gone when the process ends.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.accounts_memory import AccountMemory, MemoryAccounts
from parlour.service.store.analyses import AnalysisRow
from parlour.service.store.analyses_memory import MemoryAnalyses
from parlour.service.store.home_memory import HomeMemory, MemoryHome
from parlour.service.store.protocol import (
    AppendRefused,
    EventStore,
    Lease,
    PendingAppend,
    SeatRow,
    StoredEvent,
    TableQuery,
    TableRow,
    Turn,
    TurnRow,
    UnknownTable,
    first_activity,
)

MEMORY_URL = "memory://"


@dataclass(frozen=True)
class _Recorded:
    """A stored event with its payload as JSON text (what a reader gets is decoded anew)."""

    event: StoredEvent
    payload: str

    def read(self) -> StoredEvent:
        return replace(self.event, payload=json.loads(self.payload))


@dataclass(frozen=True)
class _TurnRecord:
    """A row of the turns projection: a TurnRow with the table version it was written at."""

    row: TurnRow
    version: int


@dataclass
class _Memory:
    """What a memory store holds; the stores of one memory (replicas) share it."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    logs: dict[str, list[_Recorded]] = field(default_factory=dict)
    #: (table_id, request_id) -> the seq of the first event the request produced
    requests: dict[tuple[str, str], int] = field(default_factory=dict)
    #: the tables row, its options as JSON text, and its seats by number
    tables: dict[str, TableRow] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)
    seats: dict[str, dict[int, SeatRow]] = field(default_factory=dict)
    turns: dict[str, dict[int, _TurnRecord]] = field(default_factory=dict)
    leases: dict[tuple[str, int], Lease] = field(default_factory=dict)
    accounts: AccountMemory = field(default_factory=AccountMemory)
    home: HomeMemory = field(default_factory=HomeMemory)
    analyses: dict[str, AnalysisRow] = field(default_factory=dict)


class MemoryEventStore(EventStore):
    """:class:`~parlour.service.store.protocol.EventStore` in plain Python objects."""

    is_postgres = False

    def __init__(self, url: str = MEMORY_URL, *, memory: _Memory | None = None) -> None:
        super().__init__()
        self.url: str = url
        self._memory = memory if memory is not None else _Memory()
        held = self._memory
        self.accounts = MemoryAccounts(held.lock, held.accounts, held.tables, held.seats)
        self.home = MemoryHome(held.lock, held.home, held.tables, held.seats, held.accounts)
        self.analyses = MemoryAnalyses(held.lock, held.analyses)

    def replica(self) -> MemoryEventStore:
        """Another store over the same memory, as a second replica of the process would
        hold one over the same database: it sees this one's writes, has its own listeners."""
        return MemoryEventStore(self.url, memory=self._memory)

    # --- events ---------------------------------------------------------------------------

    async def _create(
        self, table: TableRow, stored: list[StoredEvent], turns: Sequence[TurnRow]
    ) -> None:
        memory, table_id = self._memory, table.table_id
        # options and seats are kept apart (see _Memory); the row holds the rest
        row = replace(
            table,
            options={},
            seat_rows=(),
            version=len(stored),
            person_active_at=first_activity(table),
        )
        options = json.dumps(table.options)
        with memory.lock:
            if table_id in memory.tables:
                raise AppendRefused(version_moved=False)  # the primary key
            memory.tables[table_id] = row
            memory.options[table_id] = options
            memory.seats[table_id] = {seat.seat: seat for seat in table.seat_rows}
            memory.logs[table_id] = [_record(event) for event in stored]
            memory.turns[table_id] = {t.seat: _TurnRecord(t, len(stored)) for t in turns}

    async def _append(self, append: PendingAppend) -> None:
        memory, table_id, stored = self._memory, append.table_id, append.stored
        records = [_record(event) for event in stored]  # a payload that is not JSON fails here
        request_id = stored[0].request_id
        with memory.lock:
            table = memory.tables.get(table_id)
            if table is None or table.version != append.expected_version:
                raise AppendRefused(version_moved=True)
            if request_id is not None and (table_id, request_id) in memory.requests:
                raise AppendRefused(version_moved=False)  # the unique (table, request id)
            memory.logs[table_id].extend(records)
            if request_id is not None:
                memory.requests[table_id, request_id] = stored[0].seq
            memory.tables[table_id] = replace(
                table,
                version=stored[-1].seq,
                updated_at=stored[0].created_at,
                status=append.table_status or table.status,
                person_active_at=append.person_active_at or table.person_active_at,
            )
            memory.seats[table_id].update((seat.seat, seat) for seat in append.seat_updates)
            if append.turns is not None:
                memory.turns[table_id] = _replaced_turns(
                    memory.turns[table_id], append.turns, stored[-1].seq
                )

    async def read(
        self, table_id: str, after_seq: int = 0, upto_seq: int | None = None
    ) -> list[StoredEvent]:
        with self._memory.lock:
            log = list(self._memory.logs.get(table_id, ()))
        upto = len(log) if upto_seq is None else upto_seq
        # the seqs of a log are 1, 2, ...: seq n is at index n - 1
        return [record.read() for record in log[max(after_seq, 0) : max(upto, 0)]]

    async def last_seq(self, table_id: str) -> int:
        with self._memory.lock:
            return len(self._memory.logs.get(table_id, ()))

    async def find_request(self, table_id: str, request_id: str) -> int | None:
        with self._memory.lock:
            return self._memory.requests.get((table_id, request_id))

    # --- the lobby ------------------------------------------------------------------------

    async def get_table(self, table_id: str) -> TableRow:
        with self._memory.lock:
            if table_id not in self._memory.tables:
                raise UnknownTable(table_id)
            return self._table(table_id)

    async def list_tables(self, query: TableQuery = TableQuery()) -> list[TableRow]:
        with self._memory.lock:
            found = [
                table
                for table in self._memory.tables.values()
                if (query.status is None or table.status == query.status)
                and (query.game is None or table.game == query.game)
                and (query.after is None or _after(table, *query.after))
            ]
            # newest first, ties by id: sort by the tie-breaker, then (stably) by time
            found.sort(key=lambda table: table.table_id)
            found.sort(key=lambda table: table.created_at, reverse=True)
            return [self._table(table.table_id) for table in found[: query.limit]]

    def _table(self, table_id: str) -> TableRow:
        """The table with its options and seats (under the lock)."""
        seats = self._memory.seats[table_id]
        return replace(
            self._memory.tables[table_id],
            options=json.loads(self._memory.options[table_id]),
            seat_rows=tuple(seats[seat] for seat in sorted(seats)),
        )

    # --- bot leases -----------------------------------------------------------------------

    async def _claim(self, claim: dict[str, Any]) -> bool:
        table_id, seat, worker_id, version = (
            claim[name] for name in ("table_id", "seat", "worker_id", "version")
        )
        with self._memory.lock:
            if table_id not in self._memory.tables:
                return False  # the table is gone (the SQL stores' foreign key)
            if not _free(
                self._memory.leases.get((table_id, seat)), claim["now"], version, worker_id
            ):
                return False
            lease = Lease(table_id, seat, worker_id, version, claim["expires_at"])
            self._memory.leases[table_id, seat] = lease
            return True

    async def release_lease(self, table_id: str, seat: int, worker_id: str | None = None) -> bool:
        with self._memory.lock:
            held = self._memory.leases.get((table_id, seat))
            if held is None or worker_id not in (None, held.worker_id):
                return False
            del self._memory.leases[table_id, seat]
            return True

    async def get_lease(self, table_id: str, seat: int) -> Lease | None:
        with self._memory.lock:
            return self._memory.leases.get((table_id, seat))

    async def bot_turns(
        self, now: datetime, games: Sequence[str] = (), limit: int = 16, worker_id: str = ""
    ) -> list[Turn]:
        with self._memory.lock:
            leases = self._memory.leases
            waiting = [
                (table_id, record)
                for table_id, record in self._turn_records()
                if record.row.kind == SeatKind.BOT
                and (not games or record.row.game in games)
                and _free(leases.get((table_id, record.row.seat)), now, record.version, worker_id)
            ]
        waiting.sort(key=lambda turn: turn[1].row.since)  # the longest waiting first
        return [(table_id, record.row.seat, record.version) for table_id, record in waiting][:limit]

    async def due_turns(self, now: datetime, limit: int = 100) -> list[Turn]:
        with self._memory.lock:
            due = [
                (record.row.deadline, (table_id, record.row.seat, record.version))
                for table_id, record in self._turn_records()
                if record.row.deadline is not None and record.row.deadline <= now
            ]
        due.sort(key=lambda item: item[0])
        return [turn for _, turn in due[:limit]]

    async def idle_tables(
        self, status: TableStatus, before: datetime, limit: int = 100
    ) -> list[str]:
        with self._memory.lock:
            idle = [
                (table.person_active_at, table.table_id)
                for table in self._memory.tables.values()
                if table.status == status
                and table.person_active_at is not None
                and table.person_active_at < before
            ]
        idle.sort(key=lambda item: item[0])
        return [table_id for _, table_id in idle[:limit]]

    async def turn_rows(self, table_id: str) -> list[TurnRow]:
        with self._memory.lock:
            records = self._memory.turns.get(table_id, {})
            return [records[seat].row for seat in sorted(records)]

    def _turn_records(self) -> list[tuple[str, _TurnRecord]]:
        """Every row of the turns projection with its table's id (under the lock)."""
        return [
            (table_id, record)
            for table_id, records in self._memory.turns.items()
            for record in records.values()
        ]

    async def count_tables(self) -> dict[str, int]:
        with self._memory.lock:
            return dict(Counter(str(table.status) for table in self._memory.tables.values()))

    def stats(self) -> dict[str, int]:
        """No connections: a memory store opens none."""
        return {"connections": 0, "open": 0, "in_use": 0, "waiting": 0}

    async def close(self) -> None:
        """Nothing to close; the store keeps what it holds (as a database would) and goes
        on answering, as the SQL stores do by opening connections anew."""


def _record(event: StoredEvent) -> _Recorded:
    return _Recorded(replace(event, payload={}), json.dumps(event.payload))


def _after(table: TableRow, created_at: datetime, table_id: str) -> bool:
    """Whether ``table`` comes after the keyset cursor (created_at, table_id) in the
    listing's order (newest first, ties by id)."""
    return table.created_at < created_at or (
        table.created_at == created_at and table.table_id > table_id
    )


def _free(lease: Lease | None, now: datetime, version: int, worker_id: str) -> bool:
    """Whether a worker may take a turn at ``version`` under ``lease``: none, expired,
    granted at an earlier version, or the worker's own."""
    return (
        lease is None
        or lease.expires_at <= now
        or lease.version < version
        or lease.worker_id == worker_id
    )


def _replaced_turns(
    old: dict[int, _TurnRecord], rows: Sequence[TurnRow], version: int
) -> dict[int, _TurnRecord]:
    """The table's turns after an append gave ``rows``: seats not in them go; a seat
    already there keeps its game, as the SQL stores' upsert does."""
    replaced: dict[int, _TurnRecord] = {}
    for row in rows:
        kept = old.get(row.seat)
        game = row.game if kept is None else kept.row.game
        replaced[row.seat] = _TurnRecord(replace(row, game=game), version)
    return replaced
