"""ReplayService over real gRPC on SQLite and Postgres: a game step by step
(GetReplayHand), who may read a replay (the table's spectator setting), and
"play on from here" (ForkTable)."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator

import grpc
import pytest
from google.protobuf import text_format
from google.rpc import error_details_pb2, status_pb2

from parlour.replay.fork import fork_table as forker
from parlour.service.app.seating import Credentials
from parlour.service.domain.fold import fold
from parlour.v1 import common_pb2, lobby_pb2, play_pb2, play_pb2_grpc, replay_pb2, replay_pb2_grpc
from tests.replay.games import Played, play_moves, seat_table
from tests.replay.hidden import cards_in, hidden_from
from tests.service.harness import Service, running_service


@pytest.fixture
async def service(store_url: str) -> AsyncIterator[Service]:
    async with running_service(store_url, forker=forker) as running:
        yield running


def stubs(service: Service) -> tuple[replay_pb2_grpc.ReplayServiceStub, grpc.aio.Channel]:
    channel = grpc.aio.insecure_channel(service.address)
    return replay_pb2_grpc.ReplayServiceStub(channel), channel


def seat_metadata(token: str | None) -> tuple[tuple[str, str], ...] | None:
    return (("x-parlour-seat-token", token),) if token else None


def reason_of(error: grpc.aio.AioRpcError) -> str:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


async def finished(service: Service, game: str = "hearts", **options: object) -> Played:
    played = await seat_table(service.server.app, game, 4, options or None)
    await play_moves(service.server.app, played, random.Random(3), 1_000_000)
    return played


async def test_a_finished_game_steps_hand_by_hand_with_every_hand_face_up(
    service: Service,
) -> None:
    played = await finished(service, "kaiser", target=32)
    stub, channel = stubs(service)
    try:
        first = await stub.GetReplayHand(replay_pb2.GetReplayHandRequest(table_id=played.table_id))
        assert first.finished and first.public and first.hand == 1 and len(first.hands) > 1
        events = await service.store.read(played.table_id)
        game_events = [
            e for e in events if e.type not in ("TableHosted", "SeatTaken", "GameStarted")
        ]
        # the index covers every game event once, in order, hand after hand
        assert sum(h.steps for h in first.hands) == len(game_events)
        assert first.hands[0].first_seq == game_events[0].seq
        assert first.hands[-1].last_seq == events[-1].seq
        seen: list[int] = []
        for item in first.hands:
            answer = await stub.GetReplayHand(
                replay_pb2.GetReplayHandRequest(table_id=played.table_id, hand=item.hand)
            )
            assert [s.seq for s in answer.steps][:1] == [item.first_seq]
            seen += [step.seq for step in answer.steps]
            for step in answer.steps:
                assert not step.view.legal_actions  # a replay is not played
                # every seat's cards, exactly as the engine folds the log to that event
                state = fold(events[: step.seq]).state
                assert state is not None
                assert [sorted(h.cards) for h in step.hands] == [
                    sorted(str(c) for c in state.hand(seat)) for seat in range(4)
                ]
                # a hand's last move shows its result while the next waits for its deal
                view = step.view
                ended = view.phase == "deal" and view.last_hand.hand_number == item.hand
                assert view.hand_number == item.hand or ended or view.is_over
            assert answer.steps[-1].view.last_hand.hand_number == item.hand
        assert seen == [e.seq for e in game_events]
        last = (
            await stub.GetReplayHand(
                replay_pb2.GetReplayHandRequest(table_id=played.table_id, hand=first.hands[-1].hand)
            )
        ).steps[-1]
        assert last.event.type == "GameFinished" and last.view.is_over
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.GetReplayHand(
                replay_pb2.GetReplayHandRequest(table_id=played.table_id, hand=99)
            )
        assert refused.value.code() is grpc.StatusCode.NOT_FOUND
        assert reason_of(refused.value) == "NO_SUCH_HAND"
    finally:
        await channel.close()


async def test_a_game_in_progress_steps_show_only_what_the_seat_saw(service: Service) -> None:
    app = service.server.app
    played = await seat_table(app, "hearts", 4)
    await play_moves(app, played, random.Random(4), 30)
    stub, channel = stubs(service)
    try:
        request = replay_pb2.GetReplayHandRequest(table_id=played.table_id, seat=2)
        answer = await stub.GetReplayHand(request, metadata=seat_metadata(played.seat_tokens[2]))
        assert not answer.finished and answer.steps
        events = await service.store.read(played.table_id)
        for step in answer.steps:
            assert not step.hands
            state = fold(events[: step.seq]).state
            assert state is not None
            assert sorted(step.view.hand) == sorted(str(c) for c in state.hand(2))
            # no card another seat holds (and seat 2 cannot know of) is named anywhere
            text = text_format.MessageToString(step, as_utf8=True)
            named = set(re.findall(r'"([2-9TJQKA][CDHS])"', text)) | cards_in(text)
            assert not named & hidden_from(state, 2), f"step {step.seq} leaked cards"
            assert step.view.seat == 2
            # another seat's pass keeps its card to itself
            if step.event.type == "ActionTaken" and step.event.seat != 2:
                assert (
                    step.event.action.kind != common_pb2.ACTION_KIND_GIVE
                    or not step.event.action.card
                )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.GetReplayHand(request, metadata=seat_metadata(played.seat_tokens[1]))
        assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.ForkTable(replay_pb2.ForkTableRequest(table_id=played.table_id, at=20))
        assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(refused.value) == "FORK_NOT_FINISHED"
    finally:
        await channel.close()


async def test_a_replay_without_spectators_is_for_its_players_only(service: Service) -> None:
    played = await finished(service, "hearts", spectators="off")
    stub, channel = stubs(service)
    table_id = played.table_id
    try:
        for call in (
            lambda md, seat=None: stub.GetReplay(
                replay_pb2.GetReplayRequest(table_id=table_id, seat=seat), metadata=md
            ),
            lambda md, seat=None: stub.GetReplayHand(
                replay_pb2.GetReplayHandRequest(table_id=table_id, seat=seat), metadata=md
            ),
            lambda md, seat=None: stub.ForkTable(
                replay_pb2.ForkTableRequest(table_id=table_id, at=10), metadata=md
            ),
        ):
            for metadata, seat in ((None, None), (None, 1), (seat_metadata("x" * 43), 1)):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call(metadata, seat)
                assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
                assert reason_of(refused.value) == "REPLAY_PRIVATE"
            # a seat's token opens it, with or without naming the seat
            assert await call(seat_metadata(played.seat_tokens[1]), 1)
            assert await call(seat_metadata(played.seat_tokens[3]), None)
        # a table that allows spectators: its replay is anyone's
        shared = await finished(service, "hearts")
        answer = await stub.GetReplayHand(replay_pb2.GetReplayHandRequest(table_id=shared.table_id))
        assert answer.public and answer.steps[0].hands
    finally:
        await channel.close()


async def test_play_on_from_a_point_of_a_finished_game(service: Service) -> None:
    played = await finished(service, "hearts")
    stub, channel = stubs(service)
    play = play_pb2_grpc.PlayServiceStub(channel)
    try:
        hand = await stub.GetReplayHand(
            replay_pb2.GetReplayHandRequest(table_id=played.table_id, hand=2)
        )
        # a position in the play of the second hand, seat 1 to act next
        step = next(s for s in hand.steps if s.view.phase == "play" and list(s.view.to_act) == [1])
        fork = await stub.ForkTable(
            replay_pb2.ForkTableRequest(table_id=played.table_id, at=step.seq, seat=1)
        )
        assert fork.seat == 1 and fork.source_table_id == played.table_id and fork.at == step.seq
        # the forker's seat is a person's; the source's people are bots now
        bot, person = lobby_pb2.SEAT_KIND_BOT, lobby_pb2.SEAT_KIND_PERSON
        assert [s.kind for s in fork.table.seats] == [bot, person, bot, bot]
        assert fork.table.status == lobby_pb2.TABLE_STATUS_PLAYING
        view = (
            await play.GetView(
                play_pb2.GetViewRequest(table_id=fork.table.table_id, seat=1),
                metadata=seat_metadata(fork.seat_token),
            )
        ).view
        # the very position of the source: the same hand, trick and cards
        assert sorted(view.hand) == sorted(step.hands[1].cards)
        assert view.current_trick == step.view.current_trick
        assert view.hand_number == step.view.hand_number
        assert view.legal_actions
        acted = await play.Act(
            play_pb2.ActRequest(
                table_id=fork.table.table_id,
                seat=1,
                expected_version=fork.table.version,
                request_id="fork-move-1",
                legal_action_id=view.legal_actions[0].id,
            ),
            metadata=seat_metadata(fork.seat_token),
        )
        assert acted.version == fork.table.version + 1
        # the source is untouched
        assert (await service.store.get_table(played.table_id)).version == (
            await service.store.last_seq(played.table_id)
        )
        last = (await service.store.read(played.table_id))[-1].seq
        for at, code, reason in (
            (10_000, grpc.StatusCode.NOT_FOUND, "FORK_NO_SUCH_EVENT"),
            (1, grpc.StatusCode.FAILED_PRECONDITION, "FORK_NOTHING_TO_PLAY"),
            (last, grpc.StatusCode.FAILED_PRECONDITION, "FORK_NOTHING_TO_PLAY"),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.ForkTable(replay_pb2.ForkTableRequest(table_id=played.table_id, at=at))
            assert refused.value.code() is code
            assert reason_of(refused.value) == reason
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.ForkTable(
                replay_pb2.ForkTableRequest(table_id=played.table_id, at=step.seq, seat=7)
            )
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    finally:
        await channel.close()


async def test_a_seated_account_reads_and_forks_a_private_replay_with_its_session(
    service: Service,
) -> None:
    app = service.server.app
    signed = await app.accounts.authenticate_device("a-device-secret-of-forty-characters-or-so")
    bearer = (("authorization", f"Bearer {signed.token}"),)
    hosted = await app.host_table(
        "hearts", 4, {"spectators": "off"}, host_player_name="Ada", host_takes_seat=True
    )
    table_id = hosted.table.table_id
    tokens = {0: hosted.seat_token}
    mine = Credentials(account_id=signed.account.account_id)
    tokens[1] = (await app.join(table_id, "Bo", credentials=mine)).seat_token
    for number in (2, 3):
        tokens[number] = (await app.join(table_id, f"Player {number}")).seat_token
    await app.start(table_id, Credentials(host_token=hosted.host_token))
    played = Played(table_id, tokens, hosted.host_token, fold(await service.store.read(table_id)))
    await play_moves(app, played, random.Random(8), 1_000_000)
    stub, channel = stubs(service)
    try:
        # no seat, no token: the session of the account that sat there is enough
        assert (
            await stub.GetReplay(replay_pb2.GetReplayRequest(table_id=table_id), metadata=bearer)
        ).finished
        hand = await stub.GetReplayHand(
            replay_pb2.GetReplayHandRequest(table_id=table_id, hand=1), metadata=bearer
        )
        assert not hand.public
        step = next(s for s in hand.steps if s.view.phase == "play")
        fork = await stub.ForkTable(
            replay_pb2.ForkTableRequest(table_id=table_id, at=step.seq), metadata=bearer
        )
        # the account's seat at the source, bound to the account at the fork
        assert fork.seat == 1
        assert fork.table.seats[1].signed_in and fork.table.seats[1].player_name == "Bo"
        row = (await service.store.get_table(fork.table.table_id)).seat_rows[1]
        assert row.account_id == signed.account.account_id
        # another guest, seated nowhere, is refused
        other = await app.accounts.authenticate_device("another-device-secret-of-forty-characters")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.GetReplayHand(
                replay_pb2.GetReplayHandRequest(table_id=table_id),
                metadata=(("authorization", f"Bearer {other.token}"),),
            )
        assert reason_of(refused.value) == "REPLAY_PRIVATE"
    finally:
        await channel.close()


async def test_a_forks_name_is_in_the_language_of_the_call_that_forked(service: Service) -> None:
    played = await finished(service, "hearts")
    stub, channel = stubs(service)
    try:
        hand = await stub.GetReplayHand(
            replay_pb2.GetReplayHandRequest(table_id=played.table_id, hand=2)
        )
        at = next(s.seq for s in hand.steps if s.view.phase == "play")
        named = {}
        for language in ("en", "pl"):
            fork = await stub.ForkTable(
                replay_pb2.ForkTableRequest(table_id=played.table_id, at=at, seat=0),
                metadata=(("accept-language", language),),
            )
            named[language] = fork.table.name
        source = (await service.server.app.get_table(played.table_id)).name
        assert named["en"] == f"{source} (fork of {played.table_id} at event {at})"
        assert named["pl"] == f"{source} (dalsza gra ze stołu {played.table_id} od zdarzenia {at})"
    finally:
        await channel.close()
