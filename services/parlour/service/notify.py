"""Waking the waiters of a table when new events may have been stored: the notifier port.

A waiter (a Watch stream, an idle AI worker's ClaimTurn long poll) asks to be
woken once something may have changed. The port has two kinds of wake-up:

* **table events**, ``(table_id, seq)``: the table may have events up to
  ``seq``; wakes the waiters on that table (:meth:`Notifier.wait`);
* **bot turns**: an append left a bot (or a seat a bot plays) to act; wakes
  the idle AI workers' long polls (:meth:`Notifier.wait_any`). Appends that
  leave only people to act (``PendingAppend.bot_turn`` false) do not wake them.

The store calls :meth:`Notifier.committed` after each append it commits;
the adapter tells the other replicas. Three adapters, chosen by
configuration (:func:`make_notifier`, ``parlour serve --notify`` or
``$PARLOUR_NOTIFY``):

* ``local`` -- :class:`Notifier` itself: in process only. Enough for one
  replica (the SQLite default); with several, a replica hears the others'
  moves only at the periodic catch-up.
* ``postgres`` -- :class:`PostgresNotifier` (the default on Postgres, no extra
  service): every append sends ``NOTIFY parlour_events, '<table>:<seq>:<bot>'``
  inside its transaction and a ``LISTEN`` connection per replica turns them
  into local wake-ups. Postgres serialises the commits of notifying
  transactions on one lock, which caps the whole deployment's commit rate.
* ``nats://HOST:PORT`` -- :class:`NatsNotifier`: the append commits without
  ``pg_notify`` and the replica publishes ``<table>:<seq>`` on NATS after the
  commit (core publish/subscribe, at most once), on subject
  ``parlour.wake.table`` or, for a bot turn, ``parlour.wake.bot``; every
  replica subscribes to both.

A wake-up only says that an event with a higher seq *may* exist: the waiter
re-reads the store from its last version, so a spurious wake-up costs a read,
never a wrong answer, and a lost or late one can delay an update but never
lose or reorder it. The delay is bounded: a Watch re-reads at least every
``--catch-up-seconds`` (default 15) whatever it hears, an idle worker's
ClaimTurn looks again when its ``wait_seconds`` run out, and when a LISTEN
or NATS connection comes back every waiter is woken to re-read at once.

Every live notifier reports its state at each Prometheus scrape
(:class:`NotifierCollector`): ``parlour_notifier_connected`` (1 while its
LISTEN or NATS connection is up; the in-process one is always connected),
``parlour_notifier_reconnects_total`` and
``parlour_notifier_publish_failures_total`` (NATS wake-ups the client refused),
each labelled with the notifier's ``kind``. A lost connection also logs a
warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import psycopg
from prometheus_client import REGISTRY
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from parlour.service.store.protocol import NOTIFY_CHANNEL, EventStore
from parlour.service.store.urls import libpq_url, normalize_url

if TYPE_CHECKING:
    from collections.abc import Awaitable, Iterable, Iterator

log = logging.getLogger(__name__)

#: how many games' latest seq are remembered (to answer waits that come late)
LATEST_SEQS_KEPT = 50_000
#: ``parlour serve --notify`` when not given
NOTIFY_ENV = "PARLOUR_NOTIFY"
#: the NATS subjects: a table's new events, and those that leave a bot to act
TABLE_SUBJECT = "parlour.wake.table"
BOT_SUBJECT = "parlour.wake.bot"
#: tries of each NATS server at start (``reconnect_seconds`` apart) before giving up
START_ATTEMPTS = 3


@dataclass(eq=False)
class _Waiter:
    after_seq: int
    woken: asyncio.Future[None] = field(repr=False)


def _settle(woken: asyncio.Future[None]) -> None:
    """Wake a waiter (its time is up, or its table moved on), once."""
    if not woken.done():
        woken.set_result(None)


class Notifier:
    """The port, and its in-process adapter: enough on its own for one replica.

    Every method runs on the event loop's thread (the store announces its
    appends there, and the LISTEN / NATS connections are read there), so a
    check and a registration, or a notification and the wake-ups it causes,
    are never interleaved.
    """

    #: what --notify names this adapter
    kind = "local"
    #: whether a Postgres store's append sends ``pg_notify`` in its transaction
    notify_in_transaction = False

    def __init__(self) -> None:
        #: whether wake-ups from the other replicas can arrive now (the metrics' state)
        self.connected = True
        #: times the connection to the other replicas came back after a loss
        self.reconnects = 0
        #: wake-ups for the other replicas that could not be handed on (NATS only)
        self.publish_failures = 0
        NOTIFIERS.add(self)
        self._waiters: dict[str, set[_Waiter]] = {}
        self._latest: OrderedDict[str, int] = OrderedDict()
        # for the waiters on any bot turn (the AI workers' long poll): a count of
        # bot-turn wake-ups, and the futures to wake on the next one
        self.changes = 0
        self._any_waiters: set[asyncio.Future[None]] = set()

    async def start(self) -> None:
        """Start listening (nothing to do in process)."""

    async def stop(self) -> None:
        """Wake every waiter (so streams can finish) and stop."""
        NOTIFIERS.notifiers.discard(self)
        self.notify_all()

    async def wait(self, table_id: str, after_seq: int, timeout: float) -> None:
        """Return once table_id may have an event with seq > after_seq, or after timeout seconds."""
        if self._latest.get(table_id, 0) > after_seq:
            return
        loop = asyncio.get_running_loop()
        waiter = _Waiter(after_seq, loop.create_future())
        self._waiters.setdefault(table_id, set()).add(waiter)
        # A timer on the future itself, not asyncio.wait: every Watch stream waits
        # here after every message, and asyncio.wait's task set and callbacks were
        # a quarter of a spectator stream's time (bench/fanout_counts.py).
        timer = loop.call_later(timeout, _settle, waiter.woken)
        try:
            await waiter.woken
        finally:
            timer.cancel()
            waiting = self._waiters.get(table_id)
            if waiting is not None:
                waiting.discard(waiter)
                if not waiting:
                    del self._waiters[table_id]
            waiter.woken.cancel()

    def waiting(self, table_id: str) -> int:
        """How many waits on ``table_id`` a change would wake now."""
        return len(self._waiters.get(table_id, ()))

    def latest(self, table_id: str) -> int:
        """The latest seq of ``table_id`` this process heard of (0: none lately)."""
        return self._latest.get(table_id, 0)

    async def wait_any(self, after_changes: int, timeout: float) -> None:
        """Return once a bot may be to act at some table since :attr:`changes` was
        ``after_changes``, or after timeout seconds."""
        if self.changes != after_changes:
            return
        loop = asyncio.get_running_loop()
        woken = loop.create_future()
        self._any_waiters.add(woken)
        timer = loop.call_later(timeout, _settle, woken)
        try:
            await woken
        finally:
            timer.cancel()
            self._any_waiters.discard(woken)
            woken.cancel()

    def committed(self, table_id: str, seq: int, bot_turn: bool = True) -> Awaitable[None] | None:
        """This process committed events of ``table_id`` up to ``seq`` (the store's listener).

        Wakes this process's waiters at once; an adapter also tells the other
        replicas (unless the append's own transaction already did), returning
        what the append awaits for that.
        """
        self.notify_local(table_id, seq, bot_turn)
        return None

    def notify_local(self, table_id: str, seq: int, bot_turn: bool = True) -> None:
        """Table ``table_id`` now has events up to ``seq``; ``bot_turn``: a bot may be to act."""
        if seq > self._latest.get(table_id, 0):
            self._latest[table_id] = seq
            self._latest.move_to_end(table_id)
            while len(self._latest) > LATEST_SEQS_KEPT:
                self._latest.popitem(last=False)
        if bot_turn:
            self._wake_bots()
        for waiter in self._waiters.get(table_id, ()):
            if seq > waiter.after_seq and not waiter.woken.done():
                waiter.woken.set_result(None)

    def notify_all(self) -> None:
        """Wake every waiter: something may have been missed."""
        self._wake_bots()
        chosen: Iterable[set[_Waiter]] = list(self._waiters.values())
        for waiting in chosen:
            for waiter in waiting:
                if not waiter.woken.done():
                    waiter.woken.set_result(None)

    def _wake_bots(self) -> None:
        self.changes += 1
        for woken in self._any_waiters:
            if not woken.done():
                woken.set_result(None)


def parse_note(note: str) -> tuple[str, int, bool] | None:
    """``'<table>:<seq>:<bot>'`` (or ``'<table>:<seq>'``, a bot turn) as (table, seq, bot_turn)."""
    head, _, last = note.rpartition(":")
    bot_turn = True
    if head and last in ("0", "1") and ":" in head:
        head, _, seq = head.rpartition(":")
        bot_turn = last == "1"
    else:
        seq = last
    if head and seq.isdigit():
        return head, int(seq), bot_turn
    return None


class PostgresNotifier(Notifier):
    """Wake-ups from every replica through Postgres LISTEN/NOTIFY."""

    kind = "postgres"
    notify_in_transaction = True
    application_name = "parlour-listener"

    def __init__(self, url: str, *, retry_delay: float = 0.2, max_retry_delay: float = 5.0) -> None:
        super().__init__()
        self.connected = False
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
        self.connected = True
        self._task = asyncio.create_task(self._pump(), name="parlour-listener")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._close()
        self.connected = False
        await super().stop()

    async def _listen(self) -> psycopg.AsyncConnection[object]:
        connection = await psycopg.AsyncConnection.connect(
            self._conninfo, autocommit=True, application_name=self.application_name
        )
        await connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
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
            self.connected = False
            await self._close()
            await self._reconnect()
            self.connected = True
            self.reconnects += 1
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
                    parsed = parse_note(note.extra.decode())
                    if parsed is not None:
                        self.notify_local(*parsed)
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


class NatsUnavailable(Exception):
    """The NATS server named by --notify cannot be reached at start."""


class NatsNotifier(Notifier):
    """Wake-ups from every replica through NATS core publish/subscribe.

    The store's appends commit without ``pg_notify``; :meth:`committed` wakes
    this process at once and publishes, after the commit and before the
    append returns (into the client's buffer, which its flusher task writes
    to the socket: nothing waits for the server). A message this replica
    published does not come back to it (``no_echo``). While the server is
    away, publishes wait in the client's reconnect buffer (or are dropped when
    it is full: the catch-up covers them); on reconnecting, every waiter is
    woken to re-read.
    """

    kind = "nats"
    notify_in_transaction = False

    def __init__(
        self,
        servers: str,
        *,
        reconnect_seconds: float = 0.5,
        pending_bytes: int | None = None,
    ) -> None:
        super().__init__()
        self.connected = False
        self.servers = [server.strip() for server in servers.split(",") if server.strip()]
        self._reconnect_seconds = reconnect_seconds
        #: the client's buffer for publishes while the server is away (None: its default)
        self._pending_bytes = pending_bytes
        self._client: Any = None

    async def start(self) -> None:
        """Connect and subscribe before returning, so no publish after start() goes unheard."""
        import nats
        import nats.errors

        await super().start()

        async def reconnected() -> None:
            log.warning("NATS connection back (%s); every waiter re-reads", self._url())
            self.connected = True
            self.reconnects += 1
            self.notify_all()

        async def disconnected() -> None:
            self.connected = False
            if self._client is not None:  # (not stopping)
                log.warning("lost the NATS connection; reconnecting")

        async def error(problem: Exception) -> None:
            log.debug("NATS: %s", problem)

        extra: dict[str, Any] = {}
        if self._pending_bytes is not None:
            extra["pending_size"] = self._pending_bytes
        try:
            self._client = await nats.connect(
                servers=self.servers,
                name="parlour",
                no_echo=True,
                allow_reconnect=True,
                max_reconnect_attempts=START_ATTEMPTS,  # then for ever (below)
                reconnect_time_wait=self._reconnect_seconds,
                connect_timeout=5,
                # a full buffer on a live connection is flushed at once; an append
                # waits for that at most this long (then the message is dropped)
                flush_timeout=1.0,
                reconnected_cb=reconnected,
                disconnected_cb=disconnected,
                error_cb=error,
                **extra,
            )
        except (OSError, nats.errors.Error) as problem:
            raise NatsUnavailable(
                f"cannot reach NATS at {', '.join(self.servers)}: {problem}"
            ) from problem
        # once up, reconnect for as long as it takes (the catch-up covers the gap)
        self._client.options["max_reconnect_attempts"] = -1
        await self._client.subscribe(TABLE_SUBJECT, cb=self._heard)
        await self._client.subscribe(BOT_SUBJECT, cb=self._heard)
        await self._client.flush()
        self.connected = True

    async def stop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()
        self.connected = False
        await super().stop()

    def _url(self) -> str:
        url = getattr(self._client, "connected_url", None)
        return url.geturl() if url is not None else ",".join(self.servers)

    def committed(self, table_id: str, seq: int, bot_turn: bool = True) -> Awaitable[None] | None:
        self.notify_local(table_id, seq, bot_turn)
        subject = BOT_SUBJECT if bot_turn else TABLE_SUBJECT
        return self._publish(subject, f"{table_id}:{seq}".encode())

    async def _heard(self, message: Any) -> None:
        parsed = parse_note(message.data.decode())
        if parsed is not None:
            table_id, seq, _ = parsed
            self.notify_local(table_id, seq, message.subject == BOT_SUBJECT)

    async def _publish(self, subject: str, payload: bytes) -> None:
        try:
            if self._client is None:
                raise ConnectionError("not started")
            await self._client.publish(subject, payload)
        except Exception as problem:  # the append is committed: a lost wake-up only delays
            self.publish_failures += 1
            log.debug("NATS publish dropped (%s)", problem)


class NotifierCollector(Collector):
    """Scrape-time state of every live notifier of this process, by kind."""

    def __init__(self) -> None:
        self.notifiers: weakref.WeakSet[Notifier] = weakref.WeakSet()

    def add(self, notifier: Notifier) -> None:
        self.notifiers.add(notifier)

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        connected = GaugeMetricFamily(
            "parlour_notifier_connected",
            "notifiers whose connection to the other replicas is up (LISTEN or NATS), by kind",
            labels=["kind"],
        )
        reconnects = CounterMetricFamily(
            "parlour_notifier_reconnects",
            "times a notifier's lost LISTEN or NATS connection came back, by kind",
            labels=["kind"],
        )
        failures = CounterMetricFamily(
            "parlour_notifier_publish_failures",
            "wake-ups for the other replicas the notifier could not hand on, by kind",
            labels=["kind"],
        )
        figures: dict[str, list[int]] = {}
        for notifier in list(self.notifiers):
            sums = figures.setdefault(notifier.kind, [0, 0, 0])
            sums[0] += int(notifier.connected)
            sums[1] += notifier.reconnects
            sums[2] += notifier.publish_failures
        for kind, (up, back, failed) in sorted(figures.items()):
            connected.add_metric([kind], up)
            reconnects.add_metric([kind], back)
            failures.add_metric([kind], failed)
        yield connected
        yield reconnects
        yield failures


NOTIFIERS = NotifierCollector()
REGISTRY.register(NOTIFIERS)


def notify_setting(setting: str | None = None) -> str | None:
    """The --notify value: the argument, else ``$PARLOUR_NOTIFY``, else None (the default)."""
    return setting or os.environ.get(NOTIFY_ENV) or None


def make_notifier(store_or_url: EventStore | str, setting: str | None = None) -> Notifier:
    """The notifier ``setting`` names (``local``, ``postgres`` or ``nats://HOST:PORT[,...]``);
    by default LISTEN/NOTIFY on Postgres, in process on SQLite.

    Given a store, the notifier hears that store's own appends at once (and
    tells the store whether its appends carry ``pg_notify``).
    """
    if isinstance(store_or_url, str):
        url = store_or_url
        is_postgres = normalize_url(url).get_backend_name() == "postgresql"
    else:
        url, is_postgres = store_or_url.url, store_or_url.is_postgres
    chosen = (setting or "").strip() or ("postgres" if is_postgres else "local")
    notifier: Notifier
    if chosen == "local":
        notifier = Notifier()
    elif chosen == "postgres":
        if not is_postgres:
            raise ValueError("--notify postgres needs a Postgres database")
        notifier = PostgresNotifier(url)
    elif chosen.startswith(("nats://", "tls://")):
        notifier = NatsNotifier(chosen)
    else:
        raise ValueError(f"--notify must be local, postgres or nats://HOST:PORT, not {chosen!r}")
    if not isinstance(store_or_url, str):
        store_or_url.notify_in_transaction = notifier.notify_in_transaction
        store_or_url.add_listener(notifier.committed)
    return notifier
