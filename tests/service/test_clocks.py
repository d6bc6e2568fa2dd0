"""Turn clocks, away seats and table expiry, on both backends (issue 12).

A person's clock runs out: the sweeper records SeatAway, an AI worker plays
the seat, the person takes it back with its token (SeatReturned). A deadline
is kept through a restart of every replica: the one started afterwards
fires it. An open table nobody starts expires; a game nobody plays ends as
abandoned. Each test reads the replay of the table it made.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import grpc
import pytest

from parlour.ai.worker import Worker, WorkerConfig
from parlour.client import ParlourClient, ParlourError
from parlour.service.app.sweeper import Sweeper, SweepSettings
from parlour.service.domain.clock import TurnClock
from parlour.service.domain.fold import fold
from parlour.service.store.protocol import utcnow
from parlour.v1 import lobby_pb2, play_pb2, replay_pb2, replay_pb2_grpc
from tests.ai.bot_service import TOKEN, BotService, bot_service

FAST = 0.05  # the sweeper's interval in these tests


@asynccontextmanager
async def sweeping(
    service: BotService, *, open_table: float = 0, abandon: float = 0
) -> AsyncIterator[Sweeper]:
    sweeper = Sweeper(service.server.app, SweepSettings(FAST, open_table, abandon))
    sweeper.start()
    try:
        yield sweeper
    finally:
        await sweeper.stop()


@asynccontextmanager
async def worker(service: BotService) -> AsyncIterator[Worker]:
    config = WorkerConfig(
        servers=(service.address,), worker_token=TOKEN, worker_id="w1", wait_seconds=1.0
    )
    playing = Worker(config)
    task = asyncio.create_task(playing.run())
    try:
        yield playing
    finally:
        playing.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)


async def until(check: Callable[[], object], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


async def replay_types(service: BotService, table_id: str) -> list[tuple[str, str]]:
    async with grpc.aio.insecure_channel(service.address) as channel:
        stub = replay_pb2_grpc.ReplayServiceStub(channel)
        answer = await stub.GetReplay(replay_pb2.GetReplayRequest(table_id=table_id))
    return [(event.type, event.text) for event in answer.events]


async def person_and_bots(
    client: ParlourClient, game: str, seats: int, options: dict[str, object]
) -> tuple[str, str]:
    """A started table: the host in seat 0, bots elsewhere; (table id, seat token)."""
    hosted = await client.host_table(
        game,
        seats,
        options=options,
        seat_setup=[("person", "")] + [("bot", "")] * (seats - 1),
        host_player_name="Ada",
        host_takes_seat=True,
    )
    await client.start_table(hosted.table.table_id, hosted.host_token)
    return hosted.table.table_id, hosted.seat_token


async def test_a_bot_plays_for_a_person_whose_clock_ran_out_until_they_take_the_seat_back(
    store_url: str,
) -> None:
    async with bot_service(store_url) as service:
        client = service.client
        # Hearts opens with the pass: the person (seat 0) is to act at once, on a 3 s clock
        # (long enough that a loaded machine still sees time left at the first view)
        table_id, token = await person_and_bots(client, "hearts", 4, {"turn_seconds": 3})
        seat = client.seat(table_id, 0, token)
        view = (await seat.view()).view
        assert 0 in view.to_act
        assert 0 < view.players[0].time_left_ms <= 3000
        assert view.players[0].HasField("turn_deadline") and not view.players[0].away
        assert not view.players[1].HasField("turn_deadline")  # a bot has no clock
        async with sweeping(service), worker(service):
            await until(lambda: any(e.type == "SeatAway" for e in service.log.read(table_id)))
            log = service.log.read(table_id)
            away_at = next(e.seq for e in log if e.type == "SeatAway")
            # the worker plays the away seat's turn with the table's away bot level
            await until(
                lambda: any(
                    e.type == "ActionTaken" and e.payload["seat"] == 0
                    for e in service.log.read(table_id, away_at)
                )
            )
        view = (await seat.view()).view
        assert view.players[0].away and not view.players[0].HasField("turn_deadline")
        with pytest.raises(ParlourError) as refused:  # away: the person must come back first
            await seat.act("give 2C")
        assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION
        assert "ReturnToSeat" in refused.value.message
        back = await seat.return_to_seat()
        assert not back.view.players[0].away
        assert service.log.read(table_id)[-1].type == "SeatReturned"
        again = await seat.return_to_seat()  # nothing more to take back: nothing written
        assert again.version == back.version
        types = [kind for kind, _ in await replay_types(service, table_id)]
        assert types.index("SeatAway") < types.index("SeatReturned")
        texts = dict(await replay_types(service, table_id))
        assert "clock ran out" in texts["SeatAway"] and "is back" in texts["SeatReturned"]


async def test_a_deadline_fires_after_every_replica_was_restarted(store_url: str) -> None:
    async with bot_service(store_url) as first:
        table_id, token = await person_and_bots(first.client, "hearts", 4, {"turn_seconds": 1})
        rows = await first.store.turn_rows(table_id)
        # the deadline in the projection is the one the event log gives
        derived = fold(await first.store.read(table_id)).clock
        assert [(r.seat, r.deadline) for r in rows if r.kind == "person"] == [
            (0, derived.deadline(0))
        ]
    # nothing runs while the deadline passes; a fresh replica (new store, new cache) starts
    await asyncio.sleep(1.1)
    async with bot_service(store_url) as second:
        assert not any(e.type == "SeatAway" for e in second.log.read(table_id))
        async with sweeping(second) as sweeper:
            await until(lambda: any(e.type == "SeatAway" for e in second.log.read(table_id)))
            assert (await sweeper.sweep()).timed_out == 0  # fired once only
        view = (await second.client.get_view(table_id, 0, token)).view
        assert view.players[0].away
        rows = await second.store.turn_rows(table_id)
        assert all(r.kind == "bot" and r.deadline is None for r in rows)
        assert "SeatAway" in [kind for kind, _ in await replay_types(second, table_id)]


async def test_an_open_table_nobody_starts_expires(store_url: str) -> None:
    async with bot_service(store_url) as service:
        client = service.client
        hosted = await client.host_table("crazy8s", 3, host_player_name="Ada", host_takes_seat=True)
        table_id = hosted.table.table_id
        kept = await client.host_table("crazy8s", 2, seat_setup=[("bot", "")] * 2)  # no people
        async with sweeping(service, open_table=0.3):
            await until(lambda: service.log.table(table_id)["status"] == "expired")
        assert service.log.read(table_id)[-1].type == "TableExpired"
        assert service.log.table(kept.table.table_id)["status"] == "open"
        assert table_id not in [t.table_id for t in await client.list_tables()]
        expired = await client.list_tables(status="expired")
        assert [t.table_id for t in expired] == [table_id]
        with pytest.raises(ParlourError) as refused:
            await client.join_table(table_id, "Bo")
        assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION
        view = (await client.get_view(table_id)).view
        assert view.is_over and view.end_reason == play_pb2.END_REASON_EXPIRED
        assert view.table_status == lobby_pb2.TABLE_STATUS_EXPIRED
        assert [kind for kind, _ in await replay_types(service, table_id)][-1] == "TableExpired"


async def test_a_game_no_person_plays_ends_as_abandoned(store_url: str) -> None:
    async with bot_service(store_url) as service:
        client = service.client
        table_id, token = await person_and_bots(client, "crazy8s", 3, {})
        before = (await client.get_view(table_id)).view
        assert len(await service.store.turn_rows(table_id)) == 1
        async with sweeping(service, abandon=0.3):
            await until(lambda: service.log.table(table_id)["status"] == "abandoned")
        last = service.log.read(table_id)[-1]
        assert last.type == "GameAbandoned"
        assert last.payload == {"scores": list(before.scores), "winners": []}
        assert await service.store.turn_rows(table_id) == []  # no bot work left
        view = (await client.get_view(table_id, 0, token)).view
        assert view.is_over and view.end_reason == play_pb2.END_REASON_ABANDONED
        assert list(view.winners) == [] and list(view.scores) == list(before.scores)
        assert view.table_status == lobby_pb2.TABLE_STATUS_ABANDONED
        assert not view.legal_actions
        with pytest.raises(ParlourError) as refused:
            await client.act(table_id, 0, token, "draw")
        assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION
        playing = await client.list_tables(status="playing")
        assert table_id not in [t.table_id for t in playing]
        replayed = await replay_types(service, table_id)
        assert replayed[-1][0] == "GameAbandoned" and "no winner" in replayed[-1][1]
        # the whole log is shown once the game is over (deals included)
        async with grpc.aio.insecure_channel(service.address) as channel:
            stub = replay_pb2_grpc.ReplayServiceStub(channel)
            answer = await stub.GetReplay(replay_pb2.GetReplayRequest(table_id=table_id))
        assert answer.finished
        dealt = next(e for e in answer.events if e.type == "CardsDealt")
        assert "cards" in json.loads(dealt.payload_json)


async def test_only_appends_that_leave_a_bot_to_act_wake_the_workers(store_url: str) -> None:
    async with bot_service(store_url) as service:
        client = service.client
        hosted = await client.host_table("crazy8s", 2, host_player_name="Ada", host_takes_seat=True)
        mark = service.notifier.changes
        await client.join_table(hosted.table.table_id, "Bo")  # a lobby change: no bot turn
        await asyncio.sleep(0.2)  # (a NOTIFY would have come back by now)
        assert service.notifier.changes == mark
        await person_and_bots(client, "crazy8s", 2, {})  # a bot or the person acts first
        rows = await service.store.bot_turns(utcnow())
        woken = service.notifier.changes != mark
        assert woken == bool(rows)


def test_a_turn_clock_draws_on_the_bank_and_restarts_for_a_seat_that_acts_again() -> None:
    """The clock folded from event times alone: 10 s a turn, a 30 s bank."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    at = lambda seconds: start + timedelta(seconds=seconds)  # noqa: E731
    clock = TurnClock.of({"turn_seconds": 10, "bank_seconds": 30})
    clock.track([0], at(0))
    assert clock.deadline(0) == at(40)  # the turn and the whole bank
    clock.track([0], at(25), acted=0)  # 15 s over: the bank has 15 left; a new turn
    assert clock.deadline(0) == at(25 + 10 + 15)
    clock.track([1], at(26), acted=0)
    assert clock.deadline(0) is None and clock.deadline(1) == at(26 + 40)
    clock.track([], at(27), acted=1)  # waiting for a deal: nobody's clock runs
    assert clock.since == {}
    clock.track([0, 1], at(30))
    clock.went_away(0)
    assert clock.deadline(0) is None  # a bot plays it: no clock
    rows = clock.rows("hearts", bot_seats=[])
    assert [(row.seat, row.kind, row.deadline) for row in rows] == [
        (0, "bot", None),
        (1, "person", at(70)),
    ]
    clock.came_back(0, at(33))
    assert clock.deadline(0) == at(33 + 10 + 15)  # a fresh turn, what is left of the bank
    assert TurnClock.of({}).deadline(0) is None  # no clock at all


def test_the_turns_projection_holds_only_turns_someone_must_act_for() -> None:
    """A bot's turn (the workers claim it) and a person's turn under a clock (the
    sweeper fires it) get a row; a person's turn with no clock gets none."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    unclocked = TurnClock.of({})
    unclocked.track([0, 1, 2], at)
    rows = unclocked.rows("wizard", bot_seats=[2])
    assert [(row.seat, row.kind, row.deadline) for row in rows] == [(2, "bot", None)]
    unclocked.went_away(1)  # (only a clock sends a person away; the rule is the same)
    assert [row.seat for row in unclocked.rows("wizard", bot_seats=[2])] == [1, 2]
    clocked = TurnClock.of({"turn_seconds": 10})
    clocked.track([0], at)
    assert [(row.seat, row.kind, row.deadline) for row in clocked.rows("wizard", [])] == [
        (0, "person", at + timedelta(seconds=10))
    ]


async def test_the_end_shows_if_the_sweeper_stops_while_rating_it(store_url: str) -> None:
    """The commit awaits the ended hooks (the rating projection) after the append.
    A sweeper stopped there (a replica shutting down) leaves the table abandoned in
    the store; the cached fold must show the end too, not a game still playing."""
    async with bot_service(store_url) as service:
        client = service.client
        table_id, token = await person_and_bots(client, "crazy8s", 3, {})
        rating = asyncio.Event()

        async def hang(ended: str) -> None:
            rating.set()
            await asyncio.Event().wait()  # until cancelled

        service.server.app.tables.ended_hooks.insert(0, hang)
        async with sweeping(service, abandon=0.3):
            await until(rating.is_set)
        assert service.log.table(table_id)["status"] == "abandoned"
        view = (await client.get_view(table_id, 0, token)).view
        assert view.is_over and view.end_reason == play_pb2.END_REASON_ABANDONED
