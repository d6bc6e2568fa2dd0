"""Helpers for the AI worker tests: a game service with a worker token and a
chosen lease, tables with bot seats, and worker clients."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from parlour.client import ParlourClient, RetryPolicy
from parlour.service.bootstrap import Settings, assemble
from parlour.service.grpc.server import GrpcServer
from parlour.service.notify import Notifier, make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import EventStore
from tests.dblog import DbLog

TOKEN = "worker-secret"


@dataclass
class BotService:
    """A running game service and a (person's) client of it."""

    store: EventStore
    server: GrpcServer
    notifier: Notifier
    client: ParlourClient
    log: DbLog  # the database read directly: the ground truth

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def worker(self, worker_id: str, token: str | None = TOKEN) -> ParlourClient:
        """A client acting as AI worker ``worker_id`` (close it after use)."""
        return ParlourClient(
            self.address, worker_token=token, worker_id=worker_id, retry=RetryPolicy(attempts=1)
        )


@asynccontextmanager
async def bot_service(
    url: str, *, lease_seconds: float = 5.0, worker_token: str | None = TOKEN
) -> AsyncIterator[BotService]:
    upgrade_head(url)
    store = open_store(url)
    notifier = make_notifier(store)
    await notifier.start()
    settings = Settings(
        address="127.0.0.1:0", worker_token=worker_token, lease_seconds=lease_seconds
    )
    server = (await assemble(settings, store, notifier)).server
    await server.start()
    client = ParlourClient(f"127.0.0.1:{server.port}")
    try:
        yield BotService(store, server, notifier, client, DbLog(url))
    finally:
        await client.close()
        await server.stop(0)
        await notifier.stop()
        await store.close()


async def bot_table(
    client: ParlourClient,
    game: str,
    seats: int,
    options: dict[str, object] | None = None,
    *,
    level: str = "",
    start: bool = True,
) -> str:
    """Host (and start) a table where every seat is a bot; its table id."""
    hosted = await client.host_table(
        game, seats, options=options, seat_setup=[("bot", level)] * seats
    )
    if start:
        await client.start_table(hosted.table.table_id, hosted.host_token)
    return hosted.table.table_id
