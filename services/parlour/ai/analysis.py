"""After the game: the expert looks over a person's decisions (issue 35).

A decision is judged from exactly what its seat could see at that moment (its
``View``, with the legal actions the server listed): the hidden cards are
sampled afresh, consistent with that view, and every candidate action is
played out to the end of the hand on the same sampled deals. The result says
what the expert would have chosen, the expected points of the move played and
of the expert's, each with an interval from the play-outs, and the points the
move gave away. A move equal to the expert's gives away 0.

Points are the deciding seat's (Kaiser: its team's) game score change from the
decision to the end of the hand, in the game's own units. ``HIGHER_IS_BETTER``
says which way each game's score runs (Hearts and Crazy 8s count penalties).

This module reads only views (see ``tests/test_boundaries.py``): the same view
and seed give the same judgement on every deal consistent with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from parlour.engine.actions import Action
from parlour.engine.view import View

#: which way each game's score runs: True where more points are better
HIGHER_IS_BETTER: dict[str, bool] = {
    "wizard": True,
    "kaiser": True,
    "hearts": False,
    "crazy8s": False,
}


#: the cost (in the game's points) over which a decision is marked as a mistake
THRESHOLDS: dict[str, float] = {}
#: play-outs per candidate action at the default budget
DEFAULT_BUDGET: dict[str, int] = {}


@dataclass(frozen=True, slots=True)
class Estimate:
    """The expected points of one action over the play-outs, with a 95 % interval."""

    points: float
    low: float
    high: float
    playouts: int


@dataclass(frozen=True, slots=True)
class Judgement:
    """One decision judged: the move played, the expert's, and what the difference cost."""

    played: Action
    played_estimate: Estimate
    best: Action
    best_estimate: Estimate
    #: expected points given away by playing ``played`` instead of ``best`` (>= 0; 0 when
    #: they are the same action), with its 95 % interval from the paired play-outs
    cost: float
    cost_low: float
    cost_high: float
    #: the cost is over the game's threshold (``THRESHOLDS``): a mistake worth showing
    marked: bool


def judge(
    game: str,
    view: View,
    played: Action,
    *,
    seed: int,
    budget: int | None = None,
) -> Judgement:
    """Judge ``played``, one of ``view.legal_actions``, from ``view`` alone."""
    raise NotImplementedError("issue 35: the analysis core is being written")

