"""Helpers for the service tests: a running service over real gRPC, seated tables,
random play through the contract, and the ground truth to check views against."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from parlour.client import ParlourClient, Seat
from parlour.engine.cards import Card
from parlour.service.bootstrap import Settings, assemble
from parlour.service.domain.fold import Folded, fold
from parlour.service.grpc.rates import Rates
from parlour.service.grpc.server import GrpcServer
from parlour.service.notify import Notifier, make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import EventStore
from parlour.v1 import play_pb2
from tests.dblog import DbLog


@dataclass
class Service:
    """A game service listening on a free port, with a client, its store and the
    database read directly (``log``, the ground truth)."""

    store: EventStore
    server: GrpcServer
    notifier: Notifier
    client: ParlourClient
    log: DbLog

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def event_count(self, table_id: str) -> int:
        return self.log.last_seq(table_id)


#: Rates for tests that play whole games as fast as a loop can from one address
#: (every seat of a table, dozens of tables): raised on purpose, each far above
#: what a person does, and still limits (tests/service/test_rates.py holds the defaults).
HAMMER_RATES = Rates(
    host_per_minute=100_000,
    join_per_minute=100_000,
    act_per_second=100_000,
    view_per_second=100_000,
    watch_per_minute=100_000,
    watch_streams=10_000,
    spectators_per_table=10_000,
    sign_in_per_minute=100_000,
    devices_per_minute=100_000,
    chat_per_ten_seconds=10_000,
    analysis_per_minute=100_000,
)


@asynccontextmanager
async def running_service(
    url: str,
    *,
    migrate: bool = True,
    worker_token: str | None = None,
    rates: Rates = HAMMER_RATES,
    trusted_proxies: tuple[str, ...] = (),
    **settings: Any,
) -> AsyncIterator[Service]:
    """A service over ``url``; ``settings`` are further :class:`Settings` fields."""
    if migrate:
        upgrade_head(url)
    store = open_store(url)
    notifier = make_notifier(store)
    await notifier.start()
    chosen = Settings(
        address="127.0.0.1:0",
        worker_token=worker_token,
        rates=rates,
        trusted_proxies=trusted_proxies,
        **settings,
    )
    server = (await assemble(chosen, store, notifier)).server
    await server.start()
    client = ParlourClient(f"127.0.0.1:{server.port}")
    try:
        yield Service(store, server, notifier, client, DbLog(url))
    finally:
        await client.close()
        await server.stop(0)
        await notifier.stop()
        await store.close()


@dataclass
class Table:
    table_id: str
    host_token: str
    seats: list[Seat]


async def seated_table(
    client: ParlourClient,
    game: str,
    seats: int,
    options: dict[str, object] | None = None,
    *,
    start: bool = True,
) -> Table:
    """Host a table of people, fill every seat, and (by default) start it."""
    hosted = await client.host_table(
        game, seats, options=options, host_player_name="Host", host_takes_seat=True
    )
    table_id = hosted.table.table_id
    taken = [client.seat(table_id, hosted.seat, hosted.seat_token)]
    for number in range(1, seats):
        joined = await client.join_table(table_id, f"Player {number}")
        taken.append(client.seat(table_id, joined.seat, joined.seat_token))
    taken.sort(key=lambda seat: seat.seat)
    if start:
        await client.start_table(table_id, hosted.host_token)
    return Table(table_id, hosted.host_token, taken)


@dataclass
class Truth:
    """The real game, folded straight from the store: what each seat really holds."""

    log: DbLog
    table_id: str
    folded: Folded = field(default_factory=Folded)

    def at(self, version: int) -> Folded:
        if version < self.folded.version:
            self.folded = Folded()
        fold(self.log.read(self.table_id, self.folded.version, version), self.folded)
        return self.folded


def shown_cards(view: play_pb2.View) -> set[str]:
    """Every card a view shows, except the seat's own passed cards (it chose them
    and may remember wherever they went) and the turned-up card (turned face up
    for everyone; in Crazy 8s it may later be reshuffled into the stock and drawn)."""
    cards = set(view.hand) | set(view.received_cards)
    for trick in [*view.tricks, view.current_trick, view.last_trick]:
        cards |= {play.card for play in trick.plays}
    if view.top_card:
        cards.add(view.top_card)
    cards |= {legal.action.card for legal in view.legal_actions if legal.action.card}
    return cards


def assert_no_hidden_cards(truth: Truth, version: int, view: play_pb2.View) -> None:
    """The view shows the seat's own hand exactly and none of another seat's cards."""
    state = truth.at(version).state
    assert state is not None
    me = view.seat if view.HasField("seat") else None
    if me is None:
        assert not view.hand, "a spectator sees no hand"
    else:
        assert sorted(view.hand) == sorted(str(card) for card in state.hand(me))
    shown = shown_cards(view)
    for other in range(state.seats):
        if other != me:
            hidden = {str(card) for card in state.hand(other)}
            assert not (shown & hidden), f"seat {me} sees seat {other}'s {shown & hidden}"


async def play_randomly(
    table: Table,
    rng: random.Random,
    *,
    truth: Truth | None = None,
    max_moves: int = 5000,
) -> play_pb2.View:
    """Play to the end: the seat to act picks a random legal action id from its view."""
    first = await table.seats[0].view()
    to_act = list(first.view.to_act)
    for _ in range(max_moves):
        if not to_act:
            final = await table.seats[0].view()
            assert final.view.is_over, "nobody to act but the game is not over"
            return final.view
        seat = table.seats[rng.choice(to_act)]
        current = await seat.view()
        if truth is not None:
            assert_no_hidden_cards(truth, current.version, current.view)
        legal = current.view.legal_actions
        assert legal, f"seat {seat.seat} is to act but has no legal action"
        assert [legal_action.id for legal_action in legal] == list(range(1, len(legal) + 1))
        choice = rng.choice(legal)
        done = await seat.act(choice.id, expected_version=current.version)
        assert done.version > current.version and not done.duplicate
        if truth is not None:
            assert_no_hidden_cards(truth, done.version, done.view)
        to_act = list(done.view.to_act)
    raise AssertionError(f"game not over after {max_moves} moves")


def card(code: str) -> Card:
    return Card.parse(code)
