"""Fixtures for the replay tests: real service logs, played through the application layer."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from parlour.service.app.parlour import Parlour
from parlour.service.notify import make_notifier
from parlour.service.store.protocol import EventStore, StoredEvent
from tests.replay.games import open_store, play_game

Logs = dict[str, list[StoredEvent]]

#: one full game of each kind, at a seat count that exercises it
LOGGED_GAMES = {"wizard": 4, "crazy8s": 3, "kaiser": 4, "hearts": 4}


@pytest.fixture(scope="session")
def service_logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logs]:
    """game id -> the event log of one random full game played through the service."""
    folder: Path = tmp_path_factory.mktemp("service-logs")
    store = open_store(f"sqlite:///{folder / 'parlour.sqlite3'}")
    app = Parlour(store, make_notifier(store))

    async def play_all() -> dict[str, list[StoredEvent]]:
        logs = {}
        try:
            for number, (game, seats) in enumerate(LOGGED_GAMES.items()):
                played = await play_game(app, game, seats, random.Random(number))
                logs[game] = await store.read(played.table_id)
        finally:
            await store.close()
        return logs

    yield asyncio.run(play_all())


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[EventStore]:
    """A migrated SQLite event store in the test's own folder."""
    store = open_store(f"sqlite:///{tmp_path / 'parlour.sqlite3'}")
    yield store
    await store.close()
