"""After the game, the expert's analysis (issue 35) over real gRPC on SQLite and Postgres.

A game still being played is never analysed (its hidden cards would show); a
finished game's request queues one job however often it is made; the job hands a
worker exactly the people's decisions, each with the view that seat got from
GetView right then (no other seat's cards) and the id it played; the job's lease
keeps a second worker out until it lapses, and only the holder's submission is
stored; the stored result is served; and who may ask is the replay's rule.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from parlour.ai.analyst import claim_analysis
from parlour.ai.analyst import submit_analysis as send
from parlour.client import ParlourClient, ParlourError, Seat
from parlour.client.client import tokens
from parlour.contract.view import view_from_proto
from parlour.replay.fork import fork_table as forker
from parlour.service.app.parlour import Credentials
from parlour.service.domain.fold import fold
from parlour.service.grpc.rates import Rates
from parlour.v1 import (
    analysis_pb2,
    analysis_pb2_grpc,
    bots_pb2,
    play_pb2,
    replay_pb2,
    replay_pb2_grpc,
)
from tests.replay.games import Played, play_moves
from tests.service.harness import Service, Truth, assert_no_hidden_cards, running_service

TOKEN = "worker-secret"
REFUSED = (ParlourError, grpc.aio.AioRpcError)
#: a short game: five Wizard rounds of three seats, the last a bot
SETUP = [("person", ""), ("person", ""), ("bot", "")]


@dataclass
class Game:
    """A table played to its end, with what each person saw before each move."""

    table_id: str
    seats: list[Seat]
    #: seq of the move -> (seat, the GetView answer it decided on, the id it played)
    decisions: dict[int, tuple[int, play_pb2.GetViewResponse, int]]


@pytest.fixture
async def service(store_url: str) -> AsyncIterator[Service]:
    async with running_service(
        store_url, worker_token=TOKEN, analysis_lease_seconds=0.5
    ) as running:
        yield running


async def request_analysis(
    client: ParlourClient, table_id: str, seat_token: str | None = None
) -> analysis_pb2.RequestAnalysisResponse:
    """RequestAnalysis through the client's calls (refusals as ParlourError)."""
    request = analysis_pb2.RequestAnalysisRequest(table_id=table_id)

    def run(stubs: Any) -> Any:
        stub = analysis_pb2_grpc.AnalysisServiceStub(stubs.channel)
        return stub.RequestAnalysis(request, metadata=tokens(seat_token=seat_token))

    response: analysis_pb2.RequestAnalysisResponse = await client._call(run, idempotent=True)
    return response


async def get_analysis(
    client: ParlourClient, table_id: str, seat_token: str | None = None
) -> analysis_pb2.Analysis:
    """GetAnalysis through the client's calls: the analysis."""
    request = analysis_pb2.GetAnalysisRequest(table_id=table_id)

    def run(stubs: Any) -> Any:
        stub = analysis_pb2_grpc.AnalysisServiceStub(stubs.channel)
        return stub.GetAnalysis(request, metadata=tokens(seat_token=seat_token))

    response: analysis_pb2.GetAnalysisResponse = await client._call(run, idempotent=True)
    return response.analysis


def worker(service: Service, name: str) -> ParlourClient:
    return ParlourClient(service.address, worker_token=TOKEN, worker_id=name)


def refusal(error: BaseException) -> tuple[grpc.StatusCode, str]:
    """A refusal's code and reason, from the client library or a bare stub."""
    if isinstance(error, ParlourError):
        return error.code, error.reason
    assert isinstance(error, grpc.aio.AioRpcError)
    return error.code(), reason_of(error)


def reason_of(error: grpc.aio.AioRpcError) -> str:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason)
    return ""


async def host(service: Service, **options: str) -> tuple[str, list[Seat]]:
    client = service.client
    hosted = await client.host_table(
        "wizard",
        3,
        options={"rounds": "5", **options},
        seat_setup=SETUP,
        host_player_name="Ada",
        host_takes_seat=True,
    )
    table_id = hosted.table.table_id
    joined = await client.join_table(table_id, "Bea")
    seats = sorted(
        [
            client.seat(table_id, hosted.seat, hosted.seat_token),
            client.seat(table_id, joined.seat, joined.seat_token),
        ],
        key=lambda seat: seat.seat,
    )
    await client.start_table(table_id, hosted.host_token)
    return table_id, seats


async def play(
    service: Service,
    table_id: str,
    seats: list[Seat],
    moves: int = 10_000,
    *,
    running_worker: bool = False,
) -> Game:
    """Play ``moves`` random moves (or to the end): people by their tokens, the bot
    seat by the worker token (or, with ``running_worker``, by the worker that is
    running), recording each person's GetView before its move."""
    rng = random.Random(35)
    decisions: dict[int, tuple[int, play_pb2.GetViewResponse, int]] = {}
    async with worker(service, "player") as bots:
        for _ in range(moves):
            now = await seats[0].view()
            if now.view.is_over:
                break
            seat = rng.choice(list(now.view.to_act))
            if seat >= len(seats) and running_worker:
                await asyncio.sleep(0.01)  # the running worker plays the bot's turn
                continue
            if seat < len(seats):
                seen = await seats[seat].view()
                choice = rng.choice(seen.view.legal_actions).id
                await seats[seat].act(choice, expected_version=seen.version)
                decisions[seen.version + 1] = (seat, seen, choice)
            else:
                seen = await bots.get_view(table_id, seat)
                choice = rng.choice(seen.view.legal_actions).id
                await bots.act(table_id, seat, None, choice, expected_version=seen.version)
    return Game(table_id, seats, decisions)


async def finished_game(service: Service, *, running_worker: bool = False, **options: str) -> Game:
    table_id, seats = await host(service, **options)
    game = await play(service, table_id, seats, running_worker=running_worker)
    assert (await seats[0].view()).view.is_over
    return game


def judged(decision: bots_pb2.AnalysisDecision) -> bots_pb2.DecisionJudgement:
    """A deterministic judgement: the expert always prefers the first legal action."""
    cost = 0.0 if decision.played_legal_action_id == 1 else float(decision.seq % 7)
    return bots_pb2.DecisionJudgement(
        seq=decision.seq,
        best_legal_action_id=1,
        played_points=1.0 - cost,
        played_low=0.5 - cost,
        played_high=1.5 - cost,
        played_playouts=8,
        best_points=1.0,
        best_low=0.5,
        best_high=1.5,
        best_playouts=8,
        cost=cost,
        cost_low=max(0.0, cost - 1),
        cost_high=cost + 1,
        marked=cost >= 5,
    )


def submission(
    job: bots_pb2.ClaimAnalysisResponse, *, more: bool = False
) -> bots_pb2.SubmitAnalysisRequest:
    return bots_pb2.SubmitAnalysisRequest(
        table_id=job.table_id,
        decisions=[judged(decision) for decision in job.decisions],
        budget=8,
        threshold=5.0,
        higher_is_better=True,
        more=more,
    )


async def test_a_game_in_progress_is_refused_and_nothing_is_stored(service: Service) -> None:
    table_id, seats = await host(service)
    await play(service, table_id, seats, moves=3)
    for token in (seats[0].token, seats[1].token):
        with pytest.raises(REFUSED) as refused:
            await request_analysis(service.client, table_id, token)
        assert refusal(refused.value) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "ANALYSIS_GAME_NOT_OVER",
        )
        assert "reveal the hidden cards" in str(refused.value)
    assert await service.store.analyses.get(table_id) is None
    with pytest.raises(REFUSED) as reading:
        await get_analysis(service.client, table_id, seats[0].token)
    assert refusal(reading.value) == (grpc.StatusCode.FAILED_PRECONDITION, "ANALYSIS_GAME_NOT_OVER")
    async with worker(service, "w1") as one:
        assert not (await claim_analysis(one)).claimed
    # an open table is not over either; an unknown one is not found
    hosted = await service.client.host_table("wizard", 3, host_player_name="Cy")
    with pytest.raises(REFUSED) as open_table:
        await request_analysis(service.client, hosted.table.table_id)
    assert refusal(open_table.value) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "ANALYSIS_GAME_NOT_OVER",
    )
    with pytest.raises(REFUSED) as unknown:
        await request_analysis(service.client, "no-such-table")
    assert refusal(unknown.value)[0] is grpc.StatusCode.NOT_FOUND
    assert await service.store.analyses.get(hosted.table.table_id) is None


async def test_a_finished_game_queues_one_job_with_exactly_the_peoples_decisions(
    service: Service,
) -> None:
    game = await finished_game(service)
    first = await request_analysis(service.client, game.table_id, game.seats[0].token)
    again = await request_analysis(service.client, game.table_id, game.seats[1].token)
    assert first.created and not again.created
    assert first.analysis.state == again.analysis.state == analysis_pb2.ANALYSIS_STATE_QUEUED
    assert first.analysis.requested_at == again.analysis.requested_at
    truth = Truth(service.log, game.table_id)
    async with worker(service, "w1") as one, worker(service, "w2") as two:
        job = await claim_analysis(one)
        assert job.claimed and job.table_id == game.table_id and job.game == "wizard"
        assert job.options["rounds"] == "5"
        assert not (await claim_analysis(two)).claimed  # one job, leased to w1
    # exactly the people's moves (seat 2 is a bot), in the order of the log
    assert [decision.seq for decision in job.decisions] == sorted(game.decisions)
    for decision in job.decisions:
        seat, seen, played = game.decisions[decision.seq]
        assert decision.seat == seat and decision.played_legal_action_id == played
        # the seat's own view at that version: what GetView gave it, and no other card
        assert seen.version == decision.seq - 1
        assert view_from_proto(decision.view) == view_from_proto(seen.view)
        assert decision.view.seat == seat and list(decision.view.hand) == list(seen.view.hand)
        assert decision.view.legal_actions == seen.view.legal_actions
        assert_no_hidden_cards(truth, decision.seq - 1, decision.view)


async def test_the_lease_keeps_others_out_until_it_lapses_and_only_its_holder_submits(
    service: Service,
) -> None:
    game = await finished_game(service)
    await request_analysis(service.client, game.table_id, game.seats[0].token)
    async with worker(service, "w1") as one, worker(service, "w2") as two:
        held = await claim_analysis(one)
        assert held.claimed
        assert not (await claim_analysis(two)).claimed
        running = await get_analysis(service.client, game.table_id, game.seats[0].token)
        assert running.state == analysis_pb2.ANALYSIS_STATE_RUNNING and not running.decisions
        # the lease (0.5 s here) runs out: the job is claimable again, by w2 (a wait of up
        # to 5 s, answered as soon as the claim finds it free)
        taken = await claim_analysis(two, 5.0)
        assert taken.claimed and taken.table_id == game.table_id
        with pytest.raises(REFUSED) as refused:
            await send(one, submission(held))
        assert refusal(refused.value) == (grpc.StatusCode.ABORTED, "ANALYSIS_NOT_LEASED")
        stored = await send(two, submission(taken))
        assert stored.accepted and stored.analysis.state == analysis_pb2.ANALYSIS_STATE_DONE
        twice = await send(two, submission(taken))
        assert not twice.accepted and twice.analysis == stored.analysis
        assert not (await claim_analysis(one)).claimed  # done: nothing left to claim


async def test_the_stored_result_is_served_with_each_seats_summary(service: Service) -> None:
    game = await finished_game(service)
    await request_analysis(service.client, game.table_id, game.seats[0].token)
    async with worker(service, "w1") as one:
        job = await claim_analysis(one)
        half = len(job.decisions) // 2
        first = submission(job, more=True)
        del first.decisions[half:]
        part = await send(one, first)
        assert part.accepted and part.analysis.state == analysis_pb2.ANALYSIS_STATE_RUNNING
        assert part.lease_expires_at.ToDatetime() >= job.lease_expires_at.ToDatetime()
        with pytest.raises(REFUSED) as short:  # the last part leaves some out
            await send(one, bots_pb2.SubmitAnalysisRequest(table_id=job.table_id))
        assert refusal(short.value)[0] is grpc.StatusCode.INVALID_ARGUMENT
        nan = submission(job, more=True)
        nan.decisions[0].cost = float("nan")  # JSON (and Postgres' jsonb) have no NaN
        with pytest.raises(REFUSED) as not_a_number:
            await send(one, nan)
        assert refusal(not_a_number.value)[0] is grpc.StatusCode.INVALID_ARGUMENT
        rest = submission(job)
        del rest.decisions[:half]
        assert (await send(one, rest)).accepted
    served = await get_analysis(service.client, game.table_id, game.seats[1].token)
    assert served.state == analysis_pb2.ANALYSIS_STATE_DONE and served.game == "wizard"
    assert served.budget == 8 and served.threshold == 5.0 and served.higher_is_better
    assert served.finished_at.ToDatetime() >= served.requested_at.ToDatetime()
    assert [item.seq for item in served.decisions] == [item.seq for item in job.decisions]
    by_seq = {item.seq: item for item in job.decisions}
    for item in served.decisions:
        decision = by_seq[item.seq]
        listed = {legal.id: legal for legal in decision.view.legal_actions}
        assert item.seat == decision.seat and item.hand_number == decision.view.hand_number
        assert item.played == listed[decision.played_legal_action_id]
        assert item.best == listed[1]
        want = judged(decision)
        assert item.cost == pytest.approx(want.cost) and item.marked == want.marked
        assert item.played_estimate.playouts == 8
    summaries = {summary.seat: summary for summary in served.summaries}
    assert sorted(summaries) == [0, 1]  # the people's seats only
    for seat, summary in summaries.items():
        own = [item for item in served.decisions if item.seat == seat]
        assert summary.decisions == len(own)
        assert summary.given_away == pytest.approx(sum(item.cost for item in own))
        assert summary.marked == sum(item.marked for item in own)
        costly = sorted((item for item in own if item.cost > 0), key=lambda i: (-i.cost, i.seq))
        assert list(summary.biggest_mistakes) == [item.seq for item in costly[:3]]


async def test_who_may_ask_is_the_replays_rule(service: Service) -> None:
    game = await finished_game(service, spectators="off")
    channel = grpc.aio.insecure_channel(service.address)
    replay = replay_pb2_grpc.ReplayServiceStub(channel)
    try:
        with pytest.raises(REFUSED) as replay_refused:
            await replay.GetReplay(replay_pb2.GetReplayRequest(table_id=game.table_id))
        with pytest.raises(REFUSED) as refused:
            await request_analysis(service.client, game.table_id)
        with pytest.raises(REFUSED) as wrong_token:
            await request_analysis(service.client, game.table_id, "not-a-seat-token")
    finally:
        await channel.close()
    for error in (replay_refused.value, refused.value, wrong_token.value):
        assert refusal(error) == (grpc.StatusCode.PERMISSION_DENIED, "REPLAY_PRIVATE")
    assert await service.store.analyses.get(game.table_id) is None
    # a seat's token is a player's
    assert (await request_analysis(service.client, game.table_id, game.seats[1].token)).created
    public = await finished_game(service)
    with pytest.raises(REFUSED) as stranger:
        await get_analysis(service.client, game.table_id)
    assert refusal(stranger.value)[1] == "REPLAY_PRIVATE"
    # a finished game nobody asked about has no analysis yet
    with pytest.raises(REFUSED) as missing:
        await get_analysis(service.client, public.table_id)
    assert refusal(missing.value) == (grpc.StatusCode.NOT_FOUND, "NO_ANALYSIS")
    # where spectators may watch, anyone may ask (as anyone may read the replay)
    assert (await request_analysis(service.client, public.table_id)).created


async def test_the_worker_calls_need_the_worker_token(service: Service) -> None:
    async with ParlourClient(service.address, worker_token="wrong", worker_id="w") as bad:
        with pytest.raises(REFUSED) as refused:
            await claim_analysis(bad)
    assert refusal(refused.value)[0] is grpc.StatusCode.PERMISSION_DENIED
    async with ParlourClient(service.address, worker_id="w") as none:
        with pytest.raises(REFUSED) as missing:
            await send(none, bots_pb2.SubmitAnalysisRequest(table_id="t"))
    assert refusal(missing.value)[0] is grpc.StatusCode.UNAUTHENTICATED


async def test_requests_past_the_callers_rate_are_refused(sqlite_url: str) -> None:
    rates = Rates(analysis_per_minute=2, refusal_delay_ms=0)
    async with running_service(sqlite_url, rates=rates) as running:
        for _ in range(2):
            with pytest.raises(REFUSED) as unknown:
                await request_analysis(running.client, "no-such-table")
            assert refusal(unknown.value)[0] is grpc.StatusCode.NOT_FOUND
        channel = grpc.aio.insecure_channel(running.address)
        try:
            stub = analysis_pb2_grpc.AnalysisServiceStub(channel)
            with pytest.raises(REFUSED) as limited:
                await stub.RequestAnalysis(
                    analysis_pb2.RequestAnalysisRequest(table_id="no-such-table")
                )
            # reading an analysis is not rated
            with pytest.raises(REFUSED) as read:
                await stub.GetAnalysis(analysis_pb2.GetAnalysisRequest(table_id="no-such-table"))
        finally:
            await channel.close()
        assert refusal(limited.value) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        assert refusal(read.value)[0] is grpc.StatusCode.NOT_FOUND


async def test_a_forks_copied_moves_are_not_judged_as_its_players(store_url: str) -> None:
    async with running_service(store_url, worker_token=TOKEN, forker=forker) as service:
        source = await finished_game(service)
        at = sorted(source.decisions)[len(source.decisions) // 2]
        channel = grpc.aio.insecure_channel(service.address)
        try:
            forked = await replay_pb2_grpc.ReplayServiceStub(channel).ForkTable(
                replay_pb2.ForkTableRequest(table_id=source.table_id, at=at, seat=0)
            )
        finally:
            await channel.close()
        table_id = forked.table.table_id
        seat = service.client.seat(table_id, forked.seat, forked.seat_token)
        fork = await play(service, table_id, [seat])  # seat 0 a person, the rest bots
        assert fork.decisions  # the forker moved after the fork
        await request_analysis(service.client, table_id)
        async with worker(service, "w1") as one:
            job = await claim_analysis(one)
        assert job.table_id == table_id
        # only the forker's own moves: the source's, copied into the fork, are not theirs
        assert [decision.seq for decision in job.decisions] == sorted(fork.decisions)


async def test_a_seated_account_asks_with_its_session_and_a_stranger_cannot(
    store_url: str,
) -> None:
    async with running_service(store_url, worker_token=TOKEN) as service:
        app = service.server.app
        signed = await app.accounts.authenticate_device("a-device-secret-of-forty-characters-or-so")
        other = await app.accounts.authenticate_device("another-device-secret-of-forty-characters")
        hosted = await app.host_table(
            "wizard",
            3,
            {"rounds": "5", "spectators": "off"},
            host_player_name="Ada",
            host_takes_seat=True,
        )
        table_id = hosted.table.table_id
        tokens = {hosted.seat: hosted.seat_token}
        mine = Credentials(account_id=signed.account.account_id)
        tokens[1] = (await app.join(table_id, "Bo", credentials=mine)).seat_token
        tokens[2] = (await app.join(table_id, "Cy")).seat_token
        await app.start(table_id, Credentials(host_token=hosted.host_token))
        played = Played(
            table_id, tokens, hosted.host_token, fold(await service.store.read(table_id))
        )
        await play_moves(app, played, random.Random(8), 1_000_000)
        channel = grpc.aio.insecure_channel(service.address)
        stub = analysis_pb2_grpc.AnalysisServiceStub(channel)
        request = analysis_pb2.RequestAnalysisRequest(table_id=table_id)
        try:
            # no token: the session of the account that sat there is enough
            bearer = (("authorization", f"Bearer {signed.token}"),)
            assert (await stub.RequestAnalysis(request, metadata=bearer)).created
            with pytest.raises(REFUSED) as refused:
                stranger = (("authorization", f"Bearer {other.token}"),)
                await stub.GetAnalysis(
                    analysis_pb2.GetAnalysisRequest(table_id=table_id), metadata=stranger
                )
        finally:
            await channel.close()
        assert refusal(refused.value) == (grpc.StatusCode.PERMISSION_DENIED, "REPLAY_PRIVATE")
