"""The gRPC server: the servicers bound to an address, with health and reflection.

:func:`build_server` registers the servicers (``servicers.py``, whose errors
``status.py`` answers) behind the observing and limiting interceptors;
:func:`serve` runs one replica until it is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from parlour.service.app import metrics
from parlour.service.app.bots import DEFAULT_LEASE_SECONDS, BotTurns, LeaseGuard
from parlour.service.app.parlour import WATCH_POLL_SECONDS, Parlour
from parlour.service.app.sweeper import Sweeper, SweepSettings
from parlour.service.grpc import limits
from parlour.service.grpc.observe import ObservingInterceptor
from parlour.service.grpc.reflection import enable_reflection
from parlour.service.grpc.servicers import (
    BotServicer,
    CatalogueServicer,
    LobbyServicer,
    PlayServicer,
    ReplayServicer,
)
from parlour.service.notify import Notifier, make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import EventStore
from parlour.v1 import (
    bots_pb2,
    bots_pb2_grpc,
    catalogue_pb2,
    catalogue_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)


def _service_name(module: Any, service: str) -> str:
    return str(module.DESCRIPTOR.services_by_name[service].full_name)


@dataclass
class GameServer:
    """A bound (not yet started) game service: the gRPC server and what it serves."""

    server: grpc.aio.Server
    port: int
    app: Parlour
    health: health.aio.HealthServicer

    async def start(self) -> None:
        await self.server.start()

    async def stop(self, grace: float | None = 5.0) -> None:
        """Say NOT_SERVING, let calls in flight finish for up to ``grace`` seconds, stop."""
        await self.health.enter_graceful_shutdown()
        self.app.begin_shutdown()
        await self.server.stop(grace)


async def build_server(
    address: str,
    store: EventStore,
    notifier: Notifier,
    *,
    worker_token: str | None = None,
    bot_levels: Mapping[str, Sequence[str]] | None = None,
    lease_seconds: float | None = None,
    credentials: grpc.ServerCredentials | None = None,
    catch_up_seconds: float | None = None,
) -> GameServer:
    """A game service bound to ``address`` ("host:port"; port 0 picks a free port).

    ``worker_token`` is the shared secret that lets AI workers act for bot
    seats; ``bot_levels`` is published in the catalogue; ``lease_seconds`` is
    how long a worker holds a bot turn it claimed (default 5); ``credentials``
    serve TLS instead of plaintext; ``catch_up_seconds`` how often a Watch re-reads the
    store whatever the notifier says (default 15: the bound on a lost wake-up).
    Every RPC is logged and measured (:mod:`parlour.service.grpc.observe`).
    """
    if catch_up_seconds is not None and catch_up_seconds <= 0:
        raise ValueError(f"catch_up_seconds must be positive, not {catch_up_seconds}")
    app = Parlour(
        store,
        notifier,
        worker_token=worker_token,
        bot_levels=bot_levels,
        watch_poll_seconds=catch_up_seconds or WATCH_POLL_SECONDS,
        bot_act_guard=LeaseGuard(store).check_act,
    )
    bot_turns = BotTurns(
        app,
        notifier,
        worker_token=worker_token,
        lease_seconds=lease_seconds or DEFAULT_LEASE_SECONDS,
    )
    # no SO_REUSEPORT: a second replica started on a busy port fails instead of sharing it
    server = grpc.aio.server(
        # the observer outermost, so that a request the limits refuse is logged and
        # counted too; then the limits: past them, a request is refused before any
        # servicer reads it
        interceptors=[ObservingInterceptor(), limits.LimitsInterceptor()],
        options=[*limits.SERVER_OPTIONS, ("grpc.so_reuseport", 0)],
    )
    # (register function, servicer, full service name): one line per service
    services: list[tuple[Callable[[Any, grpc.aio.Server], None], Any, str]] = [
        (
            catalogue_pb2_grpc.add_CatalogueServiceServicer_to_server,
            CatalogueServicer(bot_levels),
            _service_name(catalogue_pb2, "CatalogueService"),
        ),
        (
            lobby_pb2_grpc.add_LobbyServiceServicer_to_server,
            LobbyServicer(app),
            _service_name(lobby_pb2, "LobbyService"),
        ),
        (
            play_pb2_grpc.add_PlayServiceServicer_to_server,
            PlayServicer(app),
            _service_name(play_pb2, "PlayService"),
        ),
        (
            replay_pb2_grpc.add_ReplayServiceServicer_to_server,
            ReplayServicer(app),
            _service_name(replay_pb2, "ReplayService"),
        ),
        (
            bots_pb2_grpc.add_BotServiceServicer_to_server,
            BotServicer(bot_turns),
            _service_name(bots_pb2, "BotService"),
        ),
    ]
    for register, servicer, _ in services:
        register(servicer, server)
    names = [name for _, _, name in services]
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in (*names, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    enable_reflection((*names, health.SERVICE_NAME), server)
    if credentials is None:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, credentials)
    return GameServer(server, port, app, health_servicer)


async def serve(
    address: str,
    database_url: str,
    *,
    migrate: bool = True,
    worker_token: str | None = None,
    bot_levels: Mapping[str, Sequence[str]] | None = None,
    lease_seconds: float | None = None,
    credentials: grpc.ServerCredentials | None = None,
    connections: int | None = None,
    ready: Callable[[int], None] | None = None,
    notify: str | None = None,
    catch_up_seconds: float | None = None,
    sweep: SweepSettings | None = None,
) -> None:
    """Run a game service until SIGINT/SIGTERM (or cancellation), then stop gracefully.

    ``connections`` is the store's connection budget (see ``store.py``); ``notify``
    names the notifier (``notify.make_notifier``: local, postgres or nats://HOST:PORT;
    by default LISTEN/NOTIFY on Postgres, in process on SQLite); ``sweep`` how often
    this replica's sweeper fires turn clocks and expiries (``sweeper.py``).
    """
    if migrate:
        await asyncio.to_thread(upgrade_head, database_url)
    store = open_store(database_url, connections=connections)
    metrics.watch_store(store)
    notifier = make_notifier(store, notify)
    try:
        await notifier.start()
    except BaseException:
        await store.close()
        raise
    built = await build_server(
        address,
        store,
        notifier,
        worker_token=worker_token,
        bot_levels=bot_levels,
        lease_seconds=lease_seconds,
        credentials=credentials,
        catch_up_seconds=catch_up_seconds,
    )
    await built.start()
    sweeper = Sweeper(built.app, sweep or SweepSettings.from_env())
    sweeper.start()
    if ready is not None:
        ready(built.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await sweeper.stop()
        await built.stop(grace=5.0)
        await notifier.stop()
        await store.close()
