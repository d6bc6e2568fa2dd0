"""After the game: the expert looks over a person's decisions (issue 35).

A decision is judged from exactly what its seat could see at that moment (its
``View``, with the legal actions the server listed): the hidden cards are
sampled afresh, consistent with that view, and every candidate action is
played out to the end of the hand on the same sampled deals. The result says
what the expert would have chosen, the expected points of the move played and
of the expert's, each with an interval from the play-outs, and the points the
move gave away. A move equal to the expert's gives away 0.

Points are the deciding seat's game score change (Kaiser: its team's lead over the
other team, which a Kaiser game is won on) from the decision to the end of the
hand, in the game's own units. ``HIGHER_IS_BETTER`` says which way each game's
score runs (Hearts and Crazy 8s count penalties).

This module reads only views (see ``tests/test_boundaries.py``): the same view
and seed give the same judgement on every deal consistent with it.

Candidates: every legal action, except the documented capped sets of
``analysis_trials`` (Wizard bids near the normal estimate; Hearts passes),
which always hold the move played and the expert's own choice. A decision with
one legal action gives away 0, with no play-outs. The expert's choice is the
candidate with the best mean over the even-numbered deals (a tie goes to the
move played); the cost of the move played is the mean of its paired differences
to the expert's over the odd-numbered deals, its interval mean +/- 1.96 sd /
sqrt(n) (Wizard's deals weighted by how well they explain the bids, as its
expert weighs them). Chosen and measured on the same deals, the best of several
noisy means is better than it is by that noise, and a move as good as the best
would seem to give points away: the calibration's sums ran 1.7 to 4.6 times the
real losses. Where the odd deals show no loss, the move played stands as the
expert's choice and costs 0. The expected points shown for each move are over
all the deals.

Thresholds (``THRESHOLDS``), in each game's points, chosen above the noise of
the default budget and at about the smallest loss a player would call a mistake:

- Wizard 10: a trick off the bid costs 10, and missing an exact bid 30 or more;
  a move that moves the chance of the bid by a quarter or more is marked.
- Kaiser 4: a hand's 10 points can swing the lead by 20; two tricks the other
  side takes instead move it 4 (one point fewer for us, one more for them), and
  the three of spades given to one's own side instead of theirs moves it 6.
- Hearts 3: three hearts, or a quarter of the queen of spades's 13; one point
  (a single heart) is within the play-outs' noise.
- Crazy 8s 10: the penalty of one court card or ten; the penalties run to 50
  an eight, so less than that is noise over a round's play-outs.

The default budget (``DEFAULT_BUDGET``) is the number of deals each candidate
is played out on; it keeps a whole game's analysis of one seat to tens of CPU
seconds at most on the compiled play-outs (``make bench-analysis`` measures it).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from parlour.ai.analysis_trials import TRIALS
from parlour.engine.actions import Action, ActionKind
from parlour.engine.view import View

#: which way each game's score runs: True where more points are better
HIGHER_IS_BETTER: dict[str, bool] = {
    "wizard": True,
    "kaiser": True,
    "hearts": False,
    "crazy8s": False,
}


#: the cost (in the game's points) over which a decision is marked as a mistake
THRESHOLDS: dict[str, float] = {"wizard": 10.0, "kaiser": 4.0, "hearts": 3.0, "crazy8s": 10.0}
#: play-outs per candidate action at the default budget
DEFAULT_BUDGET: dict[str, int] = {"wizard": 1000, "kaiser": 300, "hearts": 1000, "crazy8s": 1000}
#: the normal quantile of a 95 % interval
Z = 1.96


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
    """Judge ``played``, one of ``view.legal_actions``, from ``view`` alone.

    ``budget`` is the number of deals each candidate is played out on (None:
    ``DEFAULT_BUDGET[game]``). The same view, move, seed and budget give the
    same judgement. A Hearts pass of several cards at once ("give QS KH 2C")
    is judged too, though the view lists its cards one by one.
    """
    if game not in TRIALS:
        raise KeyError(f"no analysis for game {game!r} (known: {', '.join(TRIALS)})")
    legal = view.legal_actions
    several = played.kind is ActionKind.GIVE and len(played.cards) > 1
    if played not in legal and not (several and all(Action.give(c) in legal for c in played.cards)):
        raise ValueError(
            f"{game}: {played} is not one of the legal actions {list(map(str, legal))}"
        )
    if len(legal) == 1 and not several:
        return forced(played)
    deals = DEFAULT_BUDGET[game] if budget is None else budget
    if deals < 2:
        raise ValueError(f"the budget must be at least 2 deals a candidate, not {deals}")
    trial = TRIALS[game](view, played)
    rng = random.Random(f"analysis:{game}:{seed}")
    weights: list[float] = []
    rows: list[list[float]] = []
    for _ in range(deals):
        got = trial.sample(rng)
        if got is not None and got[0] > 0.0:
            weights.append(got[0])
            rows.append(got[1])
    if not rows:
        raise ValueError(f"{game}: no deal of the unseen cards fits the view of seat {view.seat}")
    return verdict(game, trial.candidates, played, weights, rows)


def forced(played: Action) -> Judgement:
    """The only legal action: nothing to choose, nothing given away, nothing played out."""
    none = Estimate(0.0, 0.0, 0.0, 0)
    return Judgement(played, none, played, none, 0.0, 0.0, 0.0, False)


def estimate(values: Sequence[float], weights: Sequence[float]) -> Estimate:
    """The weighted mean of ``values`` with its 95 % interval (mean +/- 1.96 standard errors)."""
    total = sum(weights)
    mean = sum(w * v for w, v in zip(weights, values, strict=True)) / total
    n = len(values)
    spread = sum(w * w * (v - mean) ** 2 for w, v in zip(weights, values, strict=True))
    error = math.sqrt(spread * n / (n - 1)) / total if n > 1 else 0.0
    return Estimate(mean, mean - Z * error, mean + Z * error, n)


def verdict(
    game: str,
    candidates: Sequence[Action],
    played: Action,
    weights: Sequence[float],
    rows: Sequence[Sequence[float]],
) -> Judgement:
    """The judgement from each deal's weight and each candidate's score on it."""
    sign = 1.0 if HIGHER_IS_BETTER[game] else -1.0
    columns = [[row[n] for row in rows] for n in range(len(candidates))]
    estimates = [estimate(column, weights) for column in columns]
    mine = candidates.index(played)
    # chosen on the even deals, measured on the odd ones (see the module's docstring);
    # with too few deals to split, both on all of them
    split = len(rows) >= 4
    choosing = [estimate(column[0::2], weights[0::2]) for column in columns] if split else estimates
    best = mine
    for n in range(len(candidates)):
        if sign * choosing[n].points > sign * choosing[best].points:
            best = n
    cost = low = high = 0.0
    if best != mine:
        start, step = (1, 2) if split else (0, 1)
        paired = [
            sign * (b - p)
            for b, p in zip(columns[best][start::step], columns[mine][start::step], strict=True)
        ]
        given = estimate(paired, weights[start::step])
        if given.points > 0.0:
            cost, low, high = given.points, given.low, given.high
        else:  # no loss where it was measured: the move played stands
            best = mine
    return Judgement(
        played=played,
        played_estimate=estimates[mine],
        best=candidates[best],
        best_estimate=estimates[best],
        cost=cost,
        cost_low=low,
        cost_high=high,
        marked=cost > THRESHOLDS[game],
    )


@dataclass(frozen=True, slots=True)
class Summary:
    """One seat's decisions over a game: what they gave away, and the worst of them."""

    decisions: int
    #: expected points given away, summed over the decisions
    given_away: float
    #: the decisions over the game's threshold
    marked: int
    #: the costliest decisions (index into the judgements summarised, judgement), worst first
    biggest: tuple[tuple[int, Judgement], ...]


#: how many of the costliest decisions a summary keeps
BIGGEST = 3


def summarise(judgements: Sequence[Judgement], biggest: int = BIGGEST) -> Summary:
    """A seat's summary: the total expected points given away, the count marked and
    the ``biggest`` costliest decisions (those that gave nothing away left out)."""
    ranked = sorted(
        ((n, j) for n, j in enumerate(judgements) if j.cost > 0.0),
        key=lambda pair: (-pair[1].cost, pair[0]),
    )
    return Summary(
        decisions=len(judgements),
        given_away=sum(j.cost for j in judgements),
        marked=sum(1 for j in judgements if j.marked),
        biggest=tuple(ranked[:biggest]),
    )
