"""The AI worker's analysis slot end to end (issue 35), on SQLite and Postgres: a real
service, a finished game, its analysis asked for, and the worker's own loop (in this
process) claiming the job, judging each decision from its seat's view alone with the
judging function it was given (here a deterministic double of ``parlour.ai.analysis
.judge``, the other half of the issue) and submitting it; then the stored analysis
as a player reads it. A judging function that fails fails the job, not the worker."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from parlour.ai import analysis
from parlour.ai.analyst import Judge, decision_seed
from parlour.ai.worker import Worker, WorkerConfig
from parlour.engine.actions import Action
from parlour.engine.view import View
from parlour.v1 import analysis_pb2
from tests.service.harness import Service, Truth, running_service
from tests.service.test_analysis import TOKEN, finished_game, get_analysis, request_analysis

#: what the double was asked: (seat, seq by its seed, the view's hand, played)
SEEN: list[tuple[int | None, int, tuple[str, ...], str]] = []


def first_is_best(
    game: str, view: View, played: Action, *, seed: int, budget: int | None = None
) -> analysis.Judgement:
    """A deterministic judge: the first legal action is the expert's; any other costs
    1 point, 2 when the seat holds an even number of cards (marked then)."""
    SEEN.append((view.seat, seed, tuple(str(card) for card in view.hand), str(played)))
    best = view.legal_actions[0]
    cost = 0.0 if played == best else 1.0 + (len(view.hand) % 2 == 0)
    return analysis.Judgement(
        played=played,
        played_estimate=analysis.Estimate(5.0 - cost, 4.0 - cost, 6.0 - cost, budget or 16),
        best=best,
        best_estimate=analysis.Estimate(5.0, 4.0, 6.0, budget or 16),
        cost=cost,
        cost_low=max(0.0, cost - 0.5),
        cost_high=cost + 0.5,
        marked=cost >= 2,
    )


def cannot_judge(
    game: str, view: View, played: Action, *, seed: int, budget: int | None = None
) -> analysis.Judgement:
    raise RuntimeError("no expert here")


@asynccontextmanager
async def running_worker(service: Service, judge: Judge) -> AsyncIterator[Worker]:
    config = WorkerConfig(
        servers=(service.address,),
        worker_token=TOKEN,
        worker_id="analyst",
        wait_seconds=1.0,
        processes=0,
        analysis_budget=16,
    )
    worker = Worker(config, judge=judge)
    running = asyncio.create_task(worker.run())
    try:
        yield worker
    finally:
        worker.stop()
        await asyncio.wait_for(running, 30)


async def until_settled(
    service: Service, table_id: str, token: str | None
) -> analysis_pb2.Analysis:
    """The analysis once it is done or failed (the worker's loop runs meanwhile)."""
    for _ in range(600):
        found = await get_analysis(service.client, table_id, token)
        if found.state in (analysis_pb2.ANALYSIS_STATE_DONE, analysis_pb2.ANALYSIS_STATE_FAILED):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"the analysis of {table_id} did not settle: {found}")


async def test_the_worker_judges_a_finished_game_from_each_seats_view(store_url: str) -> None:
    SEEN.clear()
    async with running_service(store_url, worker_token=TOKEN) as service:
        game = await finished_game(service)
        token = game.seats[0].token
        await request_analysis(service.client, game.table_id, token)
        async with running_worker(service, first_is_best) as worker:
            done = await until_settled(service, game.table_id, token)
        assert worker.tally.analysed == 1
        truth = Truth(service.log, game.table_id)
        assert done.state == analysis_pb2.ANALYSIS_STATE_DONE, done.error
        assert [item.seq for item in done.decisions] == sorted(game.decisions)
        assert done.budget == 16
        seeds = {decision_seed(game.table_id, seq): seq for seq in game.decisions}
        assert len(SEEN) == len(game.decisions)
        for seat, seed, hand, played in SEEN:
            seq = seeds[seed]  # each decision judged once, with its public seed
            decided, seen, chosen = game.decisions[seq]
            assert seat == decided and hand == tuple(seen.view.hand)
            # the hand the judge saw is the seat's own at that moment, no other card
            state = truth.at(seq - 1).state
            assert state is not None
            assert sorted(hand) == sorted(str(card) for card in state.hand(seat))
            assert played == seen.view.legal_actions[chosen - 1].action.text
        for item in done.decisions:
            assert item.best.id == 1
            assert (item.cost == 0) == (item.played.id == 1)
            assert item.marked == (item.cost >= 2)
            assert item.played_estimate.playouts == 16
        given = {s.seat: s.given_away for s in done.summaries}
        for seat in given:
            own = [item.cost for item in done.decisions if item.seat == seat]
            assert given[seat] == pytest.approx(sum(own))


async def test_a_judge_that_fails_fails_the_job_and_the_worker_goes_on(sqlite_url: str) -> None:
    async with running_service(sqlite_url, worker_token=TOKEN) as service:
        game = await finished_game(service)
        await request_analysis(service.client, game.table_id)
        async with running_worker(service, cannot_judge) as worker:
            failed = await until_settled(service, game.table_id, None)
            assert failed.state == analysis_pb2.ANALYSIS_STATE_FAILED
            assert "no expert here" in failed.error and not failed.decisions
            # the worker still plays: a second game's analysis is claimed too
            other = await finished_game(service, running_worker=True)
            await request_analysis(service.client, other.table_id)
            again = await until_settled(service, other.table_id, None)
        assert again.state == analysis_pb2.ANALYSIS_STATE_FAILED
        assert worker.tally.analysed == 0
