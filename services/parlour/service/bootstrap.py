"""The composition root: settings -> store, notifier, application, bot turns,
sweeper and gRPC server, each given what it needs through its constructor.

``parlour serve`` (``cli/serve.py``) parses its arguments into a
:class:`Settings` and calls :func:`serve`; the tests open their own store and
notifier and call :func:`assemble` for the rest. This is the one place that
knows every layer; nothing is assigned onto an object after it is built.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import random
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import grpc

from parlour.service.app import metrics
from parlour.service.app.accounts import DEFAULT_SESSION_SECONDS, Accounts
from parlour.service.app.analysis import DEFAULT_ANALYSIS_LEASE_SECONDS, Analyses
from parlour.service.app.bots import DEFAULT_LEASE_SECONDS, BotTurns, LeaseGuard
from parlour.service.app.moderation import (
    DEFAULT_MAX_OPEN_SEATS,
    DEFAULT_MAX_OPEN_TABLES,
    AccountCaps,
)
from parlour.service.app.parlour import WATCH_POLL_SECONDS, Parlour
from parlour.service.app.ports import Forker
from parlour.service.app.sweeper import Sweeper, SweepSettings
from parlour.service.grpc.rates import Rates
from parlour.service.grpc.server import GrpcServer, build_server
from parlour.service.notify import Notifier, make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import EventStore

#: the database ``parlour serve`` uses when given none (as ``parlour migrate``)
DEFAULT_DATABASE_URL = "sqlite:///parlour.sqlite3"


@dataclass(frozen=True)
class Settings:
    """What one replica serves, and with what (``parlour serve``'s options)."""

    #: "host:port" to listen on; port 0 picks a free port
    address: str = "127.0.0.1:50051"
    database_url: str = DEFAULT_DATABASE_URL
    #: migrate the database to the latest schema before serving
    migrate: bool = True
    #: the shared secret that lets AI workers act for bot seats (None: bots cannot act)
    worker_token: str | None = None
    #: game id -> the bot levels the catalogue publishes (HostTable refuses others)
    bot_levels: Mapping[str, Sequence[str]] = field(default_factory=dict)
    #: ReplayService.ForkTable's fork (``app/ports.Forker``; None: ForkTable refuses)
    forker: Forker | None = None
    #: how long a worker holds a bot turn it claimed
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    #: how long a worker holds an analysis it claimed (issue 35), renewed by each part
    analysis_lease_seconds: float = DEFAULT_ANALYSIS_LEASE_SECONDS
    #: serve TLS with these instead of plaintext
    credentials: grpc.ServerCredentials | None = None
    #: the store's connection budget (None: $PARLOUR_DB_CONNECTIONS or the default)
    connections: int | None = None
    #: the notifier (``notify.make_notifier``): local, postgres or nats://HOST:PORT
    notify: str | None = None
    #: how often a Watch re-reads the store whatever the notifier says (the bound
    #: on a lost wake-up)
    catch_up_seconds: float = WATCH_POLL_SECONDS
    #: how often the sweeper fires turn clocks and expiries (``sweeper.py``)
    sweep: SweepSettings = field(default_factory=SweepSettings)
    #: signs ListTables page tokens (HMAC-SHA256); every replica must have the same.
    #: None: derived from the worker token when there is one (the replicas share
    #: it), else made up at start (tokens then work on this replica only)
    page_secret: bytes | None = None
    #: the rates and caps every caller is held to, per replica (``grpc/rates.py``)
    rates: Rates = field(default_factory=Rates)
    #: networks of proxies (the gateway) trusted to name the caller's address in
    #: ``x-parlour-client-address``; none by default (every caller is its peer address)
    trusted_proxies: tuple[str, ...] = ()
    #: accounts (issue 30): how long a session lasts, and the per-account caps
    session_seconds: float = DEFAULT_SESSION_SECONDS
    max_open_tables_per_account: int = DEFAULT_MAX_OPEN_TABLES
    max_open_seats_per_account: int = DEFAULT_MAX_OPEN_SEATS


@dataclass(frozen=True)
class Replica:
    """One replica's parts, built but not started."""

    store: EventStore
    notifier: Notifier
    app: Parlour
    bot_turns: BotTurns
    sweeper: Sweeper
    server: GrpcServer


def page_secret(settings: Settings) -> bytes | None:
    """The page-token secret: the configured one, else one derived from the worker
    token (so replicas that share it page alike), else None (random at start)."""
    if settings.page_secret:
        return settings.page_secret
    if settings.worker_token:
        return hmac.new(
            settings.worker_token.encode(), b"parlour page tokens v1", hashlib.sha256
        ).digest()
    return None


async def assemble(
    settings: Settings,
    store: EventStore,
    notifier: Notifier,
    *,
    rng: random.Random | None = None,
) -> Replica:
    """The application, bot turns, sweeper and gRPC server over ``store`` and ``notifier``
    (the server bound to ``settings.address``, nothing started). ``rng`` is the
    dealer's random source (``secrets.SystemRandom`` unless a test seeds one)."""
    app = Parlour(
        store,
        notifier,
        rng=rng,
        worker_token=settings.worker_token,
        bot_levels=settings.bot_levels,
        forker=settings.forker,
        watch_poll_seconds=settings.catch_up_seconds,
        bot_act_guard=LeaseGuard(store).check_act,
        page_secret=page_secret(settings),
        accounts=Accounts(store.accounts, session_seconds=settings.session_seconds),
        caps=AccountCaps(
            store.accounts,
            max_open_tables=settings.max_open_tables_per_account,
            max_open_seats=settings.max_open_seats_per_account,
        ),
    )
    bot_turns = BotTurns(
        app, notifier, worker_token=settings.worker_token, lease_seconds=settings.lease_seconds
    )
    analyses = Analyses(
        app, worker_token=settings.worker_token, lease_seconds=settings.analysis_lease_seconds
    )
    server = await build_server(
        settings.address,
        app,
        bot_turns,
        analyses=analyses,
        bot_levels=settings.bot_levels,
        credentials=settings.credentials,
        limiting=settings.rates,
        worker_token=settings.worker_token,
        trusted_proxies=settings.trusted_proxies,
    )
    return Replica(store, notifier, app, bot_turns, Sweeper(app, settings.sweep), server)


async def serve(settings: Settings, ready: Callable[[int], None] | None = None) -> None:
    """Run a replica until SIGINT/SIGTERM (or cancellation), then stop gracefully.

    Migrates first (if ``settings.migrate``), opens the store and starts the
    notifier, serves, and starts the sweeper; ``ready`` is called with the
    port once the server listens.
    """
    if settings.migrate:
        await asyncio.to_thread(upgrade_head, settings.database_url)
    store = open_store(settings.database_url, connections=settings.connections)
    metrics.watch_store(store)
    notifier = make_notifier(store, settings.notify)
    try:
        await notifier.start()
    except BaseException:
        await store.close()
        raise
    try:
        replica = await assemble(settings, store, notifier)
        await replica.server.start()
    except BaseException:
        await notifier.stop()
        await store.close()
        raise
    replica.sweeper.start()
    if ready is not None:
        ready(replica.server.port)
    try:
        await _until_stopped()
    finally:
        await replica.sweeper.stop()
        await replica.server.stop(grace=5.0)
        await notifier.stop()
        await store.close()


async def _until_stopped() -> None:
    """Wait for SIGINT or SIGTERM (or cancellation)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    await stop.wait()
