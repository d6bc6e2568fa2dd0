"""A real game service in-process (SQLite, port 0) for the terminal-client tests,
and helpers to drive the app with the pilot and save its screenshots."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from textual.pilot import Pilot

from parlour.ai.worker import Worker, WorkerConfig
from parlour.client import ParlourClient
from parlour.service.bootstrap import Settings, assemble
from parlour.service.grpc.server import GrpcServer
from parlour.service.notify import Notifier, make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import EventStore
from parlour.tui.app import ParlourApp
from tests.dblog import DbLog

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "tui"
SIZES = ((80, 24), (160, 48))
#: The shared secret that lets a worker act for bot seats (`PARLOUR_WORKER_TOKEN`).
WORKER_TOKEN = "tui-test-worker"


def bot_levels() -> dict[str, tuple[str, ...]]:
    """What `parlour serve` publishes: the AI package's levels, if it is installed."""
    try:
        from parlour.ai.registry import LEVELS
    except ImportError:
        return {}
    return dict(LEVELS)


@dataclass
class Service:
    """A running game service; ``restart`` stops it and serves the same database again."""

    url: str
    store: EventStore
    notifier: Notifier
    server: GrpcServer
    client: ParlourClient
    seed: int = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    @property
    def log(self) -> DbLog:
        """The database read directly (the ground truth)."""
        return DbLog(self.url)

    async def stop(self) -> None:
        await self.server.stop(0)
        await self.notifier.stop()
        await self.store.close()

    async def start(self, port: int = 0) -> None:
        self.store = open_store(self.url)
        self.notifier = make_notifier(self.store)
        await self.notifier.start()
        settings = Settings(
            address=f"127.0.0.1:{port}", bot_levels=bot_levels(), worker_token=WORKER_TOKEN
        )
        # Seeded deals make the scenarios repeatable (the service shuffles with this RNG).
        replica = await assemble(settings, self.store, self.notifier, rng=random.Random(self.seed))
        self.server = replica.server
        await self.server.start()

    async def restart(self, down_for: float = 0.3) -> None:
        port = self.server.port
        await self.stop()
        await asyncio.sleep(down_for)
        await self.start(port)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Service]:
    url = f"sqlite:///{tmp_path / 'parlour.sqlite3'}"
    upgrade_head(url)
    running = Service.__new__(Service)
    running.url, running.seed = url, 7
    await running.start()
    running.client = ParlourClient(running.address)
    try:
        yield running
    finally:
        await running.client.close()
        await running.stop()


@pytest.fixture
def make_app(service: Service, tmp_path: Path) -> Callable[[], ParlourApp]:
    """A fresh app for the service, keeping its seats in the test's own state directory."""
    return lambda: ParlourApp(service.address, state_dir=tmp_path / "state", language="en")


async def wait_until(
    pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 20.0, what: str = ""
) -> None:
    """Let the app run until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.02)


async def shoot(pilot: Pilot[None], name: str) -> list[Path]:
    """Save SVG screenshots of the current screen at 80x24 and 160x48."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    saved = []
    original = pilot.app.size
    for width, height in SIZES:
        await pilot.resize_terminal(width, height)
        await pilot.pause(0.05)
        filename = f"{name}-{width}x{height}.svg"
        pilot.app.save_screenshot(filename, str(ARTIFACTS))
        saved.append(ARTIFACTS / filename)
    await pilot.resize_terminal(original.width, original.height)
    await pilot.pause(0.05)
    return saved


@asynccontextmanager
async def ai_worker(service: Service) -> AsyncIterator[Worker]:
    """An AI worker playing the service's bot seats for the duration of the block."""
    worker = Worker(
        WorkerConfig(
            servers=(service.address,),
            worker_token=WORKER_TOKEN,
            worker_id="tui-tests",
            wait_seconds=1.0,
        )
    )
    running = asyncio.create_task(worker.run())
    try:
        yield worker
    finally:
        worker.stop()
        await running
