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
#: the statuses a table ends in (its game is over: the ratings take it)
ENDED = (TableStatus.FINISHED, TableStatus.ABANDONED)


def turn_rows(folded: Folded, table: TableRow) -> list[TurnRow]:
    """The table's rows of the "who must act now" projection (after ``folded``)."""
    bots = [row.seat for row in table.seat_rows if row.kind == SeatKind.BOT]
    return folded.clock.rows(table.game, bots)


def _lost(counted: bool) -> None:
    if counted:  # lost races of moves count in parlour_append_conflicts
        metrics.APPEND_CONFLICTS.inc()


def leaves_bot_turn(turns: Sequence[TurnRow]) -> bool:
    """Whether the projection rows leave a bot (or a seat played by a bot) to act."""
    return any(turn.kind == SeatKind.BOT for turn in turns)


class Unit:
    """One table's unit of work, made by :meth:`Tables.unit` for ``async with``.

    Entering takes the table's lock and sets ``folded``, the cached fold
    brought up to date with the store (or found recent enough, see
    :meth:`Tables.unit`); leaving evicts the cached state if the unit changed
    it without committing, and unlocks. A use case that changes ``folded``
    ahead of its append says so with :meth:`changing`. A unit opened without
    its fold has no ``folded``, only :meth:`row` to go by. (A class rather
    than an ``asynccontextmanager``: every move goes through it.)
    """

    #: the table's engine state (absent in a unit opened without its fold)
    folded: Folded

    def __init__(
        self,
        tables: Tables,
        table_id: str,
        fresh_from: int | None = None,
        with_fold: bool = True,
    ) -> None:
        self.store = tables.store
        self._tables = tables
        self.table_id = table_id
        self._fresh_from = fresh_from
        self._with_fold = with_fold
        self._lock = tables._lock(table_id)
        #: the version the table was at when the unit began (or its row was read):
        #: the commit appends after it
        self.version: int | None = None
        self.committed = False
        self._changed = False

    async def __aenter__(self) -> Unit:
        await self._lock.acquire()
        try:
            if self._with_fold:
                tables = self._tables
                folded = tables._states.get(self.table_id)
                fresh_from = self._fresh_from
                if folded is None or fresh_from is None or folded.version < fresh_from:
                    folded = await tables._refresh(self.table_id)
                self.folded = folded
                self.version = folded.version
            return self
        except BaseException:
            self._lock.release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            if self._changed and not self.committed:
                self._tables._evict(self.table_id)
        finally:
            self._lock.release()

    async def row(self) -> TableRow:
        """The table's row as the store has it now; a unit opened without its fold
        appends after the version this read."""
        table = await self._tables.get_table(self.table_id)
        if not self._with_fold:
            self.version = table.version
        return table

    def changing(self) -> Folded:
        """The fold, about to be changed ahead of the commit (evicted unless committed)."""
        self._changed = True
        return self.folded

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
        if applied:  # (a game's events: chat is folded from what was stored, chat.py)
            self.folded.version = self.folded.moved_at = stored[-1].seq
            self.folded.keep(stored)
        self.committed = True
        if table_status in ENDED:
            for hook in self._tables.ended_hooks:  # the rating projection (issue 31)
                await hook(self.table_id)
        return stored


class Tables:
    """The cache of folded tables and of playing tables' rows, and their locks."""

    def __init__(self, store: EventStore, *, cache_size: int = 4096) -> None:
        self.store = store
        #: called with a table's id once its end (finished, abandoned) is committed
        self.ended_hooks: list[Callable[[str], Awaitable[object]]] = []
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
        folded: bool = True,
    ) -> Unit:
        """A unit of work on the table, under its lock (see :class:`Unit`), for ``async with``.

        The store is read unless the cached fold has reached ``fresh_from``
        (None: always read), from the cached seq on. With
        ``folded=False`` no events are read (a lobby change: see :meth:`Unit.row`).
        """
        return Unit(self, table_id, fresh_from, folded)

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
            try:
                async with Unit(self, table_id, fresh_from, folded) as unit:
                    return await body(unit)
            except ConcurrencyConflict:
                _lost(counted)
            fresh_from = None  # the retry reads the store
        try:
            async with Unit(self, table_id, fresh_from, folded) as unit:
                return await body(unit)
        except ConcurrencyConflict:
            _lost(counted)
            raise LostRace(lost) from None

    def cached(self, table_id: str) -> Folded | None:
        """The cached fold, as it is (no lock, no read): only for values derived from it
        at its version (``Folded.derived``), which a change ahead of a commit leaves true."""
        return self._states.get(table_id)

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

    async def _refresh(self, table_id: str) -> Folded:
        """Bring the cached fold up to the store's latest event (under the lock)."""
        folded = self._states.get(table_id) or Folded()
        events = await self.store.read(table_id, folded.version)
        try:
            fold(events, folded)
            folded.keep(events)
        except BaseException:
            self._evict(table_id)
            raise
        if folded.version:  # (no table, nothing to keep)
            self._remember(table_id, folded)
        return folded
