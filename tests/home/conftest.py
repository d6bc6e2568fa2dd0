"""A home for players (issue 31): the application over a real backend, and whole games
played through it by accounts, bots and people without an account.

``home`` is the application as the composition root builds it, over an SQLite
file or a Postgres database (``store_url``, both backends), migrated to head.
:func:`play_game` hosts a table with the seats it is given, seats everyone,
starts it and plays it to the end with random legal actions (bots through the
worker token, as an AI worker acts).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import pytest

from parlour.service import bootstrap
from parlour.service.app.parlour import Credentials, Parlour, SeatChoice
from parlour.service.domain.fold import Folded, fold
from parlour.service.domain.statuses import SeatKind
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import EventStore

WORKER = Credentials(worker_token="worker-secret", worker_id="w1")
BOT_LEVELS = {
    "crazy8s": ("random", "easy", "normal"),
    "kaiser": ("random", "normal"),
    "hearts": ("random", "easy", "normal", "hard", "expert"),
    "wizard": ("random", "normal"),
}
#: small settings: real full games, quickly
SMALL: dict[str, dict[str, object]] = {
    "wizard": {"rounds": "5"},
    "crazy8s": {"rounds": 1},
    "kaiser": {"target": 32},
    "hearts": {},
}


@dataclass
class Home:
    store: EventStore
    app: Parlour


async def build(store: EventStore) -> Parlour:
    settings = bootstrap.Settings(
        address="127.0.0.1:0",
        migrate=False,
        worker_token=WORKER.worker_token,
        bot_levels=BOT_LEVELS,
        catch_up_seconds=3600.0,
    )
    replica = await bootstrap.assemble(settings, store, make_notifier(store), rng=random.Random(7))
    return replica.app


@pytest.fixture
async def home(store_url: str) -> AsyncIterator[Home]:
    upgrade_head(store_url)
    store = open_store(store_url)
    try:
        yield Home(store, await build(store))
    finally:
        await store.close()


async def account(app: Parlour, name: str | None = None) -> str:
    """A new account (a guest, or named ``name``): its id."""
    signed = await app.accounts.authenticate_device(secrets.token_urlsafe(32))
    if name is not None:
        caller = await app.accounts.caller(signed.token)
        await app.accounts.claim_name(caller, name, "correct horse")
    return signed.account.account_id


#: a seat: an account id, ("bot", level), or None for a person without an account
Who = str | tuple[str, str] | None


def _credentials(who: Who) -> Credentials:
    return Credentials(account_id=who) if isinstance(who, str) else Credentials()


async def host_and_start(
    app: Parlour, game: str, seats: Sequence[Who]
) -> tuple[str, dict[int, Credentials]]:
    setup = [
        SeatChoice(SeatKind.BOT, who[1]) if isinstance(who, tuple) else SeatChoice()
        for who in seats
    ]
    first = next(number for number, who in enumerate(seats) if not isinstance(who, tuple))
    hosted = await app.host_table(
        game,
        len(seats),
        SMALL[game],
        setup,
        host_player_name=f"P{first}",
        host_takes_seat=True,
        host_seat=first,
        credentials=_credentials(seats[first]),
    )
    table_id = hosted.table.table_id
    tokens = {first: Credentials(seat_token=hosted.seat_token)}
    for number, who in enumerate(seats):
        if number == first or isinstance(who, tuple):
            continue
        joined = await app.join(table_id, f"P{number}", number, credentials=_credentials(who))
        tokens[number] = Credentials(seat_token=joined.seat_token)
    for number, who in enumerate(seats):
        if isinstance(who, tuple):
            tokens[number] = WORKER
    await app.start(table_id, Credentials(host_token=hosted.host_token))
    return table_id, tokens


async def play_game(
    home: Home, game: str, seats: Sequence[Who], rng: random.Random, *, max_moves: int = 5000
) -> str:
    """Host, seat, start and play a table to its end; its id."""
    table_id, tokens = await host_and_start(home.app, game, seats)
    await play_out(home, table_id, tokens, rng, max_moves=max_moves)
    return table_id


async def play_out(
    home: Home,
    table_id: str,
    tokens: dict[int, Credentials],
    rng: random.Random,
    *,
    max_moves: int = 5000,
    moves: int | None = None,
) -> Folded:
    """Play random legal actions until the game is over (or ``moves`` were made)."""
    mirror = Folded()
    for _ in range(max_moves if moves is None else moves):
        fold(await home.store.read(table_id, mirror.version), mirror)
        state = mirror.state
        assert state is not None
        if state.is_over:
            return mirror
        seat = rng.choice(state.to_act())
        legal = state.legal_actions(seat)
        pick = rng.randrange(len(legal)) + 1
        await home.app.act(table_id, seat, tokens[seat], pick, expected_version=mirror.version)
    if moves is None:
        raise AssertionError(f"{table_id} not over after {max_moves} moves")
    fold(await home.store.read(table_id, mirror.version), mirror)
    return mirror
