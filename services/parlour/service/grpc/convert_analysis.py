"""The analyses' messages (issue 35): a stored analysis as the contract's Analysis,
a claimed job as ClaimAnalysis's answer, SubmitAnalysis's part for the application.

The stored result's JSON is turned into messages here, each action said in the
call's language (``LegalAction.label``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parlour.contract.actions import legal_entry
from parlour.engine.actions import Action
from parlour.service.app.analysis import Job, Judged, Part
from parlour.service.grpc import convert
from parlour.service.store.protocol import AnalysisRow, AnalysisState
from parlour.v1 import analysis_pb2, bots_pb2, common_pb2

STATE_TO_PROTO = {
    AnalysisState.QUEUED: analysis_pb2.ANALYSIS_STATE_QUEUED,
    AnalysisState.RUNNING: analysis_pb2.ANALYSIS_STATE_RUNNING,
    AnalysisState.DONE: analysis_pb2.ANALYSIS_STATE_DONE,
    AnalysisState.FAILED: analysis_pb2.ANALYSIS_STATE_FAILED,
}


def _legal(number: int, text: str) -> common_pb2.LegalAction:
    action, label = legal_entry(Action.parse(text))
    answer = common_pb2.LegalAction(id=number, label=label)
    answer.action.CopyFrom(action)
    return answer


def _estimate(values: Sequence[float]) -> analysis_pb2.Estimate:
    points, low, high, playouts = values
    return analysis_pb2.Estimate(points=points, low=low, high=high, playouts=int(playouts))


def _decision(item: Mapping[str, Any]) -> analysis_pb2.JudgedDecision:
    cost, cost_low, cost_high = item["cost"]
    return analysis_pb2.JudgedDecision(
        seq=item["seq"],
        seat=item["seat"],
        hand_number=item["hand"],
        phase=item["phase"],
        played=_legal(*item["played"]),
        best=_legal(*item["best"]),
        played_estimate=_estimate(item["played_estimate"]),
        best_estimate=_estimate(item["best_estimate"]),
        cost=cost,
        cost_low=cost_low,
        cost_high=cost_high,
        marked=item["marked"],
    )


def analysis_message(row: AnalysisRow) -> analysis_pb2.Analysis:
    """The contract's Analysis of a stored row (decisions and summaries once DONE)."""
    state = AnalysisState(row.state)
    answer = analysis_pb2.Analysis(
        table_id=row.table_id, game=row.game, state=STATE_TO_PROTO[state], error=row.error or ""
    )
    answer.requested_at.FromDatetime(row.requested_at)
    if row.finished_at is not None:
        answer.finished_at.FromDatetime(row.finished_at)
    result = row.result or {}
    answer.higher_is_better = bool(result.get("higher_is_better", True))
    if state is AnalysisState.DONE:
        answer.budget = int(result.get("budget", 0))
        answer.threshold = float(result.get("threshold", 0.0))
        answer.decisions.extend(_decision(item) for item in result.get("decisions", ()))
        answer.summaries.extend(
            analysis_pb2.SeatSummary(
                seat=summary["seat"],
                decisions=summary["decisions"],
                given_away=summary["given_away"],
                marked=summary["marked"],
                biggest_mistakes=summary["biggest"],
            )
            for summary in result.get("summaries", ())
        )
    return answer


def claim_message(job: Job) -> bots_pb2.ClaimAnalysisResponse:
    """ClaimAnalysis's answer: each decision with its seat's own view, as GetView gave it."""
    table = job.table
    answer = bots_pb2.ClaimAnalysisResponse(
        claimed=True,
        table_id=table.table_id,
        game=table.game,
        options={name: convert.option_text(value) for name, value in table.options.items()},
    )
    if job.row.lease_expires_at is not None:
        answer.lease_expires_at.FromDatetime(job.row.lease_expires_at)
    for decision in job.decisions:
        answer.decisions.add(
            seq=decision.seq,
            seat=decision.seat,
            view=convert.view(decision.view, table),
            played_legal_action_id=decision.played,
        )
    return answer


def part_from(request: bots_pb2.SubmitAnalysisRequest) -> Part:
    """SubmitAnalysis's part as the application takes it."""
    return Part(
        judged=[
            Judged(
                seq=item.seq,
                best=item.best_legal_action_id,
                played_estimate=(
                    item.played_points,
                    item.played_low,
                    item.played_high,
                    item.played_playouts,
                ),
                best_estimate=(item.best_points, item.best_low, item.best_high, item.best_playouts),
                cost=(item.cost, item.cost_low, item.cost_high),
                marked=item.marked,
            )
            for item in request.decisions
        ],
        more=request.more,
        error=request.error,
        budget=request.budget,
        threshold=request.threshold,
        higher_is_better=request.higher_is_better,
    )
