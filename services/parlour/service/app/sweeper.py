"""The sweeper: turn clocks that ran out, open tables nobody started, games nobody plays.

Every ``parlour serve`` replica runs one. Each pass it asks the store, by
index, for

* person turns whose deadline has passed (``turns.deadline``): the seat goes
  away and a bot plays it (``Parlour.time_out``, a ``SeatAway`` event);
* open tables with no person activity for ``open_table_seconds``: they
  expire (``TableExpired``);
* playing tables with no person action for ``abandon_seconds``: they end as
  abandoned (``GameAbandoned``: scores as they stand, no winner).

The deadlines live in the database, derived from the event log, so a
restart of every replica loses none: the first sweep after it fires what is
due. Each event is appended at the version the sweeper saw, so when several
replicas sweep the same deadline, exactly one append succeeds and the others
lose the race quietly.

Application layer: no gRPC, no driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from dataclasses import dataclass
from datetime import timedelta

from parlour.service.app.parlour import Parlour
from parlour.service.domain.statuses import TableStatus
from parlour.service.store.protocol import utcnow

log = logging.getLogger("parlour.service.app.sweeper")

SWEEP_SECONDS_ENV = "PARLOUR_SWEEP_SECONDS"
OPEN_TABLE_SECONDS_ENV = "PARLOUR_OPEN_TABLE_SECONDS"
ABANDON_SECONDS_ENV = "PARLOUR_ABANDON_SECONDS"
DEFAULT_SWEEP_SECONDS = 1.0
DEFAULT_OPEN_TABLE_SECONDS = 3600.0
DEFAULT_ABANDON_SECONDS = 1800.0
#: how many due items one pass handles of each kind (the next pass takes the rest)
BATCH = 200


@dataclass(frozen=True)
class SweepSettings:
    """How often to sweep, and how long tables may stay idle (0: never expire)."""

    interval: float = DEFAULT_SWEEP_SECONDS
    open_table_seconds: float = DEFAULT_OPEN_TABLE_SECONDS
    abandon_seconds: float = DEFAULT_ABANDON_SECONDS

    @classmethod
    def from_env(
        cls,
        interval: float | None = None,
        open_table_seconds: float | None = None,
        abandon_seconds: float | None = None,
    ) -> SweepSettings:
        """The arguments given, else the environment, else the defaults."""

        def pick(given: float | None, env: str, default: float) -> float:
            if given is not None:
                return given
            text = os.environ.get(env)
            return float(text) if text else default

        settings = cls(
            pick(interval, SWEEP_SECONDS_ENV, DEFAULT_SWEEP_SECONDS),
            pick(open_table_seconds, OPEN_TABLE_SECONDS_ENV, DEFAULT_OPEN_TABLE_SECONDS),
            pick(abandon_seconds, ABANDON_SECONDS_ENV, DEFAULT_ABANDON_SECONDS),
        )
        if settings.interval <= 0:
            raise ValueError(f"the sweep interval must be positive, not {settings.interval}")
        if settings.open_table_seconds < 0 or settings.abandon_seconds < 0:
            raise ValueError("expiry times must be 0 (never) or positive")
        return settings


@dataclass(frozen=True)
class SweepResult:
    timed_out: int = 0
    expired: int = 0
    abandoned: int = 0


class Sweeper:
    """Fires what is due, every ``settings.interval`` seconds (see the module doc)."""

    def __init__(self, app: Parlour, settings: SweepSettings | None = None) -> None:
        self.app = app
        self.settings = settings or SweepSettings()
        self._task: asyncio.Task[None] | None = None

    async def sweep(self) -> SweepResult:
        """One pass: everything due now."""
        store = self.app.store
        now = utcnow()
        timed_out = expired = abandoned = 0
        for table_id, seat, version in await store.due_turns(now, BATCH):
            timed_out += await self._safely(self.app.time_out(table_id, seat, version))
        if self.settings.open_table_seconds:
            before = now - timedelta(seconds=self.settings.open_table_seconds)
            for table_id in await store.idle_tables(TableStatus.OPEN, before, BATCH):
                expired += await self._safely(self.app.expire(table_id, before))
        if self.settings.abandon_seconds:
            before = now - timedelta(seconds=self.settings.abandon_seconds)
            for table_id in await store.idle_tables(TableStatus.PLAYING, before, BATCH):
                abandoned += await self._safely(self.app.abandon(table_id, before))
        return SweepResult(timed_out, expired, abandoned)

    async def _safely(self, step: object) -> int:
        try:
            assert asyncio.iscoroutine(step)
            return int(bool(await step))
        except Exception:  # one broken table must not stop the sweeps
            log.exception("sweeper step failed")
            return 0

    async def run(self) -> None:
        """Sweep until cancelled."""
        while True:
            try:
                await self.sweep()
            except Exception as error:  # e.g. the database is briefly away
                log.warning("sweep failed (%s); next in %.1f s", error, self.settings.interval)
            await asyncio.sleep(self.settings.interval)

    def start(self) -> None:
        self._task = asyncio.create_task(self.run(), name="parlour-sweeper")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
