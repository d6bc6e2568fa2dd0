"""The analysis store on the SQLite file of ``sqlite.SqliteEventStore``
(``store/analyses.py``): its worker threads and its serialized writers, one
write transaction (BEGIN IMMEDIATE) per request, claim and save."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from parlour.service.store.analyses import (
    FAILED,
    NO_WORKER_FINISHED,
    QUEUED,
    RUNNING,
    AnalysisRow,
    AnalysisStore,
    AnalysisUpdate,
)
from parlour.service.store.schema import analyses

Call = Callable[..., Awaitable[Any]]
#: what a failed job is queued afresh with
AFRESH: dict[str, Any] = {
    "state": QUEUED,
    "worker_id": None,
    "lease_expires_at": None,
    "attempts": 0,
    "finished_at": None,
    "result": None,
    "error": None,
}
Write = Callable[[], AbstractContextManager[sa.Connection]]


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands timestamps back naive; everything the store writes is UTC."""
    if moment is None:
        return None
    return moment.replace(tzinfo=moment.tzinfo or UTC)


def analysis_row(row: Any) -> AnalysisRow:
    requested = _aware(row["requested_at"])
    assert requested is not None
    return AnalysisRow(
        row["table_id"],
        row["game"],
        row["state"],
        requested,
        row["worker_id"],
        _aware(row["lease_expires_at"]),
        int(row["attempts"]),
        _aware(row["finished_at"]),
        row["result"],
        row["error"],
    )


def _lapsed(now: datetime) -> Any:
    return sa.and_(analyses.c.state == RUNNING, analyses.c.lease_expires_at <= now)


class SqliteAnalyses(AnalysisStore):
    """:class:`AnalysisStore` with the SQLite event store's ``call``, ``write`` and reader."""

    def __init__(self, call: Call, write: Write, reader: sa.Engine) -> None:
        self._call = call
        self._write = write
        self._reader = reader

    async def request(self, table_id: str, game: str, now: datetime) -> tuple[AnalysisRow, bool]:
        def write() -> tuple[AnalysisRow, bool]:
            with self._write() as conn:
                made = conn.execute(
                    analyses.insert().prefix_with("OR IGNORE"),
                    {
                        "table_id": table_id,
                        "game": game,
                        "state": QUEUED,
                        "requested_at": now,
                        "attempts": 0,
                    },
                ).rowcount
                if made == 0:  # asked before: a failed job is queued afresh
                    made = conn.execute(
                        analyses.update()
                        .where(analyses.c.table_id == table_id, analyses.c.state == FAILED)
                        .values({**AFRESH, "requested_at": now})
                    ).rowcount
                row = conn.execute(
                    sa.select(analyses).where(analyses.c.table_id == table_id)
                ).mappings()
                return analysis_row(row.one()), made == 1

        found: tuple[AnalysisRow, bool] = await self._call(write)
        return found

    async def get(self, table_id: str) -> AnalysisRow | None:
        def read() -> AnalysisRow | None:
            with self._reader.connect() as conn:
                row = (
                    conn.execute(sa.select(analyses).where(analyses.c.table_id == table_id))
                    .mappings()
                    .first()
                )
            return None if row is None else analysis_row(row)

        found: AnalysisRow | None = await self._call(read)
        return found

    async def claim(
        self,
        worker_id: str,
        games: Sequence[str],
        now: datetime,
        lease_expires_at: datetime,
        max_attempts: int,
    ) -> AnalysisRow | None:
        def write() -> AnalysisRow | None:
            with self._write() as conn:
                for spent in conn.execute(
                    sa.select(analyses.c.table_id, analyses.c.attempts).where(
                        _lapsed(now), analyses.c.attempts >= max_attempts
                    )
                ).mappings():
                    conn.execute(
                        analyses.update()
                        .where(analyses.c.table_id == spent["table_id"])
                        .values(
                            state=FAILED,
                            finished_at=now,
                            result=None,
                            error=NO_WORKER_FINISHED.format(attempts=spent["attempts"]),
                        )
                    )
                query = (
                    sa.select(analyses.c.table_id)
                    .where(sa.or_(analyses.c.state == QUEUED, _lapsed(now)))
                    .order_by(analyses.c.requested_at, analyses.c.table_id)
                    .limit(1)
                )
                if games:
                    query = query.where(analyses.c.game.in_(list(games)))
                oldest = conn.execute(query).scalar()
                if oldest is None:
                    return None
                conn.execute(
                    analyses.update()
                    .where(analyses.c.table_id == oldest)
                    .values(
                        state=RUNNING,
                        worker_id=worker_id,
                        lease_expires_at=lease_expires_at,
                        attempts=analyses.c.attempts + 1,
                    )
                )
                taken = conn.execute(sa.select(analyses).where(analyses.c.table_id == oldest))
                return analysis_row(taken.mappings().one())

        found: AnalysisRow | None = await self._call(write)
        return found

    async def save(
        self, table_id: str, worker_id: str, update: AnalysisUpdate
    ) -> AnalysisRow | None:
        def write() -> AnalysisRow | None:
            with self._write() as conn:
                written = conn.execute(
                    analyses.update()
                    .where(
                        analyses.c.table_id == table_id,
                        analyses.c.state == RUNNING,
                        analyses.c.worker_id == worker_id,
                    )
                    .values(
                        state=update.state,
                        result=None if update.result is None else dict(update.result),
                        lease_expires_at=update.lease_expires_at,
                        finished_at=update.finished_at,
                        error=update.error,
                    )
                ).rowcount
                if written != 1:
                    return None
                row = conn.execute(sa.select(analyses).where(analyses.c.table_id == table_id))
                return analysis_row(row.mappings().one())

        found: AnalysisRow | None = await self._call(write)
        return found
