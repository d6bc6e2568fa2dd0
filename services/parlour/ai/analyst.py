"""The AI worker's analysis slot (issue 35): claims finished games' analyses and judges them.

A slot of its own beside the bot-turn slots (``worker.py``): it claims a job
(``BotService.ClaimAnalysis``, a long poll, under a lease), judges each
decision from that seat's own view alone with :func:`parlour.ai.analysis.judge`
(or the judging function the worker was given), one decision at a time in the
worker's decision pool, so a bot's decision waits behind at most one
judgement, never behind a whole game's, and sends the judgements in parts
(``SubmitAnalysis``): each part renews the lease, the last completes the job.

The seed of each judgement is derived from the table and the decision's seq
alone (:func:`decision_seed`): public, so anyone can judge a decision again and
get the same verdict.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime
from typing import Any

import grpc

from parlour.ai import analysis
from parlour.client import ParlourClient, ParlourError, tokens
from parlour.contract.view import view_from_proto
from parlour.engine.actions import Action
from parlour.engine.view import View
from parlour.v1 import bots_pb2, bots_pb2_grpc

log = logging.getLogger("parlour.worker.analysis")

#: (game, view, played, *, seed, budget) -> Judgement: ``parlour.ai.analysis.judge``'s shape
Judge = Callable[..., analysis.Judgement]

#: judgements per SubmitAnalysis part (the contract's limit is 500)
PART_DECISIONS = 200
#: the most of a lease a part waits for: the next part renews it well before it lapses
RENEW_SHARE = 0.5
#: refusals of a job that mean it is gone (another worker holds it, or it is over)
JOB_GONE = frozenset(
    {grpc.StatusCode.ABORTED, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION}
)


async def claim_analysis(
    client: ParlourClient, wait_seconds: float = 0.0, *, games: Sequence[str] = ()
) -> bots_pb2.ClaimAnalysisResponse:
    """Claim an analysis job for the client's worker id, waiting up to ``wait_seconds``.

    Sent through the client's own calls (its failover between replicas, retries of
    UNAVAILABLE, TLS): a lost answer's lease is this worker's own until it lapses.
    """
    if not client.worker_id:
        raise ValueError("claiming an analysis needs the client's worker_id")
    request = bots_pb2.ClaimAnalysisRequest(
        worker_id=client.worker_id, wait_seconds=wait_seconds, games=list(games)
    )
    metadata = tokens(worker_token=client.worker_token)
    deadline = wait_seconds + (client.timeout or 10.0)

    def run(stubs: Any) -> Any:
        stub = bots_pb2_grpc.BotServiceStub(stubs.channel)
        return stub.ClaimAnalysis(request, metadata=metadata, timeout=deadline)

    response: bots_pb2.ClaimAnalysisResponse = await client._call(run, idempotent=True)
    return response


async def submit_analysis(
    client: ParlourClient, request: bots_pb2.SubmitAnalysisRequest
) -> bots_pb2.SubmitAnalysisResponse:
    """Send one part of a claimed job as the client's worker id. Safe to resend: a part
    sent again replaces what it judged, and the last part again answers accepted = false."""
    if not client.worker_id:
        raise ValueError("submitting an analysis needs the client's worker_id")
    request.worker_id = client.worker_id
    metadata = tokens(worker_token=client.worker_token)

    def run(stubs: Any) -> Any:
        stub = bots_pb2_grpc.BotServiceStub(stubs.channel)
        return stub.SubmitAnalysis(request, metadata=metadata, timeout=client.timeout)

    response: bots_pb2.SubmitAnalysisResponse = await client._call(run, idempotent=True)
    return response


def decision_seed(table_id: str, seq: int) -> int:
    """The seed a decision is judged with: from its table and seq only (public)."""
    digest = hashlib.sha256(f"parlour-analysis-v1\n{table_id}\n{seq}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def judgement_message(
    view: View, seq: int, judged: analysis.Judgement
) -> bots_pb2.DecisionJudgement:
    """SubmitAnalysis's entry for one judged decision (the expert's move by its id)."""
    best = list(view.legal_actions).index(judged.best) + 1
    played, chosen = judged.played_estimate, judged.best_estimate
    return bots_pb2.DecisionJudgement(
        seq=seq,
        best_legal_action_id=best,
        played_points=played.points,
        played_low=played.low,
        played_high=played.high,
        played_playouts=played.playouts,
        best_points=chosen.points,
        best_low=chosen.low,
        best_high=chosen.high,
        best_playouts=chosen.playouts,
        cost=judged.cost,
        cost_low=judged.cost_low,
        cost_high=judged.cost_high,
        marked=judged.marked,
    )


def judge_decision(
    judge: Judge, game: str, table_id: str, decision: bytes, budget: int | None
) -> bytes:
    """Judge one serialized AnalysisDecision from its view alone; the serialized
    DecisionJudgement (what a decision process runs)."""
    item = bots_pb2.AnalysisDecision.FromString(decision)
    view = view_from_proto(item.view)
    legal: list[Action] = list(view.legal_actions)
    if not 1 <= item.played_legal_action_id <= len(legal):
        raise ValueError(f"seq {item.seq}: played id {item.played_legal_action_id} is not listed")
    played = legal[item.played_legal_action_id - 1]
    judged = judge(game, view, played, seed=decision_seed(table_id, item.seq), budget=budget)
    return judgement_message(view, item.seq, judged).SerializeToString()


class Analyst:
    """Judges the analysis jobs one worker claims, in its decision pool."""

    def __init__(
        self,
        judge: Judge,
        pool: Callable[[], Executor],
        *,
        budget: int | None = None,
        games: tuple[str, ...] = (),
        wait_seconds: float = 20.0,
    ) -> None:
        self.judge = judge
        self._pool = pool
        self.budget = budget
        self.games = games
        self.wait_seconds = wait_seconds
        #: jobs submitted whole, and decisions judged
        self.jobs = 0
        self.judged = 0

    async def claim(self, client: ParlourClient) -> bots_pb2.ClaimAnalysisResponse:
        return await claim_analysis(client, self.wait_seconds, games=self.games)

    async def analyse(
        self,
        client: ParlourClient,
        job: bots_pb2.ClaimAnalysisResponse,
        stopped: Callable[[], bool],
    ) -> bool:
        """Judge and submit ``job``; False if it was not judged whole (the judging failed,
        and the job with it; the worker stopped; another worker took it over)."""
        loop = asyncio.get_running_loop()
        span = _lease_left(job)
        renew_at = time.monotonic() + span * RENEW_SHARE
        pending: list[bots_pb2.DecisionJudgement] = []
        for decision in job.decisions:
            if stopped():  # the lease lapses and another worker takes the job over
                return False
            try:
                judged = await loop.run_in_executor(
                    self._pool(),
                    judge_decision,
                    self.judge,
                    job.game,
                    job.table_id,
                    decision.SerializeToString(),
                    self.budget,
                )
            except BrokenProcessPool:  # the pool's fault, not the job's: the worker mends it
                raise
            except Exception as error:  # a judgement that fails fails the job, not the worker
                log.exception("judging seq %d of table %s failed", decision.seq, job.table_id)
                reason = f"the expert could not judge move {decision.seq}: {error!r}"
                await self._send(client, job, [], error=reason)
                return False
            pending.append(bots_pb2.DecisionJudgement.FromString(judged))
            self.judged += 1
            if len(pending) >= PART_DECISIONS or time.monotonic() >= renew_at:
                answer = await self._submit(client, job, pending, more=True)
                if answer is None:
                    return False
                pending = []
                renew_at = time.monotonic() + _lease_left(answer) * RENEW_SHARE
        if await self._send(client, job, pending):
            self.jobs += 1
            return True
        return False

    async def _send(
        self,
        client: ParlourClient,
        job: bots_pb2.ClaimAnalysisResponse,
        judged: list[bots_pb2.DecisionJudgement],
        *,
        error: str = "",
    ) -> bool:
        return await self._submit(client, job, judged, more=False, error=error) is not None

    async def _submit(
        self,
        client: ParlourClient,
        job: bots_pb2.ClaimAnalysisResponse,
        judged: list[bots_pb2.DecisionJudgement],
        *,
        more: bool,
        error: str = "",
    ) -> bots_pb2.SubmitAnalysisResponse | None:
        """Send one part; None if the job is gone (another worker holds it)."""
        game = job.game
        request = bots_pb2.SubmitAnalysisRequest(
            table_id=job.table_id,
            decisions=judged,
            error=error[:200],
            budget=self.budget or analysis.DEFAULT_BUDGET.get(game, 0),
            threshold=analysis.THRESHOLDS.get(game, 0.0),
            higher_is_better=analysis.HIGHER_IS_BETTER.get(game, True),
            more=more,
        )
        try:
            return await submit_analysis(client, request)
        except ParlourError as refused:
            if refused.code not in JOB_GONE and refused.code != grpc.StatusCode.INVALID_ARGUMENT:
                raise
            log.warning("analysis of table %s given up: %s", job.table_id, refused.message)
            return None


def _lease_left(answer: bots_pb2.ClaimAnalysisResponse | bots_pb2.SubmitAnalysisResponse) -> float:
    """Seconds until the lease the answer names runs out (at least a second)."""
    if not answer.HasField("lease_expires_at"):
        return 1.0
    ends = answer.lease_expires_at.ToDatetime(tzinfo=UTC)
    return max(1.0, (ends - datetime.now(UTC)).total_seconds())
