"""The analysis store (issue 35): one job per table for the AI workers, then its result.

Each event store carries one (``EventStore.analyses``) on the same database:
``analyses_memory.py``, ``analyses_sqlite.py``, ``analyses_postgres.py``; one
contract test runs against all three (``tests/service/test_analysis_store.py``).

A row is created QUEUED by the first request (its primary key makes a second
request find it instead, unless it FAILED: that one is queued afresh). A claim
takes the oldest job that is queued or whose lease ran out, in one atomic
statement (Postgres ``FOR UPDATE SKIP LOCKED``, SQLite's one writer), so two
workers never hold the same job; a job whose leases ran out ``max_attempts``
times is FAILED instead. A save is heard only from the worker the job was last
leased to, while it is RUNNING.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any


class AnalysisState(StrEnum):
    """Where an analysis is, as ``analyses.state`` stores it."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


QUEUED = AnalysisState.QUEUED
RUNNING = AnalysisState.RUNNING
DONE = AnalysisState.DONE
FAILED = AnalysisState.FAILED

#: what a job that ran out of leases is failed with
NO_WORKER_FINISHED = "no worker finished the analysis within {attempts} leases"


@dataclass(frozen=True)
class AnalysisRow:
    """A table's analysis: its job's state and lease, and the result (JSON) so far."""

    table_id: str
    game: str
    state: str
    requested_at: datetime
    worker_id: str | None = None
    lease_expires_at: datetime | None = None
    #: how many leases it was given
    attempts: int = 0
    finished_at: datetime | None = None
    #: while running, the parts judged so far; once done, the decisions and summaries
    result: Mapping[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True)
class AnalysisUpdate:
    """What a save writes over a running job (the rest of its row stays)."""

    state: str
    result: Mapping[str, Any] | None
    lease_expires_at: datetime | None
    finished_at: datetime | None = None
    error: str | None = None


class AnalysisStore(ABC):
    """The analysis jobs and their results (see the module doc)."""

    @abstractmethod
    async def request(self, table_id: str, game: str, now: datetime) -> tuple[AnalysisRow, bool]:
        """The table's analysis, queued now if nobody asked before or it failed (True then:
        a failed job is queued afresh, its attempts and error cleared)."""

    @abstractmethod
    async def get(self, table_id: str) -> AnalysisRow | None:
        """The table's analysis, if it was asked for."""

    @abstractmethod
    async def claim(
        self,
        worker_id: str,
        games: Sequence[str],
        now: datetime,
        lease_expires_at: datetime,
        max_attempts: int,
    ) -> AnalysisRow | None:
        """Lease the oldest job (of ``games``; empty: any) that is queued or whose lease
        ran out to ``worker_id`` until ``lease_expires_at``; first fail those whose lease
        ran out for the ``max_attempts``-th time."""

    @abstractmethod
    async def save(
        self, table_id: str, worker_id: str, update: AnalysisUpdate
    ) -> AnalysisRow | None:
        """Write ``update`` over the job if it is RUNNING and was last leased to
        ``worker_id``; the row after, or None (nothing written) otherwise."""
