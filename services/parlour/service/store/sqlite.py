"""The event store on an SQLite file: SQLAlchemy Core, run in worker threads.

The embedded backend (``parlour demo``, tests, a single process). Each call
runs in a thread (``asyncio.to_thread``) on a pooled connection; the pool
holds the process's connection budget. Writers are serialized: a lock per
database file within the process, and ``BEGIN IMMEDIATE`` with a busy
timeout across processes, so a lost race still ends in the primary-key
check, never in "database is locked". The statements are built in
``sqlite_sql.py``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store import protocol as store
from parlour.service.store import sqlite_sql as sql
from parlour.service.store.accounts_sqlite import SqliteAccounts
from parlour.service.store.analyses_sqlite import SqliteAnalyses
from parlour.service.store.home_sqlite import SqliteHome
from parlour.service.store.protocol import (
    AppendRefused,
    EventStore,
    SeatRow,
    StoredEvent,
    TableQuery,
    TableRow,
    UnknownTable,
    aware,
)
from parlour.service.store.schema import bot_leases, events, seats, tables, turns
from parlour.service.store.urls import normalize_url

P = ParamSpec("P")
T = TypeVar("T")
BUSY_TIMEOUT_MS = 10_000

_WRITE_LOCKS: dict[str, threading.Lock] = {}
_WRITE_LOCKS_GUARD = threading.Lock()


class SqliteEventStore(EventStore):
    """:class:`~parlour.service.store.protocol.EventStore` on an SQLite file."""

    is_postgres = False

    def __init__(self, url: str, connections: int) -> None:
        super().__init__()
        parsed = normalize_url(url)
        if (parsed.database or ":memory:") == ":memory:":
            raise ValueError("an in-memory SQLite database cannot be shared; use a file")
        self.url: str = parsed.render_as_string(hide_password=False)
        self._budget = connections
        self._engine = sa.create_engine(
            parsed,
            pool_size=connections,
            max_overflow=0,
            pool_timeout=store.CONNECTION_WAIT_SECONDS,
            connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
        )
        sa.event.listen(self._engine, "connect", _on_connect)
        sa.event.listen(self._engine, "begin", _on_begin)
        # every write transaction starts with BEGIN IMMEDIATE (see _on_begin)
        self._writer = self._engine.execution_options(parlour_write=True)
        self._reader = self._engine.execution_options(parlour_autocommit=True)
        self.accounts = SqliteAccounts(self._call, self._write, self._reader)
        self.home = SqliteHome(self._call, self._write, self._reader)
        self.analyses = SqliteAnalyses(self._call, self._write, self._reader)
        key = str(Path(parsed.database or "").resolve())
        with _WRITE_LOCKS_GUARD:
            self._write_lock = _WRITE_LOCKS.setdefault(key, threading.Lock())

    async def _call(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a blocking call in a thread, its driver errors translated."""
        try:
            return await asyncio.to_thread(function, *args, **kwargs)
        except (sa_exc.OperationalError, sa_exc.TimeoutError) as error:
            raise store.StoreUnavailable(str(error).splitlines()[0]) from error

    @contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """One write transaction; commits on success, rolls back on any error."""
        with self._write_lock, self._writer.begin() as conn:
            yield conn

    # --- events ---------------------------------------------------------------------------

    async def _create(
        self, table: TableRow, stored: list[StoredEvent], rows: Sequence[store.TurnRow]
    ) -> None:
        await self._call(self._write_table, table, stored, rows)

    def _write_table(
        self, table: TableRow, stored: list[StoredEvent], rows: Sequence[store.TurnRow]
    ) -> None:
        values = {
            "table_id": table.table_id,
            "game": table.game,
            "seats": table.seats,
            "options": table.options,
            "status": str(table.status),
            "host_token_hash": table.host_token_hash,
            "version": len(stored),
            "name": table.name,
            "created_at": table.created_at,
            "updated_at": table.updated_at,
            "person_active_at": store.first_activity(table),
            "host_account_id": table.host_account_id,
        }
        try:
            with self._write() as conn:
                conn.execute(tables.insert(), values)
                if table.seat_rows:
                    conn.execute(seats.insert(), _seat_params(table.table_id, table.seat_rows))
                if stored:
                    conn.execute(events.insert(), _event_rows(stored))
                if rows:  # a table forked in play: its turns with it
                    conn.execute(turns.insert(), _turn_params(table.table_id, len(stored), rows))
        except sa_exc.IntegrityError as error:
            raise AppendRefused(version_moved=False) from error

    async def _append(self, append: store.PendingAppend) -> None:
        await self._call(self._write_events, append)

    def _write_events(self, append: store.PendingAppend) -> None:
        bump = {
            "g": append.table_id,
            "expected": append.expected_version,
            "new_version": append.stored[-1].seq,
            "now": append.stored[0].created_at,
            "new_status": append.table_status and str(append.table_status),
            "active": append.person_active_at,
        }
        try:
            with self._write() as conn:
                if conn.execute(sql.BUMP_VERSION, bump).rowcount != 1:
                    raise AppendRefused(version_moved=True)  # rolls back
                conn.execute(events.insert(), _event_rows(append.stored))
                if append.seat_updates:
                    seat_rows = _seat_params(append.table_id, append.seat_updates)
                    conn.execute(sql.SEAT_UPSERT, seat_rows)
                if append.turns is not None:
                    sql.write_turns(conn, append)
        except sa_exc.IntegrityError as error:
            raise AppendRefused(version_moved=False) from error

    async def read(
        self, table_id: str, after_seq: int = 0, upto_seq: int | None = None
    ) -> list[StoredEvent]:
        return await self._call(self._read, table_id, after_seq, upto_seq)

    def _read(self, table_id: str, after_seq: int, upto_seq: int | None) -> list[StoredEvent]:
        params = {"g": table_id, "after": after_seq, "upto": upto_seq}
        with self._reader.connect() as conn:
            result = conn.execute(sql.READ_AFTER if upto_seq is None else sql.READ_RANGE, params)
            return [_stored(row._mapping) for row in result]

    async def last_seq(self, table_id: str) -> int:
        query = sa.select(sa.func.coalesce(sa.func.max(events.c.seq), 0))
        return int(await self._scalar(query.where(events.c.game_id == table_id)))

    async def find_request(self, table_id: str, request_id: str) -> int | None:
        query = sa.select(events.c.seq).where(
            events.c.game_id == table_id, events.c.request_id == request_id
        )
        seq = await self._scalar(query)
        return None if seq is None else int(seq)

    async def _scalar(self, query: sa.Select[Any]) -> Any:
        rows = await self._rows(query)
        return rows[0][0] if rows else None

    async def _rows(self, query: sa.Select[Any]) -> list[Any]:
        def rows() -> list[Any]:
            with self._reader.connect() as conn:
                return list(conn.execute(query))

        return await self._call(rows)

    # --- the lobby ------------------------------------------------------------------------

    async def get_table(self, table_id: str) -> TableRow:
        found = await self._call(
            self._load_tables, sa.select(tables).where(tables.c.table_id == table_id)
        )
        if not found:
            raise UnknownTable(table_id)
        return found[0]

    async def list_tables(self, query: TableQuery = TableQuery()) -> list[TableRow]:
        select = sa.select(tables).order_by(tables.c.created_at.desc(), tables.c.table_id)
        if query.status is not None:
            select = select.where(tables.c.status == str(query.status))
        if query.game is not None:
            select = select.where(tables.c.game == query.game)
        if query.after is not None:
            created, table_id = query.after
            select = select.where(
                sa.or_(
                    tables.c.created_at < created,
                    sa.and_(tables.c.created_at == created, tables.c.table_id > table_id),
                )
            )
        return await self._call(self._load_tables, select.limit(query.limit))

    def _load_tables(self, query: sa.Select[Any]) -> list[TableRow]:
        with self._reader.connect() as conn:
            table_rows = conn.execute(query).mappings().all()
            ids = [row["table_id"] for row in table_rows]
            seat_query = sa.select(seats).where(seats.c.table_id.in_(ids)).order_by(seats.c.seat)
            by_table: dict[str, list[SeatRow]] = {table_id: [] for table_id in ids}
            for row in conn.execute(seat_query).mappings() if ids else ():
                seat = {**row, "kind": SeatKind(row["kind"]), "occupied": bool(row["occupied"])}
                by_table[seat.pop("table_id")].append(SeatRow(**seat))
        return [
            TableRow(
                **{
                    **row,
                    "status": TableStatus(row["status"]),
                    "created_at": aware(row["created_at"]),
                    "updated_at": aware(row["updated_at"]),
                    "person_active_at": row["person_active_at"] and aware(row["person_active_at"]),
                    "seat_rows": tuple(by_table[row["table_id"]]),
                }
            )
            for row in table_rows
        ]

    # --- bot leases -----------------------------------------------------------------------

    async def _claim(self, claim: dict[str, Any]) -> bool:
        def take() -> bool:
            try:
                with self._write() as conn:
                    return conn.execute(sql.CLAIM_LEASE, claim).first() is not None
            except sa_exc.IntegrityError:
                return False  # the table is gone (foreign key)

        return await self._call(take)

    async def release_lease(self, table_id: str, seat: int, worker_id: str | None = None) -> bool:
        query = bot_leases.delete().where(
            bot_leases.c.table_id == table_id, bot_leases.c.seat == seat
        )
        if worker_id is not None:
            query = query.where(bot_leases.c.worker_id == worker_id)

        def release() -> bool:
            with self._write() as conn:
                return bool(conn.execute(query).rowcount)

        return await self._call(release)

    async def get_lease(self, table_id: str, seat: int) -> store.Lease | None:
        query = sa.select(bot_leases).where(
            bot_leases.c.table_id == table_id, bot_leases.c.seat == seat
        )
        rows = await self._rows(query)
        if not rows:
            return None
        row = rows[0]
        return store.Lease(
            row.table_id, row.seat, row.worker_id, row.version, aware(row.expires_at)
        )

    async def bot_turns(
        self, now: datetime, games: Sequence[str] = (), limit: int = 16, worker_id: str = ""
    ) -> list[store.Turn]:
        lease = bot_leases
        query = (
            sa.select(turns.c.table_id, turns.c.seat, turns.c.version)
            .outerjoin(
                lease, sa.and_(lease.c.table_id == turns.c.table_id, lease.c.seat == turns.c.seat)
            )
            .where(
                turns.c.kind == str(SeatKind.BOT),
                sa.or_(
                    lease.c.table_id.is_(None),
                    lease.c.expires_at <= now,
                    lease.c.version < turns.c.version,
                    lease.c.worker_id == worker_id,
                ),
            )
            .order_by(turns.c.since)
            .limit(limit)
        )
        if games:
            query = query.where(turns.c.game.in_(list(games)))
        return [(row[0], row[1], row[2]) for row in await self._rows(query)]

    async def due_turns(self, now: datetime, limit: int = 100) -> list[store.Turn]:
        query = (
            sa.select(turns.c.table_id, turns.c.seat, turns.c.version)
            .where(turns.c.deadline <= now)
            .order_by(turns.c.deadline)
            .limit(limit)
        )
        return [(row[0], row[1], row[2]) for row in await self._rows(query)]

    async def idle_tables(
        self, status: TableStatus, before: datetime, limit: int = 100
    ) -> list[str]:
        query = (
            sa.select(tables.c.table_id)
            .where(tables.c.status == str(status), tables.c.person_active_at < before)
            .order_by(tables.c.person_active_at)
            .limit(limit)
        )
        return [row[0] for row in await self._rows(query)]

    async def turn_rows(self, table_id: str) -> list[store.TurnRow]:
        query = sa.select(turns).where(turns.c.table_id == table_id).order_by(turns.c.seat)
        return [
            store.TurnRow(
                row.seat,
                SeatKind(row.kind),
                row.game,
                aware(row.since),
                None if row.deadline is None else aware(row.deadline),
            )
            for row in await self._rows(query)
        ]

    async def count_tables(self) -> dict[str, int]:
        query = sa.select(tables.c.status, sa.func.count()).group_by(tables.c.status)
        return {str(status): int(count) for status, count in await self._rows(query)}

    def stats(self) -> dict[str, int]:
        pool: Any = self._engine.pool
        return {
            "connections": self._budget,
            "open": pool.checkedin() + pool.checkedout(),
            "in_use": pool.checkedout(),
            "waiting": 0,
        }

    async def close(self) -> None:
        self._engine.dispose()


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    # Take transaction control away from the sqlite3 module, so that BEGIN is
    # ours (IMMEDIATE for writes, see _on_begin).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # NORMAL is durable against crashes of the process in WAL mode; only a
    # power cut can lose the last commits.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _on_begin(connection: sa.Connection) -> None:
    # A write that started DEFERRED could fail with SQLITE_BUSY when it
    # upgrades its lock; IMMEDIATE takes the write lock up front.
    options = connection.get_execution_options()
    if options.get("parlour_autocommit"):
        return  # a lone SELECT needs no transaction around it
    connection.exec_driver_sql("BEGIN IMMEDIATE" if options.get("parlour_write") else "BEGIN")


def _turn_params(
    table_id: str, version: int, rows: Sequence[store.TurnRow]
) -> list[dict[str, Any]]:
    return [
        {
            "table_id": table_id,
            "seat": row.seat,
            "game": row.game,
            "version": version,
            "kind": str(row.kind),
            "since": row.since,
            "deadline": row.deadline,
        }
        for row in rows
    ]


#: The one event field whose column has another name: the table's id keeps the
#: column's first name, game_id (see schema.py).
_COLUMN_OF_FIELD = {"table_id": "game_id"}
_FIELD_OF_COLUMN = {column: field for field, column in _COLUMN_OF_FIELD.items()}


def _event_rows(stored: list[StoredEvent]) -> list[dict[str, Any]]:
    return [
        {_COLUMN_OF_FIELD.get(name, name): value for name, value in vars(event).items()}
        for event in stored
    ]


def _stored(row: Any) -> StoredEvent:
    fields = {_FIELD_OF_COLUMN.get(name, name): value for name, value in row.items()}
    return StoredEvent(**{**fields, "created_at": aware(row["created_at"])})


def _seat_params(table_id: str, seat_rows: Sequence[SeatRow]) -> list[dict[str, Any]]:
    return [{**vars(row), "table_id": table_id, "kind": str(row.kind)} for row in seat_rows]
