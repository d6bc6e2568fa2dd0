"""Playing random full games through the application layer, for the replay tests.

Each seat is a person holding a seat token; moves are random legal actions
chosen on a mirror of the game (folded from the store, then kept up to date
locally, so choosing costs no extra database read). The service deals with
its own shuffles, as in production.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime

from parlour.engine.actions import Action
from parlour.engine.registry import get_game
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain.fold import Folded, fold
from parlour.service.domain.statuses import EventType
from parlour.service.store.open import open_store as store_for
from parlour.service.store.open import upgrade_head
from parlour.service.store.protocol import EventStore, StoredEvent

#: small settings where a game has them: real full games, quickly
SMALL_OPTIONS: dict[str, dict[str, object]] = {
    "wizard": {"rounds": "5"},
    "crazy8s": {"rounds": 1},
    "kaiser": {"target": 32},
    "hearts": {},
}


@dataclass
class Played:
    """A table being (or having been) played, with every seat's token."""

    table_id: str
    seat_tokens: dict[int, str]
    host_token: str
    mirror: Folded

    def credentials(self, seat: int) -> Credentials:
        return Credentials(seat_token=self.seat_tokens[seat])


async def seat_table(
    app: Parlour, game: str, seats: int, options: dict[str, object] | None = None
) -> Played:
    """Host a table of people, take every seat, start it."""
    hosted = await app.host_table(
        game,
        seats,
        SMALL_OPTIONS[game] if options is None else options,
        host_player_name="Ada",
        host_takes_seat=True,
    )
    table_id = hosted.table.table_id
    tokens = {hosted.seat: hosted.seat_token} if hosted.seat is not None else {}
    for number in range(1, seats):
        joined = await app.join(table_id, f"Player {number}")
        tokens[joined.seat] = joined.seat_token
    await app.start(table_id, Credentials(host_token=hosted.host_token))
    mirror = fold(await app.store.read(table_id))
    return Played(table_id, tokens, hosted.host_token, mirror)


async def play_moves(app: Parlour, played: Played, rng: random.Random, moves: int) -> None:
    """Play up to ``moves`` random legal actions (fewer if the game ends)."""
    mirror = played.mirror
    store = app.store
    for _ in range(moves):
        state = mirror.state
        assert state is not None
        if state.is_over:
            return
        seat = state.to_act()[0]
        action = rng.choice(state.legal_actions(seat))
        snap = await app.act(
            played.table_id,
            seat,
            played.credentials(seat),
            action,
            expected_version=mirror.version,
        )
        if snap.version == mirror.version + 1:
            mirror.apply(_action_event(played.table_id, mirror.version + 1, seat, action))
        else:  # a deal (or the end) followed: read what the service recorded
            fold(await store.read(played.table_id, mirror.version), mirror)


async def play_game(app: Parlour, game: str, seats: int, rng: random.Random) -> Played:
    """A whole random game at a new table."""
    played = await seat_table(app, game, seats)
    await play_moves(app, played, rng, 1_000_000)
    return played


def seat_counts(game: str) -> list[int]:
    info = get_game(game)
    return list(range(info.min_seats, info.max_seats + 1))


def open_store(url: str) -> EventStore:
    """A store over ``url``, migrated to the newest schema."""
    upgrade_head(url)
    return store_for(url)


def _action_event(table_id: str, seq: int, seat: int, action: Action) -> StoredEvent:
    payload = {"seat": seat, "action": str(action)}
    return StoredEvent(
        table_id, seq, EventType.ACTION_TAKEN, 1, payload, "", None, datetime.now(UTC)
    )


def play_batch(batch: list[tuple[str, int, int]], directory: str) -> list[dict[str, object]]:
    """Play ``(game, seats, seed)`` games on a fresh SQLite file, export each log.

    Returns, per game, what the service stored: the digest of every event
    that has one, the final scores and winners, and where the log went.
    Runs in a worker process (see test_determinism).
    """
    import asyncio
    from pathlib import Path

    from parlour.replay.check import export_game
    from parlour.service.notify import make_notifier

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    store = open_store(f"sqlite:///{folder / 'games.sqlite3'}")
    app = Parlour(store, make_notifier(store))
    results: list[dict[str, object]] = []

    async def play_all() -> None:
        for game, seats, seed in batch:
            played = await play_game(app, game, seats, random.Random(seed))
            path = folder / f"{game}-{seats}-{seed}.jsonl"
            with path.open("w", encoding="utf-8") as out:
                await export_game(store, played.table_id, out)
            events = await store.read(played.table_id)
            finished = [event for event in events if event.type == "GameFinished"]
            results.append(
                {
                    "path": str(path),
                    "game": game,
                    "digests": [[event.seq, event.digest] for event in events if event.digest],
                    "dealt_or_acted": sum(
                        event.type in ("CardsDealt", EventType.ACTION_TAKEN) for event in events
                    ),
                    "scores": finished[0].payload["scores"] if finished else None,
                    "winners": finished[0].payload["winners"] if finished else None,
                }
            )

    async def play_and_close() -> None:
        try:
            await play_all()
        finally:
            await store.close()

    asyncio.run(play_and_close())
    return results


def play_job(job: tuple[list[tuple[str, int, int]], str]) -> list[dict[str, object]]:
    """:func:`play_batch` for ``Pool.imap_unordered`` (one argument)."""
    return play_batch(*job)


async def load_into_store(store: EventStore, events: list[StoredEvent], table_id: str) -> None:
    """Record an exported log as table ``table_id``, events exactly as given."""
    from parlour.service.domain.upcast import upcast
    from parlour.service.store.protocol import NewEvent, TableRow

    setup = upcast(events[0]).payload
    finished = any(event.type == "GameFinished" for event in events)
    row = TableRow(
        table_id=table_id,
        game=str(setup["game"]),
        seats=int(setup["seats"]),
        options=dict(setup["options"]),
        status="finished" if finished else "playing",
        host_token_hash="",
        version=len(events),
        name=str(setup.get("name", "")),
    )
    copies = [
        NewEvent(event.type, event.payload, event.digest, event.schema_version) for event in events
    ]
    await store.create_table(row, copies)
