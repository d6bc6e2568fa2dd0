"""The event store on Postgres: psycopg 3 and a ``psycopg_pool`` pool, from the event loop.

Every statement is sent from the event loop on a pooled autocommit
connection (no thread hop: on a small machine the hop costs more than the
statement). The pool holds the process's connection budget. The append of
a move is ONE statement, so its own transaction:

    WITH bump AS (UPDATE tables SET version = <new> ... WHERE version = <expected>),
         ins AS (INSERT INTO events ... SELECT ... FROM bump, jsonb_to_recordset(<the events>))
    SELECT pg_notify(...) FROM bump

(The ``pg_notify`` only with the Postgres notifier, the default; with another
notifier the statement selects NULL instead and the notifier tells the other
replicas after the commit: ``notify.py``.)

The version bump is the guard: the events are inserted only when it matched
(the table is still at the expected version), so everything is written or
nothing is. Two writers at the same version serialize on the table row; the
second re-checks the version after the first commits and matches nothing. A
seq or request-id clash fails the whole statement. The NOTIFY rides on it and
is sent only if it commits. Lobby changes that also rewrite seats run the
same statement and the seat upsert in one transaction. The statements
themselves are in ``postgres_sql.py``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store import postgres_sql as sql
from parlour.service.store.accounts_postgres import PostgresAccounts
from parlour.service.store.analyses_postgres import PostgresAnalyses
from parlour.service.store.home_postgres import PostgresHome
from parlour.service.store.protocol import (
    CONNECTION_WAIT_SECONDS,
    NOTIFY_CHANNEL,
    AppendRefused,
    EventStore,
    Lease,
    PendingAppend,
    SeatRow,
    StoredEvent,
    StoreUnavailable,
    TableQuery,
    TableRow,
    Turn,
    TurnRow,
    UnknownTable,
    first_activity,
)
from parlour.service.store.urls import libpq_url, normalize_url

Connection = psycopg.AsyncConnection[Any]


#: How long a call first waits for a pooled connection. It waits on (to the store's
#: whole wait) only while the pool holds connections and the last one used worked:
#: a busy pool, not a database that is down, whose calls are UNAVAILABLE after this.
POOL_WAIT_SECONDS = 1.5
#: libpq's connect timeout for the pool's new connections (its smallest is 2 s).
CONNECT_SECONDS = 2
#: Postgres ends any statement of the store's connections after this long.
STATEMENT_SECONDS = 5


class PostgresEventStore(EventStore):
    """:class:`~parlour.service.store.protocol.EventStore` on Postgres.

    The pool is opened on first use and belongs to that event loop (psycopg's
    async connections do): open one store per loop.
    """

    is_postgres = True
    #: on unless the notifier is another than LISTEN/NOTIFY (see notify.make_notifier)
    notify_in_transaction = True

    def __init__(
        self, url: str, connections: int, *, wait_seconds: float = CONNECTION_WAIT_SECONDS
    ) -> None:
        super().__init__()
        self._wait_seconds = wait_seconds
        #: the last use of a connection failed (the database looks down): no long waits
        self._down = False
        #: the pool's count of failed connection attempts when it last worked
        self._failures_seen = 0
        self.url: str = normalize_url(url).render_as_string(hide_password=False)
        self._conninfo = libpq_url(url)
        self._budget = connections
        self._pool_: AsyncConnectionPool[Connection] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.accounts = PostgresAccounts(self._fetch)
        self.home = PostgresHome(self._connection)
        self.analyses = PostgresAnalyses(self._connection)

    async def _pool(self) -> AsyncConnectionPool[Connection]:
        loop = asyncio.get_running_loop()
        if self._pool_ is None:
            self._loop = loop
            pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
                self._conninfo,
                min_size=min(2, self._budget),
                max_size=self._budget,
                kwargs={
                    "autocommit": True,
                    "application_name": "parlour-store",
                    "connect_timeout": CONNECT_SECONDS,
                    # a statement that runs away (a lock held elsewhere) ends, freeing its
                    # connection; every statement of the store takes milliseconds
                    "options": f"-c statement_timeout={STATEMENT_SECONDS * 1000}",
                },
                timeout=self._wait_seconds,
                name="parlour",
                open=False,
            )
            await pool.open()
            self._pool_ = pool
        elif loop is not self._loop:
            raise RuntimeError("a Postgres store serves one event loop; open one per loop")
        return self._pool_

    def _connection(self) -> _Borrowed:
        """A pooled connection; an unreachable database is :class:`StoreUnavailable`."""
        return _Borrowed(self)

    async def _fetch(
        self, statement: str, params: Any, *, one: bool = False, none: bool = False
    ) -> Any:
        """The statement's row (``one``), rows, or nothing to read (``none``)."""
        async with self._connection() as conn:
            cursor = await conn.execute(statement, params, prepare=True)
            if none:
                return None
            return await (cursor.fetchone() if one else cursor.fetchall())

    # --- events ---------------------------------------------------------------------------

    async def _create(
        self, table: TableRow, stored: list[StoredEvent], turns: Sequence[TurnRow]
    ) -> None:
        values = (
            table.table_id,
            table.game,
            table.seats,
            json.dumps(table.options),
            str(table.status),
            table.host_token_hash,
            len(stored),
            table.name,
            table.created_at,
            table.updated_at,
            first_activity(table),
            table.host_account_id,
        )
        try:
            async with self._connection() as conn, conn.transaction():
                await conn.execute(sql.INSERT_TABLE, values)
                async with conn.cursor() as cursor:
                    await cursor.executemany(
                        sql.UPSERT_SEAT, _seat_params(table.table_id, table.seat_rows)
                    )
                    await cursor.executemany(
                        sql.INSERT_EVENT, [_event_row(event) for event in stored]
                    )
                    if turns:  # a table forked in play: its turns with it
                        rows = _turn_rows(table.table_id, len(stored), turns)
                        await cursor.executemany(sql.INSERT_TURN, rows)
        except psycopg.IntegrityError as error:
            raise AppendRefused(version_moved=False) from error

    async def _append(self, append: PendingAppend) -> None:
        table_id, stored, seat_updates = append.table_id, append.stored, append.seat_updates
        last = stored[-1].seq
        params = {
            "g": table_id,
            "expected": append.expected_version,
            "new_version": last,
            "now": stored[0].created_at,
            "new_status": append.table_status and str(append.table_status),
            "channel": NOTIFY_CHANNEL,
            "note": f"{table_id}:{last}:{int(append.bot_turn)}",
            "active": append.person_active_at,
        }
        params["set_turns"] = append.turns is not None
        params["turns"] = json.dumps(
            [
                {
                    "seat": turn.seat,
                    "game": turn.game,
                    "kind": str(turn.kind),
                    "since": turn.since.isoformat(),
                    "deadline": turn.deadline and turn.deadline.isoformat(),
                }
                for turn in append.turns or ()
            ]
        )
        params["events"] = json.dumps(
            [
                {
                    "seq": event.seq,
                    "type": event.type,
                    "schema_version": event.schema_version,
                    "payload": event.payload,
                    "digest": event.digest,
                    "request_id": event.request_id,
                }
                for event in stored
            ]
        )
        try:
            async with self._connection() as conn:
                if not seat_updates:  # a move: one statement, its own transaction
                    await _append(conn, params, self.notify_in_transaction)
                    return
                async with conn.transaction():  # a lobby change: the seats too
                    await _append(conn, params, self.notify_in_transaction)
                    async with conn.cursor() as cursor:
                        await cursor.executemany(
                            sql.UPSERT_SEAT, _seat_params(table_id, seat_updates)
                        )
        except psycopg.IntegrityError as error:
            raise AppendRefused(version_moved=False) from error

    async def read(
        self, table_id: str, after_seq: int = 0, upto_seq: int | None = None
    ) -> list[StoredEvent]:
        rows = await self._fetch(sql.READ, (table_id, after_seq, upto_seq))
        return [StoredEvent(table_id, *row) for row in rows]

    async def last_seq(self, table_id: str) -> int:
        return int((await self._fetch(sql.LAST_SEQ, (table_id,), one=True))[0])

    async def find_request(self, table_id: str, request_id: str) -> int | None:
        row = await self._fetch(sql.FIND_REQUEST, (table_id, request_id), one=True)
        return None if row is None else int(row[0])

    # --- the lobby ------------------------------------------------------------------------

    async def get_table(self, table_id: str) -> TableRow:
        row = await self._fetch(sql.GET_TABLE, (table_id,), one=True)
        if row is None:
            raise UnknownTable(table_id)
        return _table(row)

    async def list_tables(self, query: TableQuery = TableQuery()) -> list[TableRow]:
        created, after_id = query.after if query.after is not None else (None, None)
        params = {
            "status": None if query.status is None else str(query.status),
            "game": query.game,
            "created": created,
            "after_id": after_id,
            "limit": query.limit,
        }
        return [_table(row) for row in await self._fetch(sql.LIST_TABLES, params)]

    # --- bot leases -----------------------------------------------------------------------

    async def _claim(self, claim: dict[str, Any]) -> bool:
        try:
            return await self._fetch(sql.CLAIM_LEASE, claim, one=True) is not None
        except psycopg.IntegrityError:
            return False  # the table is gone (foreign key)

    async def release_lease(self, table_id: str, seat: int, worker_id: str | None = None) -> bool:
        async with self._connection() as conn:
            cursor = await conn.execute(sql.RELEASE_LEASE, (table_id, seat, worker_id))
            return cursor.rowcount > 0

    async def get_lease(self, table_id: str, seat: int) -> Lease | None:
        row = await self._fetch(sql.GET_LEASE, (table_id, seat), one=True)
        return None if row is None else Lease(*row)

    async def bot_turns(
        self, now: datetime, games: Sequence[str] = (), limit: int = 16, worker_id: str = ""
    ) -> list[Turn]:
        params = {"now": now, "games": list(games), "limit": limit, "worker": worker_id}
        return [(t, s, v) for t, s, v in await self._fetch(sql.BOT_TURNS, params)]

    async def due_turns(self, now: datetime, limit: int = 100) -> list[Turn]:
        return [(t, s, v) for t, s, v in await self._fetch(sql.DUE_TURNS, (now, limit))]

    async def idle_tables(
        self, status: TableStatus, before: datetime, limit: int = 100
    ) -> list[str]:
        rows = await self._fetch(sql.IDLE_TABLES, (str(status), before, limit))
        return [row[0] for row in rows]

    async def turn_rows(self, table_id: str) -> list[TurnRow]:
        return [
            TurnRow(seat, SeatKind(kind), game, since, deadline)
            for seat, kind, game, since, deadline in await self._fetch(sql.TURN_ROWS, (table_id,))
        ]

    async def count_tables(self) -> dict[str, int]:
        return {
            str(status): int(count) for status, count in await self._fetch(sql.COUNT_TABLES, ())
        }

    def stats(self) -> dict[str, int]:
        figures = self._pool_.get_stats() if self._pool_ is not None else {}
        return {
            "connections": self._budget,
            "open": figures.get("pool_size", 0),
            "in_use": figures.get("pool_size", 0) - figures.get("pool_available", 0),
            "waiting": figures.get("requests_waiting", 0),
        }

    async def close(self) -> None:
        pool, self._pool_ = self._pool_, None
        if pool is not None:
            await pool.close()


class _Borrowed:
    """``async with store._connection() as conn``: a connection from the pool, given back
    at the end; an unreachable database is :class:`StoreUnavailable`.

    Every statement passes here, so it is written as a plain class with
    getconn/putconn rather than the pool's generator-based ``connection()``
    (whose commit on exit has nothing to do on these autocommit connections;
    putconn still discards a connection left broken or in a transaction).
    """

    __slots__ = ("_conn", "_pool", "_store")

    def __init__(self, store: PostgresEventStore) -> None:
        self._store = store
        self._pool: AsyncConnectionPool[Connection] | None = None
        self._conn: Connection | None = None

    async def __aenter__(self) -> Connection:
        try:
            self._pool = await self._store._pool()
            self._conn = await self._get(self._pool)
        except (PoolTimeout, psycopg.OperationalError) as error:
            raise await self._unavailable(error) from error
        return self._conn

    async def _get(self, pool: AsyncConnectionPool[Connection]) -> Connection:
        store = self._store
        first = min(POOL_WAIT_SECONDS, store._wait_seconds)
        try:
            return await pool.getconn(first)
        except PoolTimeout:
            # down: a connection failed since the last that worked (or no wait is left)
            failed = pool.get_stats().get("connections_errors", 0) > store._failures_seen
            if store._down or failed or store._wait_seconds <= first:
                store._down = True
                raise
        return await pool.getconn(store._wait_seconds - first)

    async def __aexit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        assert self._pool is not None and self._conn is not None
        await self._pool.putconn(self._conn)
        if isinstance(error, PoolTimeout | psycopg.OperationalError):
            raise await self._unavailable(error) from error
        if self._store._down:  # back up: failures from now on count afresh
            self._store._down = False
            self._store._failures_seen = self._pool.get_stats().get("connections_errors", 0)

    async def _unavailable(self, error: Exception) -> StoreUnavailable:
        if isinstance(error, PoolTimeout):
            return StoreUnavailable(f"no database connection free: {error}")
        self._store._down = True
        # the server may have dropped every connection: replace the dead idle ones
        if self._store._pool_ is not None:
            await self._store._pool_.check()
        return StoreUnavailable(str(error).splitlines()[0])


def _turn_rows(table_id: str, version: int, turns: Sequence[TurnRow]) -> list[tuple[Any, ...]]:
    return [(table_id, t.seat, t.game, version, str(t.kind), t.since, t.deadline) for t in turns]


def _table(row: tuple[Any, ...]) -> TableRow:
    *columns, seat_rows = row
    (
        table_id,
        game,
        seat_count,
        options,
        status,
        host,
        version,
        name,
        created,
        updated,
        active,
        host_account,
    ) = columns
    return TableRow(
        table_id=table_id,
        game=game,
        seats=seat_count,
        options=options,
        status=TableStatus(status),
        host_token_hash=host,
        version=version,
        name=name,
        created_at=created,
        updated_at=updated,
        person_active_at=active,
        host_account_id=host_account,
        seat_rows=tuple(
            SeatRow(seat, SeatKind(kind), level, name, token, bool(occupied), account, code)
            for seat, kind, level, name, token, occupied, account, code in seat_rows
        ),
    )


async def _append(conn: Connection, params: dict[str, Any], notify: bool) -> None:
    statement = sql.APPENDS[notify]
    cursor = await conn.execute(statement, params, prepare=True)
    if await cursor.fetchone() is None:
        raise AppendRefused(version_moved=True)  # nothing written (rolls back a transaction)


def _event_row(event: StoredEvent) -> tuple[Any, ...]:
    return (
        event.table_id,
        event.seq,
        event.type,
        event.schema_version,
        json.dumps(event.payload),
        event.digest,
        event.request_id,
        event.created_at,
    )


def _seat_params(table_id: str, rows: Sequence[SeatRow]) -> list[tuple[Any, ...]]:
    return [
        (
            table_id,
            row.seat,
            str(row.kind),
            row.bot_level,
            row.player_name,
            row.token_hash,
            row.occupied,
            row.account_id,
            row.code_hash,
        )
        for row in rows
    ]
