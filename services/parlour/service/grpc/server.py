"""The gRPC server: the servicers bound to an address, with health and reflection.

:func:`build_server` registers the servicers (``servicers.py``) over an
application and its bot turns, both made by the composition root
(``parlour.service.bootstrap``), behind the observing and limiting
interceptors. Health checking and server reflection are registered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from parlour.service.app.analysis import Analyses
from parlour.service.app.bots import BotTurns
from parlour.service.app.parlour import Parlour
from parlour.service.grpc import limits, rates
from parlour.service.grpc.accounts import AccountServicer
from parlour.service.grpc.analysis import AnalysisServicer
from parlour.service.grpc.home import HomeServicer
from parlour.service.grpc.observe import ObservingInterceptor
from parlour.service.grpc.reflection import enable_reflection
from parlour.service.grpc.servicers import (
    BotServicer,
    CatalogueServicer,
    LobbyServicer,
    PlayServicer,
    ReplayServicer,
)
from parlour.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    analysis_pb2,
    analysis_pb2_grpc,
    bots_pb2,
    bots_pb2_grpc,
    catalogue_pb2,
    catalogue_pb2_grpc,
    home_pb2,
    home_pb2_grpc,
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
class GrpcServer:
    """A bound (not yet started) gRPC server and the application it serves."""

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
    app: Parlour,
    bot_turns: BotTurns,
    *,
    bot_levels: Mapping[str, Sequence[str]] | None = None,
    credentials: grpc.ServerCredentials | None = None,
    limiting: rates.Rates | None = None,
    worker_token: str | None = None,
    trusted_proxies: Sequence[str] = (),
    analyses: Analyses | None = None,
) -> GrpcServer:
    """The services over ``app`` bound to ``address`` ("host:port"; port 0 picks a free port).

    ``bot_levels`` is published in the catalogue; ``credentials`` serve TLS
    instead of plaintext. Every RPC is logged and measured
    (:mod:`parlour.service.grpc.observe`). ``limiting`` holds every caller to
    its rates and caps (:mod:`parlour.service.grpc.rates`; None: the defaults);
    calls with ``worker_token`` are exempt, and a peer in ``trusted_proxies``
    (networks) may name the address it forwards for. ``analyses`` hands the
    analysis jobs to workers (None: with the default lease).
    """
    analyses = analyses or Analyses(app, worker_token=worker_token)
    # no SO_REUSEPORT: a second replica started on a busy port fails instead of sharing it
    server = grpc.aio.server(
        # the observer outermost, so that a request the limits refuse is logged and
        # counted too; then the limits: past them, a request is refused before any
        # servicer reads it; the rates between the two, the first defence against a flood
        interceptors=[
            ObservingInterceptor(),
            rates.RatesInterceptor(
                limiting or rates.Rates(),
                worker_token=worker_token,
                trusted_proxies=trusted_proxies,
            ),
            limits.LimitsInterceptor(),
        ],
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
            BotServicer(bot_turns, analyses),
            _service_name(bots_pb2, "BotService"),
        ),
        (
            accounts_pb2_grpc.add_AccountServiceServicer_to_server,
            AccountServicer(app.accounts, app.store.accounts),
            _service_name(accounts_pb2, "AccountService"),
        ),
        (
            home_pb2_grpc.add_HomeServiceServicer_to_server,
            HomeServicer(app),
            _service_name(home_pb2, "HomeService"),
        ),
        (
            analysis_pb2_grpc.add_AnalysisServiceServicer_to_server,
            AnalysisServicer(app, analyses),
            _service_name(analysis_pb2, "AnalysisService"),
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
    return GrpcServer(server, port, app, health_servicer)
