"""BotService over real gRPC: bot turns are handed to one worker at a time under a
lease, a lease expires or ends with its turn, and an Act from a worker that does
not hold the turn is refused without writing anything. Runs on SQLite and Postgres."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import grpc
import pytest
import sqlalchemy as sa

from parlour.client import ParlourClient, ParlourError
from parlour.service.store.protocol import utcnow
from parlour.v1 import bots_pb2
from tests.ai.bot_service import bot_service, bot_table
from tests.service.harness import Truth, assert_no_hidden_cards


async def claim(worker: ParlourClient, wait: float = 0.0) -> bots_pb2.ClaimTurnResponse:
    return await worker.claim_turn(wait)


async def play(worker: ParlourClient, turn: bots_pb2.ClaimTurnResponse) -> int:
    """Play the turn's first legal action; the table's version after it."""
    done = await worker.act(
        turn.table_id,
        turn.seat,
        None,
        turn.view.legal_actions[0].id,
        expected_version=turn.version,
    )
    return done.version


async def test_two_workers_claiming_at_once_get_different_turns(store_url: str) -> None:
    async with bot_service(store_url) as service:
        # Hearts passing: all four bot seats are to act at once, four turns
        table_id = await bot_table(service.client, "hearts", 4)
        async with service.worker("a") as a, service.worker("b") as b:
            first, second = await asyncio.gather(claim(a), claim(b))
    assert first.claimed and second.claimed
    assert first.table_id == second.table_id == table_id
    assert first.version == second.version
    assert first.seat != second.seat


async def test_when_one_turn_is_free_only_one_of_two_workers_gets_it(store_url: str) -> None:
    async with bot_service(store_url) as service:
        await bot_table(service.client, "wizard", 4, {"rounds": 5})  # one bidder at a time
        async with service.worker("a") as a, service.worker("b") as b:
            answers = await asyncio.gather(claim(a), claim(b))
    assert sorted(answer.claimed for answer in answers) == [False, True]


async def test_a_live_lease_keeps_the_turn_from_other_workers(store_url: str) -> None:
    async with bot_service(store_url) as service:
        await bot_table(service.client, "wizard", 4, {"rounds": 5})
        async with service.worker("a") as a, service.worker("b") as b:
            assert (await claim(a)).claimed
            assert not (await claim(b)).claimed
            # the holder asking again gets its own turn back (the lease is renewed)
            assert (await claim(a)).claimed


async def test_an_expired_lease_is_claimed_by_another_worker(store_url: str) -> None:
    async with bot_service(store_url, lease_seconds=0.4) as service:
        await bot_table(service.client, "wizard", 4, {"rounds": 5})
        async with service.worker("a") as a, service.worker("b") as b:
            held = await claim(a)  # ... and worker a dies without playing
            assert not (await claim(b)).claimed
            await asyncio.sleep(0.5)
            taken = await claim(b)
            assert (taken.table_id, taken.seat, taken.version) == (
                held.table_id,
                held.seat,
                held.version,
            )
            # the slow worker whose lease ran out cannot cut in on the new holder
            with pytest.raises(ParlourError) as refused:
                await play(a, held)
            assert refused.value.code == grpc.StatusCode.ABORTED
            assert await play(b, taken) == taken.version + 1


async def test_a_long_poll_catches_a_lease_expiring(store_url: str) -> None:
    async with bot_service(store_url, lease_seconds=0.4) as service:
        await bot_table(service.client, "wizard", 4, {"rounds": 5})
        async with service.worker("a") as a, service.worker("b") as b:
            held = await claim(a)
            began = time.monotonic()
            taken = await claim(b, wait=5.0)
            waited = time.monotonic() - began
    assert taken.claimed and (taken.seat, taken.version) == (held.seat, held.version)
    assert 0.2 < waited < 1.5


async def test_a_lease_ends_when_its_turn_is_played(store_url: str) -> None:
    async with bot_service(store_url) as service:
        await bot_table(service.client, "hearts", 4)
        async with service.worker("a") as a, service.worker("b") as b:
            turn = await claim(a)
            after = await play(a, turn)  # one of the seat's three passes
            # the seat is still to act (two more passes), at a new version: a's lease was
            # for the old one, so the seat is listed for anyone to claim (its new turn
            # began last: the other seats, waiting longer, come first)
            listed = await service.store.bot_turns(utcnow(), worker_id="b")
            assert listed[-1] == (turn.table_id, turn.seat, after)
            again = await claim(b)
    assert again.claimed and again.version == after


async def test_an_act_from_a_worker_without_the_lease_is_refused(store_url: str) -> None:
    async with bot_service(store_url) as service:
        table_id = await bot_table(service.client, "wizard", 4, {"rounds": 5})
        async with service.worker("a") as a, service.worker("b") as b:
            turn = await claim(a)
            before = service.log.last_seq(table_id)
            with pytest.raises(ParlourError) as refused:
                await play(b, turn)
            assert refused.value.code == grpc.StatusCode.ABORTED
            assert "leased to worker 'a'" in refused.value.message
            assert service.log.last_seq(table_id) == before, "a refused Act wrote an event"
            assert await play(a, turn) == before + 1


async def test_an_act_naming_no_worker_is_refused_while_a_lease_is_live(store_url: str) -> None:
    async with bot_service(store_url) as service:
        await bot_table(service.client, "wizard", 4, {"rounds": 5})
        async with service.worker("a") as a, service.worker("") as anonymous:
            turn = await claim(a)
            with pytest.raises(ParlourError) as refused:
                await play(anonymous, turn)
    assert refused.value.code == grpc.StatusCode.ABORTED


async def test_a_released_turn_goes_to_another_worker_at_once(store_url: str) -> None:
    async with bot_service(store_url) as service:
        await bot_table(service.client, "wizard", 4, {"rounds": 5})
        async with service.worker("a") as a, service.worker("b") as b:
            turn = await claim(a)
            assert not await b.release_turn(turn.table_id, turn.seat)  # not b's to release
            assert await a.release_turn(turn.table_id, turn.seat)
            assert not await a.release_turn(turn.table_id, turn.seat)
            taken = await claim(b)
    assert (taken.seat, taken.version) == (turn.seat, turn.version)


async def test_a_waiting_claim_is_woken_when_a_game_starts(store_url: str) -> None:
    async with bot_service(store_url) as service, service.worker("a") as a:
        waiting = asyncio.create_task(claim(a, wait=20.0))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        table_id = await bot_table(service.client, "wizard", 4, {"rounds": 5})
        began = time.monotonic()
        turn = await waiting
        assert time.monotonic() - began < 2.0
    assert turn.claimed and turn.table_id == table_id


async def test_a_claim_with_nothing_to_play_answers_after_its_wait(store_url: str) -> None:
    async with bot_service(store_url) as service, service.worker("a") as a:
        await bot_table(service.client, "wizard", 4, start=False)  # not started: no turn
        began = time.monotonic()
        turn = await claim(a, wait=0.4)
        waited = time.monotonic() - began
    assert not turn.claimed and not turn.table_id
    assert 0.3 < waited < 2.0


async def test_a_persons_turn_is_never_handed_to_a_worker(store_url: str) -> None:
    async with bot_service(store_url) as service, service.worker("a") as a:
        hosted = await service.client.host_table(
            "wizard",
            4,
            options={"rounds": 5},
            seat_setup=[("person", ""), ("person", ""), ("bot", ""), ("bot", "")],
            host_player_name="Ada",
            host_takes_seat=True,
        )
        await service.client.join_table(hosted.table.table_id, "Bo")
        await service.client.start_table(hosted.table.table_id, hosted.host_token)
        view = (await service.client.get_view(hosted.table.table_id)).view
        turn = await claim(a)
    # seat 0 deals: it names trump after a turned wizard, else seat 1 bids first
    assert set(view.to_act) <= {0, 1}
    assert not turn.claimed


async def test_the_claimed_view_is_what_the_bot_seat_may_see(store_url: str) -> None:
    async with bot_service(store_url) as service, service.worker("a") as a:
        table_id = await bot_table(service.client, "hearts", 4, level="hard")
        turn = await claim(a)
        assert turn.view.seat == turn.seat and turn.seat in turn.view.to_act
        assert turn.view.legal_actions, "the claimed seat is to act"
        assert_no_hidden_cards(Truth(service.log, table_id), turn.version, turn.view)
    assert (turn.game, turn.bot_level) == ("hearts", "hard")
    assert turn.lease_expires_at.seconds > time.time()


async def test_a_worker_is_given_only_the_games_it_asks_for(store_url: str) -> None:
    async with bot_service(store_url) as service, service.worker("a") as a:
        await bot_table(service.client, "wizard", 4, {"rounds": 5})
        assert not (await a.claim_turn(0, games=["kaiser"])).claimed
        kaiser = await bot_table(service.client, "kaiser", 4)
        turn = await a.claim_turn(0, games=["kaiser"])
    assert turn.claimed and turn.table_id == kaiser and turn.options["target"] == "52"


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("not-the-token", grpc.StatusCode.PERMISSION_DENIED),
        (None, grpc.StatusCode.UNAUTHENTICATED),
    ],
)
async def test_a_wrong_or_missing_worker_token_is_refused(
    sqlite_url: str, token: str | None, code: grpc.StatusCode
) -> None:
    async with bot_service(sqlite_url) as service:
        await bot_table(service.client, "wizard", 4, {"rounds": 5})
        async with service.worker("a", token=token) as intruder:
            with pytest.raises(ParlourError) as refused:
                await claim(intruder)
            assert refused.value.code == code
            with pytest.raises(ParlourError) as refused_release:
                await intruder.release_turn("any", 0)
            assert refused_release.value.code == code


async def test_a_server_without_a_worker_token_refuses_every_worker(sqlite_url: str) -> None:
    async with bot_service(sqlite_url, worker_token=None) as service, service.worker("a") as a:
        with pytest.raises(ParlourError) as refused:
            await claim(a)
    assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED


@pytest.mark.parametrize(
    ("worker_id", "wait"), [(" ", 0.0), ("w" * 101, 0.0), ("a", -1.0), ("a", 61.0)]
)
async def test_a_claim_with_a_bad_worker_id_or_wait_is_invalid(
    sqlite_url: str, worker_id: str, wait: float
) -> None:
    async with bot_service(sqlite_url) as service, service.worker(worker_id) as worker:
        with pytest.raises(ParlourError) as refused:
            await worker.claim_turn(wait)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT


async def test_bot_service_reports_serving_to_health_checks(sqlite_url: str) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with (
        bot_service(sqlite_url) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        answer = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="parlour.v1.BotService")
        )
    assert answer.status == health_pb2.HealthCheckResponse.SERVING


async def test_a_bot_turn_is_claimed_after_chat_moved_the_table_on(store_url: str) -> None:
    """A line of chat moves the table's version but not its turn: the bot's turn is
    still to be claimed, at the version the table is at (a claim that went round and
    round on the turn's older version held a worker until its deadline)."""
    async with bot_service(store_url) as service:
        hosted = await service.client.host_table(
            "crazy8s",
            2,
            seat_setup=[("person", ""), ("bot", "")],
            host_player_name="Ada",
            host_takes_seat=True,
            options={"rounds": 1},
        )
        table_id = hosted.table.table_id
        await service.client.start_table(table_id, hosted.host_token)
        worker = service.worker("w1")
        said = 0
        try:
            for _ in range(60):
                view = await service.client.get_view(table_id, hosted.seat, hosted.seat_token)
                if view.view.is_over:
                    break
                if hosted.seat in view.view.to_act:
                    await service.client.act(
                        table_id,
                        hosted.seat,
                        hosted.seat_token,
                        view.view.legal_actions[0].id,
                        expected_version=view.version,
                    )
                    continue
                chatted = said < 4  # (the chat's rate: 5 lines in 10 s a seat)
                if chatted:
                    line = await service.client.say(table_id, hosted.seat, hosted.seat_token, "hm")
                    said += 1
                turn = await worker.claim_turn(0)
                assert turn.claimed and turn.table_id == table_id
                if chatted:  # the turn's version, which the chat came after
                    assert turn.version < line.version
                await play(worker, turn)
            assert said == 4
        finally:
            await worker.close()


async def test_a_turn_listed_for_a_bot_that_is_a_persons_again_is_not_a_refusal(
    store_url: str,
) -> None:
    """A person who comes back to their seat between a claim's listing of the bot turns
    and its look at the seat: the claim finds the turn gone, as for a table moved on
    (it answered PERMISSION_DENIED, which stopped the worker for good)."""
    async with bot_service(store_url) as service:
        hosted = await service.client.host_table(
            "crazy8s",
            2,
            seat_setup=[("person", ""), ("bot", "")],
            host_player_name="Ada",
            host_takes_seat=True,
            options={"rounds": 1},
        )
        table_id = hosted.table.table_id
        await service.client.start_table(table_id, hosted.host_token)
        view = await service.client.get_view(table_id, hosted.seat, hosted.seat_token)
        # the projection as a claim read it just before the person came back: the
        # person's seat listed as a bot's turn, waiting longest
        engine = sa.create_engine(store_url)
        with engine.begin() as connection:
            where = {"t": table_id, "s": hosted.seat}
            connection.execute(
                sa.text("DELETE FROM turns WHERE table_id = :t AND seat = :s"), where
            )
            connection.execute(
                sa.text(
                    "INSERT INTO turns (table_id, seat, game, version, kind, since) "
                    "VALUES (:t, :s, 'crazy8s', :v, 'bot', :since)"
                ),
                where | {"v": view.version, "since": datetime(2000, 1, 1, tzinfo=UTC)},
            )
        engine.dispose()
        async with service.worker("w1") as worker:
            turn = await claim(worker)
        assert not turn.claimed or turn.seat != hosted.seat  # (the bot's own turn may come)
