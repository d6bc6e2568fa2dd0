"""The analysis store on Postgres (``store/analyses.py``): the statements, sent on
``postgres.PostgresEventStore``'s pooled autocommit connections (its connection
maker is handed in). A claim is one statement: the oldest free job locked with
``FOR UPDATE SKIP LOCKED`` (two workers claiming at once take two jobs, or one
finds none), leased in the same UPDATE."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from parlour.service.store.analyses import (
    FAILED,
    NO_WORKER_FINISHED,
    QUEUED,
    RUNNING,
    AnalysisRow,
    AnalysisStore,
    AnalysisUpdate,
)

Connect = Callable[[], AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]]

_COLUMNS = (
    "table_id, game, state, requested_at, worker_id, lease_expires_at, attempts,"
    " finished_at, result, error"
)
REQUEST = f"""
WITH made AS (
    INSERT INTO analyses (table_id, game, state, requested_at, attempts)
    VALUES (%(table)s, %(game)s, '{QUEUED}', %(now)s, 0)
    ON CONFLICT (table_id) DO UPDATE SET state = '{QUEUED}', requested_at = %(now)s,
        worker_id = NULL, lease_expires_at = NULL, attempts = 0, finished_at = NULL,
        result = NULL, error = NULL
    WHERE analyses.state = '{FAILED}'
    RETURNING {_COLUMNS}
)
SELECT {_COLUMNS}, true FROM made
UNION ALL SELECT {_COLUMNS}, false FROM analyses WHERE table_id = %(table)s
LIMIT 1
"""
GET = f"SELECT {_COLUMNS} FROM analyses WHERE table_id = %s"
# the jobs whose leases ran out once too often fail (ix_analyses_state_requested)
FAIL_LAPSED = f"""
UPDATE analyses SET state = '{FAILED}', finished_at = %(now)s, result = NULL,
       error = replace(%(error)s, '{{attempts}}', attempts::text)
WHERE state = '{RUNNING}' AND lease_expires_at <= %(now)s AND attempts >= %(most)s
"""
CLAIM = f"""
UPDATE analyses SET state = '{RUNNING}', worker_id = %(worker)s,
       lease_expires_at = %(until)s, attempts = attempts + 1
WHERE table_id = (
    SELECT table_id FROM analyses
    WHERE (state = '{QUEUED}' OR (state = '{RUNNING}' AND lease_expires_at <= %(now)s))
      AND (cardinality(%(games)s::text[]) = 0 OR game = ANY(%(games)s::text[]))
    ORDER BY requested_at, table_id
    LIMIT 1 FOR UPDATE SKIP LOCKED
)
RETURNING {_COLUMNS}
"""
SAVE = f"""
UPDATE analyses SET state = %(state)s, result = %(result)s, lease_expires_at = %(until)s,
       finished_at = %(finished)s, error = %(error)s
WHERE table_id = %(table)s AND state = '{RUNNING}' AND worker_id = %(worker)s
RETURNING {_COLUMNS}
"""


def _row(found: Sequence[Any]) -> AnalysisRow:
    table_id, game, state, requested, worker, until, attempts, finished, result, error = found[:10]
    return AnalysisRow(
        table_id, game, state, requested, worker, until, attempts, finished, result, error
    )


class PostgresAnalyses(AnalysisStore):
    """:class:`AnalysisStore` on the Postgres event store's pooled connections."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect

    async def _one(self, statement: str, params: Any) -> Any:
        async with self._connect() as conn:
            cursor = await conn.execute(statement, params, prepare=True)
            return await cursor.fetchone()

    async def request(self, table_id: str, game: str, now: datetime) -> tuple[AnalysisRow, bool]:
        found = await self._one(REQUEST, {"table": table_id, "game": game, "now": now})
        return _row(found), bool(found[10])

    async def get(self, table_id: str) -> AnalysisRow | None:
        found = await self._one(GET, (table_id,))
        return None if found is None else _row(found)

    async def claim(
        self,
        worker_id: str,
        games: Sequence[str],
        now: datetime,
        lease_expires_at: datetime,
        max_attempts: int,
    ) -> AnalysisRow | None:
        async with self._connect() as conn:
            await conn.execute(
                FAIL_LAPSED,
                {"now": now, "error": NO_WORKER_FINISHED, "most": max_attempts},
                prepare=True,
            )
            cursor = await conn.execute(
                CLAIM,
                {"worker": worker_id, "until": lease_expires_at, "now": now, "games": list(games)},
                prepare=True,
            )
            found = await cursor.fetchone()
        return None if found is None else _row(found)

    async def save(
        self, table_id: str, worker_id: str, update: AnalysisUpdate
    ) -> AnalysisRow | None:
        params = {
            "state": update.state,
            "result": None if update.result is None else Jsonb(dict(update.result)),
            "until": update.lease_expires_at,
            "finished": update.finished_at,
            "error": update.error,
            "table": table_id,
            "worker": worker_id,
        }
        found = await self._one(SAVE, params)
        return None if found is None else _row(found)
