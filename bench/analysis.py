"""The analysis core (issue 35): its cost per game, and its calibration against self-play.

``make bench-analysis`` (the default): one game of each kind at its default
options is played by the engine (every seat the normal opponent: Wizard and
Crazy 8s at four seats), then every decision of seat 0 is judged by
``parlour.ai.analysis.judge`` at the default budget, in this one process. It
prints the decisions, the CPU seconds (``time.process_time``) of the analysis
alone, and the games a single worker process analyses a minute (one seat's
decisions a game).

``make analysis-calibration`` (``--calibrate``): self-play games, ``--games``
shared out between Wizard, Crazy 8s, Kaiser and Hearts (or the games ``--game``
names; the make target runs 75 each of Wizard and Hearts and 300 each of Crazy
8s and Kaiser), all at four seats. Seat 0 is the normal opponent (Kaiser: seats
0 and 2, one side) and every other seat the expert at ``--expert-budget`` (the
expert's own default when 0); every decision of the normal seat (Kaiser: of both
its seats) is judged at the analysis's default budget. The games are shortened:
Wizard five rounds, Crazy 8s one round, Kaiser and Hearts two hands. The points
given away in a game (the sum of the costs) are set against two realised
differences, in the good direction: to the expert seats (their mean score in the
game minus the normal seat's; Kaiser: the expert side's minus the normal
side's), and to an expert on the same deals (the game played again from the same
shuffles with an expert in the normal seat: its score minus the normal seat's;
Kaiser: the lead of an expert side over the other minus the normal side's lead,
the points the analysis counts in), which takes most of the luck of the deal
out. Where the expert does not decide by the points the analysis counts
(Kaiser's calls: its expert bids as the normal opponent does; Crazy 8s' plays:
its expert plays for the game's win), the replayed seats take the analysis's
choice (``AnalysisChoices``): against the plain expert those decisions could not
show what they gave away. It prints, per game, the games by bucket of points
given away with the mean of each realised difference and its 95 % interval, and
the Pearson correlation of each with a 95 % bootstrap interval over games, the
least-squares slope of the same-deals difference on the points given away (what
a point given away is worth), and per kind of decision the points given away and
their correlation alone. Games run in worker processes, ``--jobs`` at once (the
cores by default); each finished game is written to ``--rows`` (a line of JSON)
as it comes in, and ``--report FILE`` prints the tables from such a file (of a
run cut short, say); ``--game`` runs only the games named, ``--games`` of them
in all.

Run with ``.venv/bin/python bench/analysis.py [--calibrate --games 300]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from multiprocessing import get_context
from typing import Any

from parlour.ai.analysis import DEFAULT_BUDGET, HIGHER_IS_BETTER, THRESHOLDS, judge, summarise
from parlour.ai.common import Strategy
from parlour.ai.registry import strategy_for
from parlour.engine.actions import Action, ActionKind
from parlour.engine.playout import shuffled
from parlour.engine.registry import new_game
from parlour.engine.view import View

GAMES = ("wizard", "crazy8s", "kaiser", "hearts")
SEATS = {"wizard": 4, "crazy8s": 4, "kaiser": 4, "hearts": 4}
#: the calibration's short games
SHORT: dict[str, dict[str, object]] = {
    "wizard": {"rounds": "5"},
    "crazy8s": {"rounds": 1},
    "kaiser": {},
    "hearts": {},
}
SHORT_HANDS = {"wizard": None, "crazy8s": None, "kaiser": 2, "hearts": 2}
#: the buckets of points given away a game, per game (upper bounds; the last is open)
BUCKETS = {
    "wizard": (25.0, 50.0, 100.0, 150.0),
    "crazy8s": (5.0, 15.0, 30.0, 60.0),
    "kaiser": (5.0, 10.0, 20.0, 40.0),  # the lead between the sides: twice a side's own
    "hearts": (2.5, 5.0, 10.0, 20.0),
}


@dataclass(frozen=True, slots=True)
class Decision:
    view: View
    action: Action


#: the decisions at which the same-deals reference plays the analysis's choice, not its
#: expert's: where the expert does not decide by the points the analysis counts
ANALYSIS_DECIDES: dict[str, frozenset[ActionKind]] = {
    # Kaiser's expert bids and passes as the normal opponent does
    "kaiser": frozenset({ActionKind.BID, ActionKind.PASS}),
    # Crazy 8s' expert plays for the game's win, the analysis counts the round's penalties
    "crazy8s": frozenset({ActionKind.PLAY}),
}


@dataclass(frozen=True, slots=True)
class AnalysisChoices:
    """A seat of the same-deals reference: the expert, but taking the analysis's choice
    (``judge(...).best`` at the default budget, the expert's own choice as the move
    played) at the decisions ``ANALYSIS_DECIDES`` names, where against the plain
    expert the points a decision gave away could not show."""

    game: str
    expert: Strategy

    @property
    def name(self) -> str:
        return f"{self.expert.name}+analysis"

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        action = self.expert.choose(view, legal, rng)
        if len(legal) == 1 or action.kind not in ANALYSIS_DECIDES.get(self.game, ()):
            return action
        return judge(self.game, view, action, seed=rng.randrange(1 << 30)).best


def play_recording(
    game: str,
    strategies: Sequence[Strategy],
    seed: str,
    options: dict[str, object],
    hands: int | None,
    watched: tuple[int, ...] = (0,),
) -> tuple[list[Decision], tuple[int, ...]]:
    """One game by the engine (as ``parlour.ai.eval.match.play``), recording the
    ``watched`` seats' decisions; the decisions and the scores at the end."""
    state = new_game(game, len(strategies), options)
    deck_rng = random.Random(f"{seed}:deck")
    seat_rngs = [random.Random(f"{seed}:seat{s}") for s in range(len(strategies))]
    decisions: list[Decision] = []
    while not state.is_over:
        cards = state.chance()
        if cards is not None:
            if hands is not None and len(state.view(None).hand_scores) >= hands:
                break
            state.deal(shuffled(cards, deck_rng))
            continue
        seat = state.to_act()[0]
        view = state.view(seat)
        action = strategies[seat].choose(view, view.legal_actions, seat_rngs[seat])
        if seat in watched:
            decisions.append(Decision(view, action))
        state.apply(seat, action)
    return decisions, tuple(state.view(None).scores)


def analyse(game: str, decisions: Sequence[Decision], seed: int) -> list[Any]:
    return [judge(game, d.view, d.action, seed=seed + n) for n, d in enumerate(decisions)]


# -- make bench-analysis ------------------------------------------------------------------------
def bench(seed: int) -> None:
    print(
        "parlour bench-analysis: one game of each kind (default options, 4 seats, every "
        "seat normal), every decision of seat 0 judged at the default budget "
        f"({', '.join(f'{g} {DEFAULT_BUDGET[g]} deals' for g in GAMES)})",
        flush=True,
    )
    print(f"  {'game':8} {'decisions':>9} {'played out':>10} {'CPU s':>8} {'ms/decision':>11} "
          f"{'games/min/worker':>16} {'given away':>10} {'marked':>6}")  # fmt: skip
    for game in GAMES:
        normal = strategy_for(game, "normal")
        decisions, _ = play_recording(game, [normal] * SEATS[game], f"{seed}:{game}", {}, None)
        began = time.process_time()
        judged = analyse(game, decisions, seed)
        cpu = time.process_time() - began
        summary = summarise(judged)
        searched = sum(1 for j in judged if j.played_estimate.playouts > 0)
        print(
            f"  {game:8} {len(judged):9} {searched:10} {cpu:8.1f} "
            f"{1000 * cpu / max(1, len(judged)):11.1f} {60 / cpu:16.2f} "
            f"{summary.given_away:10.1f} {summary.marked:6}",
            flush=True,
        )


# -- make analysis-calibration --------------------------------------------------------------------
def calibrate_one(
    game: str, number: int, seed: int, expert_budget: int
) -> tuple[float, float, float, int, list[tuple[str, float, float, float]], float | None]:
    """One self-play game: (points given away by the normal seat or side, realised
    difference to the expert seats, realised difference to an expert on the same deals,
    decisions judged, each judged decision's kind, cost and interval, and for Kaiser the
    difference to the plain expert side on the same deals, whose calls are the normal
    side's own: the plays' and trumps' part alone)."""
    normal = strategy_for(game, "normal")
    expert = strategy_for(game, "expert", expert_budget or None)
    if game == "kaiser":
        seats = [normal, expert, normal, expert]
    else:
        seats = [normal] + [expert] * (SEATS[game] - 1)
    watched = (0, 2) if game == "kaiser" else (0,)
    deals = f"{seed}:{game}:{number}"
    options, hands = dict(SHORT[game]), SHORT_HANDS[game]
    decisions, scores = play_recording(game, seats, deals, options, hands, watched)
    # the reference: the analysed seats played by the expert (taking the analysis's
    # choices where ANALYSIS_DECIDES says), the other seats as they were
    reference: list[Strategy] = [
        AnalysisChoices(game, expert) if seat in watched else expert for seat in range(len(seats))
    ]
    _, experts = play_recording(game, reference, deals, options, hands, ())
    same_calls = None
    if game == "kaiser":
        _, plain = play_recording(game, [expert] * SEATS[game], deals, options, hands, ())
        same_calls = float((plain[0] - plain[1]) - (scores[0] - scores[1]))
    judged = analyse(game, decisions, seed * 1_000_003 + number)
    sign = 1.0 if HIGHER_IS_BETTER[game] else -1.0
    duplicate: float
    if game == "kaiser":  # team scores: 0 is the normal side
        realised = sign * (scores[1] - scores[0])
        # the side's lead, as the analysis counts it, not its own score
        duplicate = sign * ((experts[0] - experts[1]) - (scores[0] - scores[1]))
    else:
        realised = sign * (statistics.fmean(scores[1:]) - scores[0])
        duplicate = sign * (experts[0] - scores[0])
    detail = [
        (d.action.kind.name.lower(), j.cost, j.cost_low, j.cost_high)
        for d, j in zip(decisions, judged, strict=True)
        if j.played_estimate.playouts > 0
    ]
    return summarise(judged).given_away, realised, duplicate, len(judged), detail, same_calls


def kind_sums(detail: Sequence[tuple[str, float, float, float]]) -> dict[str, float]:
    """The points given away by kind of decision: bid, play..."""
    sums: dict[str, float] = {}
    for kind, cost, _, _ in detail:
        sums[kind] = sums.get(kind, 0.0) + cost
    return sums


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float:
    if len(xs) < 2 or statistics.pstdev(xs) == 0 or statistics.pstdev(ys) == 0:
        return float("nan")
    return statistics.correlation(xs, ys)


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The least-squares slope of ``ys`` on ``xs``: realised points a predicted point is worth."""
    if len(xs) < 2 or statistics.pstdev(xs) == 0:
        return float("nan")
    return statistics.linear_regression(xs, ys).slope


def bootstrap(
    xs: Sequence[float],
    ys: Sequence[float],
    rng: random.Random,
    statistic: Callable[[Sequence[float], Sequence[float]], float] = pearson,
) -> tuple[float, float]:
    """The 95 % percentile interval of ``statistic`` over 2,000 resamplings of the games."""
    found = []
    n = len(xs)
    for _ in range(2000):
        picks = [rng.randrange(n) for _ in range(n)]
        r = statistic([xs[i] for i in picks], [ys[i] for i in picks])
        if r == r:
            found.append(r)
    found.sort()
    if not found:
        return float("nan"), float("nan")
    return found[int(0.025 * len(found))], found[int(0.975 * len(found)) - 1]


def table(name: str, rows: Sequence[tuple[float, float, float]], buckets: Sequence[float]) -> None:
    print(f"\n{name}: {len(rows)} games")
    print(
        f"  {'given away':>14} {'games':>6} {'predicted':>10} {'realised':>9} {'± 95%':>7}"
        f" {'duplicate':>9} {'± 95%':>7}"
    )
    bounds = [0.0, *buckets, float("inf")]
    for low, high in pairwise(bounds):
        inside = [row for row in rows if low <= row[0] < high]
        label = f"{low:g}-{high:g}" if high != float("inf") else f"{low:g}+"
        if not inside:
            print(f"  {label:>14} {0:6}")
            continue
        line = f"  {label:>14} {len(inside):6} {statistics.fmean(r[0] for r in inside):10.2f}"
        for column in (1, 2):
            values = [r[column] for r in inside]
            half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
            line += f" {statistics.fmean(values):9.2f} {half:7.2f}"
        print(line)
    xs = [r[0] for r in rows]
    print(f"  mean given away {statistics.fmean(xs):.2f}")
    for column, what in ((1, "to the expert seats"), (2, "to an expert on the same deals")):
        ys = [r[column] for r in rows]
        r = pearson(xs, ys)
        low_r, high_r = bootstrap(xs, ys, random.Random(f"{name}:{column}"))
        print(
            f"  realised {what}: mean {statistics.fmean(ys):.2f}; "
            f"Pearson r = {r:.3f} (95% bootstrap CI {low_r:.3f} to {high_r:.3f})",
            flush=True,
        )
    ys = [r[2] for r in rows]
    low_b, high_b = bootstrap(xs, ys, random.Random(f"{name}:slope"), slope)
    print(
        f"  a point given away is worth {slope(xs, ys):.2f} of the same-deals difference "
        f"(least-squares slope, 95% bootstrap CI {low_b:.2f} to {high_b:.2f})",
        flush=True,
    )


def calibrate(
    games: int, seed: int, jobs: int, expert_budget: int, rows: str, only: Sequence[str] = GAMES
) -> None:
    each = max(1, games // len(only))
    print(
        f"parlour analysis-calibration: {each} games each of {', '.join(only)} "
        f"({each * len(only)} in all), seat 0 normal (Kaiser: seats 0 and 2) against "
        f"experts (budget {expert_budget or 'default'}), {jobs} at once; thresholds "
        f"{THRESHOLDS}, analysis budget {DEFAULT_BUDGET} deals a candidate",
        flush=True,
    )
    began = time.perf_counter()
    decisions = done = 0
    with (
        open(rows, "w", encoding="utf-8") as out,
        ProcessPoolExecutor(max(1, jobs), mp_context=get_context("spawn")) as pool,
    ):
        futures = [
            (game, number, pool.submit(calibrate_one, game, number, seed, expert_budget))
            for number in range(each)
            for game in ("kaiser", "hearts", "wizard", "crazy8s")
            if game in only
        ]
        for game, number, future in futures:
            given, realised, duplicate, count, detail, same_calls = future.result()
            row = {"game": game, "number": number, "given_away": given}
            row |= {"realised": realised, "duplicate": duplicate, "decisions": count}
            row |= {"by_kind": kind_sums(detail), "judged": detail}
            if same_calls is not None:
                row["same_calls"] = same_calls
            out.write(json.dumps(row) + "\n")
            out.flush()
            decisions += count
            done += 1
            if done % 20 == 0:
                took = time.perf_counter() - began
                print(f"  {done} games, {took:.0f} s", flush=True)
    report(rows)
    print(
        f"\nparlour analysis-calibration: {done} games, {decisions} decisions judged, "
        f"{time.perf_counter() - began:.0f} s"
    )


def report(rows: str) -> None:
    """The tables from a file of finished games (``--rows``)."""
    results: dict[str, list[tuple[float, float, float]]] = {game: [] for game in GAMES}
    kinds: dict[str, list[dict[str, float]]] = {game: [] for game in GAMES}
    judged: dict[str, list[list[tuple[str, float, float, float]]]] = {game: [] for game in GAMES}
    same_calls: dict[str, list[float]] = {game: [] for game in GAMES}
    with open(rows, encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            results[row["game"]].append((row["given_away"], row["realised"], row["duplicate"]))
            if "by_kind" in row:  # (rows of earlier runs have no split)
                kinds[row["game"]].append(row["by_kind"])
            if "judged" in row:  # (nor each decision's cost and interval)
                judged[row["game"]].append([tuple(d) for d in row["judged"]])
            if "same_calls" in row:
                same_calls[row["game"]].append(row["same_calls"])
    for game in GAMES:
        if results[game]:
            duplicate = [row[2] for row in results[game]]
            table(game, results[game], BUCKETS[game])
            if len(kinds[game]) == len(results[game]):
                by_kind(game, kinds[game], duplicate)
                if len(same_calls[game]) == len(results[game]):
                    print("  against the plain expert side on the same deals (the same calls):")
                    by_kind(game, kinds[game], same_calls[game])
            if len(judged[game]) == len(results[game]):
                beyond_noise(game, judged[game], duplicate)


def beyond_noise(
    game: str,
    judged: Sequence[Sequence[tuple[str, float, float, float]]],
    duplicate: Sequence[float],
) -> None:
    """The points given away counting only the costs whose interval lies above 0, and
    only their lower ends: how much of the prediction's spread is the play-outs' noise."""

    def beyond(cost: float, low: float) -> float:
        return cost if low > 0 else 0.0

    def lower_end(cost: float, low: float) -> float:
        return max(0.0, low)

    picks: tuple[tuple[str, Callable[[float, float], float]], ...] = (
        ("costs whose interval is above 0", beyond),
        ("the lower ends of the intervals", lower_end),
    )
    for what, pick in picks:
        xs = [sum(pick(cost, low) for _, cost, low, _ in game_judged) for game_judged in judged]
        r = pearson(xs, duplicate)
        low_r, high_r = bootstrap(xs, duplicate, random.Random(f"{game}:{what}"))
        print(
            f"  {what} alone: mean given away {statistics.fmean(xs):.2f}; Pearson r with the "
            f"same-deals difference = {r:.3f} (95% bootstrap CI {low_r:.3f} to {high_r:.3f})"
        )


def by_kind(game: str, split: Sequence[dict[str, float]], duplicate: Sequence[float]) -> None:
    """Each kind of decision's share of the points given away, and how well it alone
    predicts the difference to an expert on the same deals."""
    for kind in sorted({kind for game_split in split for kind in game_split}):
        xs = [game_split.get(kind, 0.0) for game_split in split]
        r = pearson(xs, duplicate)
        low_r, high_r = bootstrap(xs, duplicate, random.Random(f"{game}:{kind}"))
        print(
            f"  {kind} decisions alone: mean given away {statistics.fmean(xs):.2f}; "
            f"Pearson r with the same-deals difference = {r:.3f} "
            f"(95% bootstrap CI {low_r:.3f} to {high_r:.3f})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calibrate", action="store_true", help="the calibration run")
    parser.add_argument("--games", type=int, default=300, help="calibration games in all")
    parser.add_argument(
        "--game",
        action="append",
        choices=GAMES,
        help="calibrate only this game (repeatable; default: all four, --games shared out)",
    )
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--expert-budget", type=int, default=0, help="0: the expert's default")
    parser.add_argument("--rows", default="build/analysis-calibration.jsonl")
    parser.add_argument("--report", metavar="FILE", help="print the tables of a --rows file")
    args: Any = parser.parse_args(argv)
    if args.report:
        report(args.report)
    elif args.calibrate:
        os.makedirs(os.path.dirname(args.rows) or ".", exist_ok=True)
        only = tuple(args.game or GAMES)
        calibrate(args.games, args.seed, args.jobs, args.expert_budget, args.rows, only)
    else:
        bench(args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
