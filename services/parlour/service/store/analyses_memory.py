"""The analysis store in a memory store's dictionaries (``store/analyses.py``)."""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from parlour.service.store.analyses import (
    FAILED,
    NO_WORKER_FINISHED,
    QUEUED,
    RUNNING,
    AnalysisRow,
    AnalysisStore,
    AnalysisUpdate,
)


class MemoryAnalyses(AnalysisStore):
    """:class:`AnalysisStore` over a memory store's dictionary, under its lock."""

    def __init__(self, lock: threading.Lock, rows: dict[str, AnalysisRow]) -> None:
        self._lock = lock
        self._rows = rows

    async def request(self, table_id: str, game: str, now: datetime) -> tuple[AnalysisRow, bool]:
        with self._lock:
            found = self._rows.get(table_id)
            if found is not None and found.state != FAILED:
                return _copy(found), False
            row = self._rows[table_id] = AnalysisRow(table_id, game, QUEUED, now)
            return _copy(row), True

    async def get(self, table_id: str) -> AnalysisRow | None:
        with self._lock:
            found = self._rows.get(table_id)
            return None if found is None else _copy(found)

    async def claim(
        self,
        worker_id: str,
        games: Sequence[str],
        now: datetime,
        lease_expires_at: datetime,
        max_attempts: int,
    ) -> AnalysisRow | None:
        with self._lock:
            for key, row in list(self._rows.items()):
                if _lapsed(row, now) and row.attempts >= max_attempts:
                    error = NO_WORKER_FINISHED.format(attempts=row.attempts)
                    self._rows[key] = replace(
                        row, state=FAILED, finished_at=now, error=error, result=None
                    )
            free = [
                row
                for row in self._rows.values()
                if (row.state == QUEUED or _lapsed(row, now)) and (not games or row.game in games)
            ]
            if not free:
                return None
            oldest = min(free, key=lambda row: (row.requested_at, row.table_id))
            taken = self._rows[oldest.table_id] = replace(
                oldest,
                state=RUNNING,
                worker_id=worker_id,
                lease_expires_at=lease_expires_at,
                attempts=oldest.attempts + 1,
            )
            return _copy(taken)

    async def save(
        self, table_id: str, worker_id: str, update: AnalysisUpdate
    ) -> AnalysisRow | None:
        with self._lock:
            row = self._rows.get(table_id)
            if row is None or row.state != RUNNING or row.worker_id != worker_id:
                return None
            written = self._rows[table_id] = replace(
                row,
                state=update.state,
                result=copy.deepcopy(update.result),
                lease_expires_at=update.lease_expires_at,
                finished_at=update.finished_at,
                error=update.error,
            )
            return _copy(written)


def _lapsed(row: AnalysisRow, now: datetime) -> bool:
    return row.state == RUNNING and row.lease_expires_at is not None and row.lease_expires_at <= now


def _copy(row: AnalysisRow) -> AnalysisRow:
    """A reader's own copy (its result is not the stored one)."""
    return replace(row, result=copy.deepcopy(row.result))
