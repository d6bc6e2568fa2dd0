"""Waking the waiters of a game when new events may have been stored.

A waiter (a streaming RPC, a long poll) asks to be woken once a game moves
past the seq it has seen. :class:`Notifier` does this within one process: the
store calls :meth:`Notifier.notify_local` after each committed append.
:class:`PostgresNotifier` adds the other replicas: every append sends
``NOTIFY parlour_events, '<game_id>:<seq>'`` inside its transaction, and a
background task holding a ``LISTEN`` connection turns those into local
wake-ups (reconnecting, and waking everyone in case they missed something,
when the connection drops).

A wake-up only says that an event with a higher seq *may* exist: the waiter
re-reads the store, so a spurious wake-up costs a read, never a wrong answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import psycopg

from parlour.service.database import libpq_url, normalize_url
from parlour.service.store import BOT_TURN_CHANNEL, NOTIFY_CHANNEL, EventStore

if TYPE_CHECKING:
    from collections.abc import Iterable

log = logging.getLogger(__name__)

#: how many games' latest seq are remembered (to answer waits that come late)
LATEST_SEQS_KEPT = 50_000


@dataclass(eq=False)
class _Waiter:
    after_seq: int
    woken: asyncio.Future[None] = field(repr=False)


class Notifier:
    """In-process wake-ups: enough on its own for one process over SQLite.

    Every method runs on the event loop's thread (the store announces its
    appends there, and the LISTEN connection is read there), so a check and
    a registration, or a notification and the wake-ups it causes, are never
    interleaved.
    """

    def __init__(self) -> None:
        self._waiters: dict[str, set[_Waiter]] = {}
        self._latest: OrderedDict[str, int] = OrderedDict()
        # for waiters on any game (the AI workers' long poll): a count of
        # notifications, and the futures to wake on the next one
        self.changes = 0
        self._any_waiters: set[asyncio.Future[None]] = set()
        # --- issue 12: bot-turn wake-ups (only appends that leave a bot to act) ---
        self.bot_changes = 0
        self._bot_waiters: set[asyncio.Future[None]] = set()

    async def start(self) -> None:
        """Start listening (nothing to do in process)."""

    async def stop(self) -> None:
        """Wake every waiter (so streams can finish) and stop."""
        self.notify_all()

    async def wait(self, game_id: str, after_seq: int, timeout: float) -> None:
        """Return once game_id may have an event with seq > after_seq, or after timeout seconds."""
        if self._latest.get(game_id, 0) > after_seq:
            return
        waiter = _Waiter(after_seq, asyncio.get_running_loop().create_future())
        self._waiters.setdefault(game_id, set()).add(waiter)
        try:
            await asyncio.wait([waiter.woken], timeout=timeout)
        finally:
            waiting = self._waiters.get(game_id)
            if waiting is not None:
                waiting.discard(waiter)
                if not waiting:
                    del self._waiters[game_id]
            waiter.woken.cancel()

    async def wait_any(self, after_changes: int, timeout: float) -> None:
        """Return once any game may have a new event since :attr:`changes` was
        ``after_changes``, or after timeout seconds."""
        if self.changes != after_changes:
            return
        woken = asyncio.get_running_loop().create_future()
        self._any_waiters.add(woken)
        try:
            await asyncio.wait([woken], timeout=timeout)
        finally:
            self._any_waiters.discard(woken)
            woken.cancel()

    # --- issue 12: bot-turn wake-ups, apart from the per-table ones -------------------------

    async def wait_bot_turn(self, after_changes: int, timeout: float) -> None:
        """Return once a bot may have a turn since :attr:`bot_changes` was ``after_changes``
        (an append with ``PendingAppend.bot_turn``), or after timeout seconds."""
        if self.bot_changes != after_changes:
            return
        woken = asyncio.get_running_loop().create_future()
        self._bot_waiters.add(woken)
        try:
            await asyncio.wait([woken], timeout=timeout)
        finally:
            self._bot_waiters.discard(woken)
            woken.cancel()

    def notify_bot_turn(self) -> None:
        """An append left a bot (or a seat played by a bot) to act."""
        self.bot_changes += 1
        for woken in self._bot_waiters:
            if not woken.done():
                woken.set_result(None)

    # ------------------------------------------------------------------------------------

    def notify_local(self, game_id: str, seq: int) -> None:
        """Game ``game_id`` now has events up to ``seq``."""
        self.changes += 1
        if seq > self._latest.get(game_id, 0):
            self._latest[game_id] = seq
            self._latest.move_to_end(game_id)
            while len(self._latest) > LATEST_SEQS_KEPT:
                self._latest.popitem(last=False)
        self._wake(game_id, seq)

    def notify_all(self) -> None:
        """Wake every waiter: something may have been missed."""
        self._wake(None, None)
        self.notify_bot_turn()

    def _wake(self, game_id: str | None, seq: int | None) -> None:
        for woken in self._any_waiters:
            if not woken.done():
                woken.set_result(None)
        if game_id is None:
            chosen: Iterable[set[_Waiter]] = list(self._waiters.values())
        else:
            chosen = [self._waiters.get(game_id, set())]
        for waiting in chosen:
            for waiter in waiting:
                if (seq is None or seq > waiter.after_seq) and not waiter.woken.done():
                    waiter.woken.set_result(None)


class PostgresNotifier(Notifier):
    """Wake-ups from every replica through Postgres LISTEN/NOTIFY."""

    application_name = "parlour-listener"

    def __init__(self, url: str, *, retry_delay: float = 0.2, max_retry_delay: float = 5.0) -> None:
        super().__init__()
        # psycopg wants a libpq URL, not SQLAlchemy's "postgresql+psycopg"
        self._conninfo = libpq_url(url)
        self._retry_delay = retry_delay
        self._max_retry_delay = max_retry_delay
        self._connection: psycopg.AsyncConnection[object] | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """LISTEN before returning, so no append after start() goes unnoticed."""
        await super().start()
        self._connection = await self._listen()
        self._task = asyncio.create_task(self._pump(), name="parlour-listener")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._close()
        await super().stop()

    async def _listen(self) -> psycopg.AsyncConnection[object]:
        connection = await psycopg.AsyncConnection.connect(
            self._conninfo, autocommit=True, application_name=self.application_name
        )
        await connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
        await connection.execute(f"LISTEN {BOT_TURN_CHANNEL}")  # issue 12
        return connection

    async def _close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(psycopg.Error, OSError):
                await connection.close()

    async def _pump(self) -> None:
        while True:
            connection = self._connection
            try:
                if connection is None:
                    raise psycopg.OperationalError("not connected")
                await self._drain(connection)
            except Exception as error:  # whatever broke, a live listener is the way back
                log.warning("lost the LISTEN connection (%s); reconnecting", error)
            await self._close()
            await self._reconnect()
            # Whatever was notified while we were away is lost: let everyone re-read.
            self.notify_all()

    async def _drain(self, connection: psycopg.AsyncConnection[object]) -> None:
        """Hand each notification to notify_local as it arrives; raise when the connection drops.

        Every append of every replica comes back here, so this is on the hot
        path: one reader on the socket for the connection's life, and libpq's
        own calls, cost less per notification than psycopg's notifies()
        generator (which registers and unregisters a reader for each one).
        """
        loop = asyncio.get_running_loop()
        lost: asyncio.Future[None] = loop.create_future()
        pgconn = connection.pgconn
        socket = pgconn.socket

        def readable() -> None:
            try:
                pgconn.consume_input()
                while (note := pgconn.notifies()) is not None:
                    if note.relname.decode() == BOT_TURN_CHANNEL:  # issue 12
                        self.notify_bot_turn()
                        continue
                    game_id, _, seq = note.extra.decode().rpartition(":")
                    if game_id and seq.isdigit():
                        self.notify_local(game_id, int(seq))
                if pgconn.status != psycopg.pq.ConnStatus.OK:
                    raise psycopg.OperationalError("the LISTEN connection was closed")
            except Exception as error:
                if not lost.done():
                    lost.set_exception(error)

        loop.add_reader(socket, readable)
        try:
            readable()  # whatever arrived before the reader was in place
            await lost
        finally:
            loop.remove_reader(socket)

    async def _reconnect(self) -> None:
        delay = self._retry_delay
        while True:
            await asyncio.sleep(delay)
            try:
                self._connection = await self._listen()
                return
            except (psycopg.Error, OSError) as error:
                log.warning("LISTEN reconnect failed (%s); retrying in %.1fs", error, delay)
                delay = min(delay * 2, self._max_retry_delay)


def make_notifier(store_or_url: EventStore | str) -> Notifier:
    """The notifier for a store's database: LISTEN/NOTIFY on Postgres, in-process on SQLite.

    Given a store, the notifier also hears that store's own appends at once
    (without waiting for the NOTIFY to come back from the server).
    """
    if isinstance(store_or_url, str):
        url = store_or_url
        is_postgres = normalize_url(url).get_backend_name() == "postgresql"
    else:
        url, is_postgres = store_or_url.url, store_or_url.is_postgres
    notifier = PostgresNotifier(url) if is_postgres else Notifier()
    if not isinstance(store_or_url, str):
        store_or_url.add_listener(notifier.notify_local)
        store_or_url.add_bot_listener(notifier.notify_bot_turn)
    return notifier
