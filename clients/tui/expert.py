"""The expert's look over a finished game in the terminal (issue 35): the lines said
under each judged move of a replay and each person's summary, from an ``Analysis``
(``proto/parlour/v1/analysis.proto``). The judging is the AI workers'; this only
says it, in the client's language."""

from __future__ import annotations

from collections.abc import Callable

from parlour.v1 import analysis_pb2, common_pb2
from parlour.words import say

from .speech import language, t

#: the states in which the analysis is still to come (asked again every POLL_SECONDS)
PENDING = (analysis_pb2.ANALYSIS_STATE_QUEUED, analysis_pb2.ANALYSIS_STATE_RUNNING)
POLL_SECONDS = 2.0


def points(value: float) -> str:
    """Points to one decimal, with the language's decimal mark ("2.5", "2,5")."""
    text = f"{value:.1f}"
    return text.replace(".", ",") if language() == "pl" else text


def move_words(legal: common_pb2.LegalAction) -> str:
    return say(legal.label or legal.action.text)


def same_move(decision: analysis_pb2.JudgedDecision) -> bool:
    return decision.played.id == decision.best.id


def decision_line(decision: analysis_pb2.JudgedDecision) -> str:
    """The line under a judged move: the expert's choice and the points given away."""
    mark = f"  {t('expert.mistake')}" if decision.marked else ""
    played = decision.played_estimate
    if same_move(decision):
        return t(
            "expert.agrees",
            points=points(played.points),
            low=points(played.low),
            high=points(played.high),
        )
    best = decision.best_estimate
    return (
        t(
            "expert.choice",
            move=move_words(decision.best),
            points=points(best.points),
            low=points(best.low),
            high=points(best.high),
            played=points(played.points),
            cost=points(decision.cost),
            cost_low=points(decision.cost_low),
            cost_high=points(decision.cost_high),
        )
        + mark
    )


def state_line(analysis: analysis_pb2.Analysis) -> str:
    """Where the analysis is, in a sentence."""
    if analysis.state == analysis_pb2.ANALYSIS_STATE_QUEUED:
        return t("expert.queued")
    if analysis.state == analysis_pb2.ANALYSIS_STATE_RUNNING:
        return t("expert.running")
    if analysis.state == analysis_pb2.ANALYSIS_STATE_FAILED:
        why = analysis.error or t("expert.no_reason")
        return t("expert.failed", why=why) + " " + t("expert.ask_again")
    way = t("expert.more_is_better" if analysis.higher_is_better else "expert.fewer_is_better")
    return (
        t("expert.done", budget=analysis.budget, threshold=points(analysis.threshold)) + " " + way
    )


def summary_lines(analysis: analysis_pb2.Analysis, name: Callable[[int], str]) -> list[str]:
    """One line per person: decisions judged, points given away, mistakes marked."""
    return [
        t(
            "expert.summary",
            name=name(summary.seat),
            decisions=summary.decisions,
            points=points(summary.given_away),
            marked=summary.marked,
        )
        for summary in analysis.summaries
    ]
