"""The application built as the composition root builds it, over the memory store.

Every test here calls the use cases directly (the :class:`Parlour` facade),
with no gRPC server running and no database: ``bootstrap.assemble`` is given
a :class:`MemoryEventStore`, the in-process notifier and a seeded dealer.
The store is the referee: a test reads its log to see what a use case
appended, and folds it to know the true state of a game.

:class:`RacingStore` is the fake that loses races on purpose: before its
next append it lets another replica (over the same memory) append first.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest

from parlour.engine.base import GameState
from parlour.service import bootstrap
from parlour.service.app import duties
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain.fold import fold
from parlour.service.notify import make_notifier
from parlour.service.store.memory import MemoryEventStore
from parlour.service.store.protocol import EventStore, StoredEvent, utcnow

#: the AI workers' shared secret in these tests
WORKER_TOKEN = "worker-secret"
#: the bot levels the catalogue publishes in these tests (HostTable refuses others)
BOT_LEVELS = {"hearts": ("random", "easy", "normal")}
#: how often a Watch re-reads the store on its own: never within a test, so that a
#: watcher that wakes was woken by the notifier
NO_CATCH_UP = 3600.0

#: small settings where a game has them: real full games, quickly
SMALL: dict[str, dict[str, object]] = {
    "wizard": {"rounds": "5"},
    "crazy8s": {"rounds": 1},
    "kaiser": {"target": 32},
    "hearts": {},
}


class RacingStore(MemoryEventStore):
    """A memory store whose next appends come second: before each, the next of
    :meth:`lose_to`'s rivals runs first (another replica's use case, over
    :meth:`replica`), then the append is tried as it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self._rivals: list[Callable[[], Awaitable[object]]] = []
        #: what each rival answered, or the error it raised
        self.rivals_answered: list[object] = []

    def lose_to(self, *rivals: Callable[[], Awaitable[object]]) -> None:
        self._rivals.extend(rivals)

    async def append(self, *args: Any, **kwargs: Any) -> list[StoredEvent]:
        if self._rivals:
            rival = self._rivals.pop(0)
            try:
                self.rivals_answered.append(await rival())
            except Exception as error:  # kept for the test to look at
                self.rivals_answered.append(error)
        return await super().append(*args, **kwargs)


async def build(store: EventStore, seed: int = 7) -> Parlour:
    """A replica's application over ``store``, built by the composition root."""
    settings = bootstrap.Settings(
        address="127.0.0.1:0",
        migrate=False,
        worker_token=WORKER_TOKEN,
        bot_levels=BOT_LEVELS,
        catch_up_seconds=NO_CATCH_UP,
    )
    replica = await bootstrap.assemble(
        settings, store, make_notifier(store), rng=random.Random(seed)
    )
    return replica.app


@pytest.fixture
async def store() -> RacingStore:
    return RacingStore()


@pytest.fixture
async def app(store: RacingStore) -> AsyncIterator[Parlour]:
    parlour = await build(store)
    yield parlour
    await store.close()


@pytest.fixture
async def other(store: RacingStore) -> Parlour:
    """A second replica: its own cache and notifier, over the same memory."""
    return await build(store.replica(), seed=8)


@dataclass
class Seated:
    """A table and every token handed out at it."""

    app: Parlour
    table_id: str
    host_token: str
    tokens: dict[int, str] = field(default_factory=dict)

    def seat(self, seat: int) -> Credentials:
        return Credentials(seat_token=self.tokens[seat])

    @property
    def host(self) -> Credentials:
        return Credentials(host_token=self.host_token)


async def host_full(
    app: Parlour, game: str, seats: int, options: Mapping[str, object] | None = None
) -> Seated:
    """A table of people, every seat taken (the host in seat 0), not started."""
    hosted = await app.host_table(
        game,
        seats,
        SMALL[game] if options is None else options,
        host_player_name="Ada",
        host_takes_seat=True,
    )
    assert hosted.seat == 0
    seated = Seated(app, hosted.table.table_id, hosted.host_token, {0: hosted.seat_token})
    for number in range(1, seats):
        joined = await app.join(seated.table_id, f"Player {number}")
        seated.tokens[joined.seat] = joined.seat_token
    return seated


async def playing(
    app: Parlour, game: str = "hearts", seats: int = 4, options: Mapping[str, object] | None = None
) -> Seated:
    """A started table of people."""
    seated = await host_full(app, game, seats, options)
    await app.start(seated.table_id, seated.host)
    return seated


async def log(store: EventStore, table_id: str) -> list[tuple[int, str]]:
    """The table's log as (seq, type)."""
    return [(event.seq, event.type) for event in await store.read(table_id)]


async def truth(store: EventStore, table_id: str) -> GameState:
    """The game as the log has it (hidden cards and all)."""
    state = fold(await store.read(table_id)).state
    assert state is not None
    return state


def later(hours: float = 1.0) -> datetime:
    return utcnow() + timedelta(hours=hours)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[datetime], None]:
    """Set the time the duties read: they take no clock, so their module's ``utcnow``
    is replaced by a fake one (deadlines come from the log's times, as always)."""

    def set_to(when: datetime) -> None:
        monkeypatch.setattr(duties, "utcnow", lambda: when)

    return set_to
