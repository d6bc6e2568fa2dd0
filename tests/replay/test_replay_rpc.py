"""ReplayService.GetReplay over real gRPC: whole logs of finished games, and
logs of games in progress cut to what the caller's seat may see."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from parlour.replay.check import replay
from parlour.service.bootstrap import Settings, assemble
from parlour.service.domain.fold import fold
from parlour.service.domain.statuses import EventType
from parlour.service.domain.upcast import upcast
from parlour.service.grpc.server import GrpcServer
from parlour.service.notify import make_notifier
from parlour.service.store.protocol import EventStore
from parlour.v1 import lobby_pb2, replay_pb2, replay_pb2_grpc
from tests.replay.games import Played, open_store, play_moves, seat_table
from tests.replay.hidden import cards_in, hidden_from, public_cards


@dataclass
class Running:
    server: GrpcServer
    store: EventStore
    stub: replay_pb2_grpc.ReplayServiceAsyncStub


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[Running]:
    store = open_store(f"sqlite:///{tmp_path / 'parlour.sqlite3'}")
    notifier = make_notifier(store)
    await notifier.start()
    server = (await assemble(Settings(address="127.0.0.1:0"), store, notifier)).server
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        yield Running(server, store, replay_pb2_grpc.ReplayServiceStub(channel))
    finally:
        await channel.close()
        await server.stop(0)
        await notifier.stop()
        await store.close()


async def get_replay(
    running: Running, table_id: str, seat: int | None = None, token: str | None = None
) -> replay_pb2.GetReplayResponse:
    request = replay_pb2.GetReplayRequest(table_id=table_id)
    if seat is not None:
        request.seat = seat
    metadata = (("x-parlour-seat-token", token),) if token else None
    return await running.stub.GetReplay(request, metadata=metadata)


def told(response: replay_pb2.GetReplayResponse) -> set[str]:
    """Every card named anywhere in the answer."""
    return cards_in("\n".join(f"{e.payload_json}\n{e.text}" for e in response.events))


async def public_so_far(running: Running, table_id: str) -> set[str]:
    shown: set[str] = set()
    for step in replay(await running.store.read(table_id)):
        if step.state is not None:
            shown |= public_cards(step.state.view(None))
    return shown


async def check_cut_to(running: Running, played: Played, seat: int | None, answer: object) -> None:
    assert isinstance(answer, replay_pb2.GetReplayResponse)
    state = fold(await running.store.read(played.table_id)).state
    assert state is not None and not state.is_over
    assert not answer.finished and not answer.complete
    assert all(event.digest == "" for event in answer.events)
    public = await public_so_far(running, played.table_id)
    leaked = (told(answer) - public) & hidden_from(state, seat)
    assert not leaked, f"seat {seat} was shown {leaked}"


@pytest.mark.parametrize(
    ("game", "seats", "checkpoints", "options"),
    [
        ("hearts", 4, [0, 5, 12, 40, 70], None),
        ("wizard", 5, [0, 3, 9, 30], None),
        ("kaiser", 4, [0, 2, 6, 20], None),
        # three rounds: one round of five cards each can end by move 13, before the
        # last checkpoint (whether it does hangs on the shuffle); three cannot before 39
        ("crazy8s", 3, [0, 4, 15], {"rounds": 3}),
    ],
)
async def test_a_game_in_progress_shows_each_seat_only_what_it_could_see(
    running: Running,
    game: str,
    seats: int,
    checkpoints: list[int],
    options: dict[str, object] | None,
) -> None:
    app = running.server.app
    played = await seat_table(app, game, seats, options)
    rng = random.Random(11)
    done = 0
    for checkpoint in checkpoints:
        await play_moves(app, played, rng, checkpoint - done)
        done = checkpoint
        for seat in range(seats):
            answer = await get_replay(running, played.table_id, seat, played.seat_tokens[seat])
            await check_cut_to(running, played, seat, answer)
            if checkpoint == 0:
                # not vacuous: the seat does get its own cards of the first deal
                state = fold(await running.store.read(played.table_id)).state
                assert state is not None
                deal = next(e for e in answer.events if e.type == EventType.CARDS_DEALT)
                own = json.loads(deal.payload_json)["own_cards"]
                assert sorted(own) == sorted(str(card) for card in state.hand(seat))
        await check_cut_to(running, played, None, await get_replay(running, played.table_id))


async def test_other_seats_hearts_passes_lose_their_card(running: Running) -> None:
    app = running.server.app
    played = await seat_table(app, "hearts", 4)
    await play_moves(app, played, random.Random(2), 6)  # seats 0 and 1 have chosen
    answer = await get_replay(running, played.table_id, 1, played.seat_tokens[1])
    gives = [json.loads(e.payload_json) for e in answer.events if '"give' in e.payload_json]
    assert [g["action"] for g in gives if g["seat"] == 0] == ["give"] * 3
    assert all(g["action"].startswith("give ") for g in gives if g["seat"] == 1)
    assert sum(e.redacted for e in answer.events) == 4  # the deal and seat 0's three


async def test_a_finished_games_whole_log_is_given_to_anyone(running: Running) -> None:
    app = running.server.app
    played = await seat_table(app, "hearts", 4)
    await play_moves(app, played, random.Random(5), 1_000_000)
    answer = await get_replay(running, played.table_id)
    stored = await running.store.read(played.table_id)
    assert answer.finished and answer.complete
    assert answer.status == lobby_pb2.TABLE_STATUS_FINISHED
    assert answer.version == stored[-1].seq
    assert [(e.seq, e.type, e.digest) for e in answer.events] == [
        (e.seq, e.type, e.digest) for e in stored
    ]
    assert [json.loads(e.payload_json) for e in answer.events] == [
        upcast(e).payload for e in stored
    ]


async def test_a_seat_must_prove_it_is_that_seat(running: Running) -> None:
    app = running.server.app
    played = await seat_table(app, "kaiser", 4)
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await get_replay(running, played.table_id, 2)
    assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as wrong:
        await get_replay(running, played.table_id, 2, played.seat_tokens[1])
    assert wrong.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as out_of_range:
        await get_replay(running, played.table_id, 9, played.seat_tokens[1])
    assert out_of_range.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.aio.AioRpcError) as unknown:
        await get_replay(running, "no-such-table")
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND


async def test_crazy8s_own_cards_are_every_card_each_deal_gave_the_seat(running: Running) -> None:
    """From round 2 on a seat may be dealt again a card it held when the last round
    ended; its own_cards must still list the whole deal (the hand right after it)."""
    app = running.server.app
    played = await seat_table(app, "crazy8s", 2, {"rounds": 5})
    rng = random.Random(3)
    while played.mirror.state is not None and played.mirror.state.view(None).hand_number < 4:
        await play_moves(app, played, rng, 1)
    stored = await running.store.read(played.table_id)
    for seat in (0, 1):
        answer = await get_replay(running, played.table_id, seat, played.seat_tokens[seat])
        assert not answer.finished
        deals = [e for e in answer.events if e.type == EventType.CARDS_DEALT]
        checked = 0
        for deal in deals:
            state = fold(e for e in stored if e.seq < deal.seq).state
            assert state is not None
            fresh = state.view(None).phase == "deal"  # not a stock rebuilt mid-round
            before = set(map(str, state.hand(seat)))
            after = fold(e for e in stored if e.seq <= deal.seq).state
            assert after is not None
            own = json.loads(deal.payload_json)["own_cards"]
            if fresh:
                assert sorted(own) == sorted(str(card) for card in after.hand(seat))
                checked += 1
            else:  # a rebuild: at most the one card that completed the seat's draw
                assert len(own) <= 1 and set(own) <= set(map(str, after.hand(seat))) - before
        assert checked >= 4
