"""The tables this process holds in memory, and the unit of work on one of them.

A table's engine state is the fold of its events. :class:`Tables` keeps an
LRU cache of folded states, always checked against the store: a unit of
work folds only the events after the cached seq, and appends at the cached
seq, so a stale cache can only cost a retry, never a wrong answer.

A :class:`Unit` is one table's unit of work (cosmicpython's model): it holds
the table's in-process lock, brings the cached fold up to date, appends the
new events at the fold's seq on :meth:`Unit.commit`, and evicts the cached
state unless committed once the fold was changed. A lobby change works on the
table's row instead (``folded=False``: no events read): it appends after the
version :meth:`Unit.row` read. :meth:`Tables.run` runs a use case in a unit
and retries a lost race once, where the use case wants it.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TypeVar

from parlour.service.app import metrics
from parlour.service.domain.errors import BadRequest, LostRace, TableNotFound, shorten
from parlour.service.domain.fold import Folded, fold
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import (
    ConcurrencyConflict,
    EventStore,
    NewEvent,
    SeatRow,
    StoredEvent,
    TableRow,
    TurnRow,
    UnknownTable,
)

T = TypeVar("T")


def turn_rows(folded: Folded, table: TableRow) -> list[TurnRow]:
    """The table's rows of the "who must act now" projection (after ``folded``)."""
    bots = [row.seat for row in table.seat_rows if row.kind == SeatKind.BOT]
    return folded.clock.rows(table.game, bots)


def leaves_bot_turn(turns: Sequence[TurnRow]) -> bool:
    """Whether the projection rows leave a bot (or a seat played by a bot) to act."""
    return any(turn.kind == SeatKind.BOT for turn in turns)


class Unit:
    """One table's unit of work: made by :meth:`Tables.unit`, under the table's lock.

    ``folded`` is the cached fold, brought up to date with the store when
    the unit began (or found recent enough, see :meth:`Tables.unit`);
    ``read`` the events that read brought.
    A use case that changes ``folded`` ahead of its append says so with
    :meth:`changing`; if it then does not commit, the cached state is evicted.
    A unit opened without its fold has only :meth:`row` to go by.
    """

    def __init__(
        self,
        tables: Tables,
        table_id: str,
        folded: Folded | None,
        read: list[StoredEvent],
    ) -> None:
        self.store = tables.store
        self._tables = tables
        self.table_id = table_id
        self._folded = folded
        #: the version the table was at when the unit began (or its row was read):
        #: the commit appends after it
        self.version: int | None = None if folded is None else folded.version
        self.read = read
        self.committed = False
        self._changed = False

    @property
    def folded(self) -> Folded:
        """The table's engine state (only in a unit opened with its fold)."""
        if self._folded is None:
            raise RuntimeError(f"the unit on {self.table_id} was opened without its fold")
        return self._folded

    async def row(self) -> TableRow:
        """The table's row as the store has it now; a unit opened without its fold
        appends after the version this read."""
        table = await self._tables.get_table(self.table_id)
        if self._folded is None:
            self.version = table.version
        return table

    def changing(self) -> Folded:
        """The fold, about to be changed ahead of the commit (evicted unless committed)."""
        self._changed = True
        return self.folded

    @property
    def changed(self) -> bool:
        return self._changed

    async def commit(
        self,
        events: list[NewEvent],
        *,
        applied: bool,
        turns: Sequence[TurnRow] | None = None,
        request_id: str | None = None,
        table_status: TableStatus | None = None,
        seat_updates: Sequence[SeatRow] = (),
        person_active_at: datetime | None = None,
        now: datetime | None = None,
    ) -> list[StoredEvent]:
        """Append ``events`` after the version the unit began at, with the projection changes.

        ``applied``: the fold already holds the events' effects (a move played
        on it), so it moves on to their seq; otherwise (a lobby change the fold
        does not model ahead) it stays where it is and reads them next time.
        ``turns`` replaces the "who must act now" rows (None: untouched); a bot
        left among them wakes the workers. :class:`ConcurrencyConflict` if the
        table moved on.
        """
        if applied:
            self._changed = True
        if self.version is None:
            raise RuntimeError(f"the unit on {self.table_id} has no version to append after")
        stored = await self.store.append(
            self.table_id,
            self.version,
            events,
            request_id=request_id,
            table_status=table_status,
            seat_updates=seat_updates,
            turns=turns,
            bot_turn=leaves_bot_turn(turns or ()),
            person_active_at=person_active_at,
            now=now,
        )
        if applied:
            self.folded.version = stored[-1].seq
        self.committed = True
        return stored


class Tables:
    """The cache of folded tables and of playing tables' rows, and their locks."""

    def __init__(self, store: EventStore, *, cache_size: int = 4096) -> None:
        self.store = store
        self._cache_size = cache_size
        self._states: OrderedDict[str, Folded] = OrderedDict()
        # Seats never change once a table is playing, so its row is cached then;
        # its status and version are not read from it (the fold has them).
        self._rows: OrderedDict[str, TableRow] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    async def get_table(self, table_id: str) -> TableRow:
        """The table's row as the store has it now."""
        try:
            return await self.store.get_table(table_id)
        except UnknownTable:
            raise TableNotFound(f"no table {shorten(table_id)}") from None

    async def row(self, table_id: str) -> TableRow:
        """The table's row: cached once it is playing, read fresh while open."""
        row = self._rows.get(table_id)
        if row is not None:
            self._rows.move_to_end(table_id)
            return row
        if not table_id:
            raise BadRequest("table_id is required")
        row = await self.get_table(table_id)
        if row.status != TableStatus.OPEN:
            self._rows[table_id] = row
            while len(self._rows) > self._cache_size:
                self._rows.popitem(last=False)
        return row

    def unit(
        self,
        table_id: str,
        *,
        fresh_from: int | None = None,
        after: int | None = None,
        folded: bool = True,
    ) -> _Opening:
        """A unit of work on the table, under its lock (see :class:`Unit`), for ``async with``.

        The store is read unless the cached fold has reached ``fresh_from``
        (None: always read). The events read start after ``min(cached seq,
        after)``, so a watcher gets its events in the same read. With
        ``folded=False`` no events are read (a lobby change: see :meth:`Unit.row`).
        """
        return _Opening(self, table_id, fresh_from, after, folded)

    async def run(
        self,
        table_id: str,
        body: Callable[[Unit], Awaitable[T]],
        *,
        lost: str,
        retry: bool = True,
        fresh_from: int | None = None,
        counted: bool = False,
        folded: bool = True,
    ) -> T:
        """``body`` in a unit of work; a lost race is tried once more in a fresh unit
        (if ``retry``), else answered :class:`LostRace` with the message ``lost``.

        ``fresh_from`` is for the first try only: a retry always reads the store.
        ``counted``: lost races count in ``parlour_append_conflicts``.
        ``folded``: see :meth:`unit`.
        """
        if retry:
            with contextlib.suppress(ConcurrencyConflict):
                return await self._once(table_id, body, fresh_from, counted, folded)
            fresh_from = None
        try:
            return await self._once(table_id, body, fresh_from, counted, folded)
        except ConcurrencyConflict:
            raise LostRace(lost) from None

    async def _once(
        self,
        table_id: str,
        body: Callable[[Unit], Awaitable[T]],
        fresh_from: int | None,
        counted: bool,
        folded: bool,
    ) -> T:
        try:
            async with self.unit(table_id, fresh_from=fresh_from, folded=folded) as unit:
                return await body(unit)
        except ConcurrencyConflict:
            if counted:
                metrics.APPEND_CONFLICTS.inc()
            raise

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[table_id] = lock
        return lock

    def _remember(self, table_id: str, folded: Folded) -> None:
        self._states[table_id] = folded
        self._states.move_to_end(table_id)
        while len(self._states) > self._cache_size:
            self._states.popitem(last=False)

    def _evict(self, table_id: str) -> None:
        self._states.pop(table_id, None)

    async def _refresh(self, table_id: str, after: int | None) -> tuple[Folded, list[StoredEvent]]:
        """Bring the cached fold up to the store's latest event (under the lock)."""
        folded = self._states.get(table_id) or Folded()
        start = folded.version if after is None else min(folded.version, after)
        events = await self.store.read(table_id, start)
        try:
            fold(events, folded)
        except BaseException:
            self._evict(table_id)
            raise
        if folded.version:  # (no table, nothing to keep)
            self._remember(table_id, folded)
        return folded, events


class _Opening:
    """``async with tables.unit(...)``: takes the table's lock and opens the unit; on the
    way out evicts the cached state the unit changed without committing, and unlocks.
    (A class rather than an ``asynccontextmanager``: every move goes through it.)"""

    __slots__ = ("_after", "_folded", "_fresh_from", "_lock", "_table_id", "_tables", "_unit")

    def __init__(
        self,
        tables: Tables,
        table_id: str,
        fresh_from: int | None,
        after: int | None,
        folded: bool,
    ) -> None:
        self._tables = tables
        self._table_id = table_id
        self._fresh_from = fresh_from
        self._after = after
        self._folded = folded
        self._lock = tables._lock(table_id)
        self._unit: Unit | None = None

    async def __aenter__(self) -> Unit:
        await self._lock.acquire()
        try:
            tables, table_id = self._tables, self._table_id
            state = tables._states.get(table_id)
            read: list[StoredEvent] = []
            if not self._folded:
                state = None
            elif state is None or self._fresh_from is None or state.version < self._fresh_from:
                state, read = await tables._refresh(table_id, self._after)
            self._unit = Unit(tables, table_id, state, read)
            return self._unit
        except BaseException:
            self._lock.release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        unit = self._unit
        try:
            if unit is not None and unit.changed and not unit.committed:
                self._tables._evict(self._table_id)
        finally:
            self._lock.release()
