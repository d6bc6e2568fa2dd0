"""The store's hot statements on Postgres, sent straight through psycopg.

Every move is one append, and every view one "events after seq N" read. Through
SQLAlchemy an append was BEGIN + INSERT + UPDATE + COMMIT (three round trips)
and cost about 0.4 ms of CPU; here it is ONE statement in autocommit, so its
own transaction, and costs about a third of that. The game service sends them
from its event loop (:class:`AsyncPostgresHotPath`); other callers of the
synchronous store use :class:`PostgresHotPath` from their threads.

    WITH bump AS (UPDATE tables SET version = <new> ... WHERE version = <expected>),
         ins AS (INSERT INTO events ... SELECT ... FROM bump, unnest(<the events>))
    SELECT pg_notify(...) FROM bump

The version bump is the guard: the events are inserted only when the bump
matched (the table is still at the expected version), so either everything
is written or nothing is. Two writers at the same version serialize on the
table row; the second re-checks the version after the first commits, matches
nothing and inserts nothing. A primary-key or request-id clash makes the
whole statement fail. The NOTIFY rides on the same statement and is sent only
if it commits.

Driver errors leave this module as SQLAlchemy's DBAPIError subclasses (as the
rest of the store's do), so ``errors.status_for`` maps them the same way.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from sqlalchemy import exc as sa_exc

#: (seq, type, schema_version, payload, digest, request_id, created_at)
EventTuple = tuple[int, str, int, Any, str, "str | None", Any]

_APPEND = """
WITH bump AS (
    UPDATE tables
    SET version = %(new_version)s, updated_at = %(now)s,
        status = coalesce(%(new_status)s::text, status)
    WHERE table_id = %(g)s AND version = %(expected)s
    RETURNING table_id
), ins AS (
    INSERT INTO events
        (game_id, seq, type, schema_version, payload, digest, request_id, created_at)
    SELECT bump.table_id, e.seq, e.type, e.schema_version, e.payload::jsonb, e.digest,
           e.request_id, %(now)s
    FROM bump, unnest(%(seqs)s::int[], %(types)s::text[], %(versions)s::int[],
                      %(payloads)s::text[], %(digests)s::text[], %(request_ids)s::text[])
         AS e(seq, type, schema_version, payload, digest, request_id)
    RETURNING seq
)
SELECT pg_notify(%(channel)s, %(note)s), (SELECT count(*) FROM ins) FROM bump
"""

# The same for the usual single event, without the arrays (cheaper to send).
_APPEND_ONE = """
WITH bump AS (
    UPDATE tables
    SET version = %(new_version)s, updated_at = %(now)s,
        status = coalesce(%(new_status)s::text, status)
    WHERE table_id = %(g)s AND version = %(expected)s
    RETURNING table_id
), ins AS (
    INSERT INTO events
        (game_id, seq, type, schema_version, payload, digest, request_id, created_at)
    SELECT bump.table_id, %(new_version)s, %(type)s, %(schema_version)s, %(payload)s::jsonb,
           %(digest)s, %(request_id)s, %(now)s
    FROM bump
    RETURNING seq
)
SELECT pg_notify(%(channel)s, %(note)s), (SELECT count(*) FROM ins) FROM bump
"""

_READ = """
SELECT seq, type, schema_version, payload, digest, request_id, created_at
FROM events WHERE game_id = %s AND seq > %s ORDER BY seq
"""
_READ_RANGE = """
SELECT seq, type, schema_version, payload, digest, request_id, created_at
FROM events WHERE game_id = %s AND seq > %s AND seq <= %s ORDER BY seq
"""


# A table and its seats in one round trip (the seats as a JSON array of rows).
_GET_TABLE = """
SELECT t.table_id, t.game, t.seats, t.options, t.status, t.host_token_hash, t.version,
       t.name, t.created_at, t.updated_at,
       coalesce((SELECT json_agg(json_build_array(s.seat, s.kind, s.bot_level, s.player_name,
                                                  s.token_hash, s.occupied) ORDER BY s.seat)
                 FROM seats s WHERE s.table_id = t.table_id), '[]'::json)
FROM tables t WHERE t.table_id = %s
"""


class VersionMoved(Exception):
    """The table was not at the expected version (or does not exist): nothing was written."""


def _append_statement(
    game_id: str,
    expected_seq: int,
    rows: list[dict[str, Any]],
    table_status: str | None,
    channel: str,
) -> tuple[str, dict[str, Any]]:
    last_seq = expected_seq + len(rows)
    params: dict[str, Any] = {
        "g": game_id,
        "expected": expected_seq,
        "new_version": last_seq,
        "now": rows[0]["created_at"],
        "new_status": table_status,
        "channel": channel,
        "note": f"{game_id}:{last_seq}",
    }
    if len(rows) == 1:
        (row,) = rows
        params["type"] = row["type"]
        params["schema_version"] = row["schema_version"]
        params["payload"] = json.dumps(row["payload"])
        params["digest"] = row["digest"]
        params["request_id"] = row["request_id"]
        return _APPEND_ONE, params
    params["seqs"] = [row["seq"] for row in rows]
    params["types"] = [row["type"] for row in rows]
    params["versions"] = [row["schema_version"] for row in rows]
    params["payloads"] = [json.dumps(row["payload"]) for row in rows]
    params["digests"] = [row["digest"] for row in rows]
    params["request_ids"] = [row["request_id"] for row in rows]
    return _APPEND, params


def _check_appended(game_id: str, rows: list[dict[str, Any]], result: Any) -> None:
    if result is None:
        raise VersionMoved(game_id)
    if result[1] != len(rows):  # cannot happen: the insert has no condition of its own
        raise AssertionError(f"{game_id}: inserted {result[1]} of {len(rows)} events")


def _read_statement(
    game_id: str, after_seq: int, upto_seq: int | None
) -> tuple[str, tuple[Any, ...]]:
    if upto_seq is None:
        return _READ, (game_id, after_seq)
    return _READ_RANGE, (game_id, after_seq, upto_seq)


def _translated(error: psycopg.Error, broken: bool) -> Exception:
    """IntegrityError as it is (the store interprets it); the rest as SQLAlchemy's errors."""
    if isinstance(error, psycopg.IntegrityError):
        return error
    return sa_exc.DBAPIError.instance(
        None, None, error, psycopg.Error, connection_invalidated=broken
    )


class PostgresHotPath:
    """Appends and reads over a small pool of autocommit psycopg connections (threads)."""

    def __init__(self, conninfo: str, keep: int, channel: str) -> None:
        self._conninfo = conninfo
        self._channel = channel
        self._keep = keep
        self._idle: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()
        self._closed = False

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        try:
            if conn is None or conn.closed:
                conn = psycopg.connect(self._conninfo, autocommit=True)
            yield conn
        except psycopg.Error as error:
            broken = conn is None or conn.closed or conn.broken
            if conn is not None:
                # autocommit: a failed statement leaves a sound connection behind
                self._release(conn, keep=not broken)
            if broken:  # the server went away: the idle ones are as dead (as SQLAlchemy does)
                self.close(final=False)
            raise _translated(error, broken) from error
        except BaseException:
            if conn is not None:
                conn.close()
            raise
        self._release(conn, keep=not (conn.broken or conn.closed))

    def _release(self, conn: psycopg.Connection[Any], *, keep: bool) -> None:
        if keep:
            with self._lock:
                if not self._closed and len(self._idle) < self._keep:
                    self._idle.append(conn)
                    return
        conn.close()

    def append(
        self, game_id: str, expected_seq: int, rows: list[dict[str, Any]], table_status: str | None
    ) -> None:
        """Write the event rows (seq ``expected_seq + 1 ..``, as the store builds them).

        Raises :class:`VersionMoved` when the table is not at ``expected_seq``
        (nothing written) and psycopg's IntegrityError on a seq or request-id
        clash (nothing written either).
        """
        statement, params = _append_statement(
            game_id, expected_seq, rows, table_status, self._channel
        )
        with self._connection() as conn:
            result = conn.execute(statement, params, prepare=True).fetchone()
        _check_appended(game_id, rows, result)

    def read(self, game_id: str, after_seq: int, upto_seq: int | None) -> list[EventTuple]:
        """The game's events with ``after_seq < seq <= upto_seq``, in order."""
        statement, params = _read_statement(game_id, after_seq, upto_seq)
        with self._connection() as conn:
            return conn.execute(statement, params, prepare=True).fetchall()

    def close(self, *, final: bool = True) -> None:
        """Close the idle connections (and, when final, those in use as they come back)."""
        with self._lock:
            self._closed = self._closed or final
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class AsyncPostgresHotPath:
    """The hot statements (and the table read) sent from the event loop itself.

    On this kind of machine handing a call to a thread and back costs more than
    the statement (two thread wake-ups); an asyncio connection waits for
    Postgres in the loop's own poll. Connections belong to the loop that
    opened them: used from another loop, the pool starts afresh. At most
    ``size`` connections are open; callers beyond that wait their turn.
    """

    def __init__(self, conninfo: str, size: int, channel: str) -> None:
        self._conninfo = conninfo
        self._size = size
        self._channel = channel
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots = asyncio.Semaphore(size)
        self._idle: list[psycopg.AsyncConnection[Any]] = []
        self._closed = False

    async def _query(self, statement: str, params: Any, *, one: bool) -> Any:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._finish_idle()
            self._loop, self._slots = loop, asyncio.Semaphore(self._size)
        async with self._slots:
            conn = self._idle.pop() if self._idle else None
            try:
                if conn is None:
                    conn = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
                cursor = await conn.execute(statement, params, prepare=True)
                result = await (cursor.fetchone() if one else cursor.fetchall())
            except psycopg.Error as error:
                broken = conn is None or conn.closed or conn.broken
                if conn is not None:
                    self._release(conn, loop, keep=not broken)
                if broken:  # the server went away: the idle ones are as dead
                    self._finish_idle()
                raise _translated(error, broken) from error
            except BaseException:  # cancelled mid-statement: the connection is in doubt
                if conn is not None:
                    conn.pgconn.finish()
                raise
            self._release(conn, loop, keep=True)
            return result

    def _release(
        self, conn: psycopg.AsyncConnection[Any], loop: asyncio.AbstractEventLoop, *, keep: bool
    ) -> None:
        if keep and not self._closed and loop is self._loop:
            self._idle.append(conn)
        else:
            conn.pgconn.finish()

    async def append(
        self, game_id: str, expected_seq: int, rows: list[dict[str, Any]], table_status: str | None
    ) -> None:
        """As :meth:`PostgresHotPath.append`."""
        statement, params = _append_statement(
            game_id, expected_seq, rows, table_status, self._channel
        )
        _check_appended(game_id, rows, await self._query(statement, params, one=True))

    async def read(self, game_id: str, after_seq: int, upto_seq: int | None) -> list[EventTuple]:
        """As :meth:`PostgresHotPath.read`."""
        statement, params = _read_statement(game_id, after_seq, upto_seq)
        rows: list[EventTuple] = await self._query(statement, params, one=False)
        return rows

    async def get_table(self, table_id: str) -> tuple[Any, ...] | None:
        """The table's columns, its seats last (a list of [seat, kind, bot_level,
        player_name, token_hash, occupied]); None if there is no such table."""
        row: tuple[Any, ...] | None = await self._query(_GET_TABLE, (table_id,), one=True)
        return row

    def _finish_idle(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.pgconn.finish()

    def close(self) -> None:
        """Close the idle connections, and those in use as they come back (any thread)."""
        self._closed = True
        self._finish_idle()
