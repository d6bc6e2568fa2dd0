"""Self-play evaluation of the computer opponents.

The composition root for engines and strategies, with no service involved:
games are played in-process by the engine, every seat driven by the same
strategy code the AI worker runs, and the outcome of chance comes from seeded
shuffles, so a run is reproducible from its ``--seed``.

What it measures (and the targets it checks):

- Wizard: the share of bids landed exactly, by the AI and by random play
  (target: the AI at least 50%).
- Hearts: mean points per hand of each level and of random play at mixed
  tables (one of each level; every deal is played from all four seatings),
  with 95% confidence intervals and a paired test of each step
  hard < normal < easy < random (target: every step significant at 95%).
- Kaiser: how often an AI partnership beats a random one (target: 80%).
- Crazy 8s: how often the AI beats random play heads-up (target: 60%).
- Decision time per move, p50 and p99 per strategy (target: p99 under 20 ms).

Run it as ``parlour selfplay`` or ``python -m parlour.ai.eval.selfplay``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise, permutations
from typing import Any, Protocol, runtime_checkable

from tqdm import tqdm  # type: ignore[import-untyped]

from parlour.ai.common import Strategy
from parlour.ai.eval import versus
from parlour.ai.registry import strategy_for
from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.playout import shuffled
from parlour.engine.registry import new_game

GAMES = ("wizard", "hearts", "kaiser", "crazy8s")
HEARTS_LEVELS = ("hard", "normal", "easy", "random")  # best first
HEARTS_SESSION = 4  # hands: one round of the passing cycle
Z95 = 1.959963984540054
TARGETS = {
    "wizard_exact": 0.50,
    "kaiser_win": 0.80,
    "crazy8s_win": 0.60,
    "decision_p99_ms": 20.0,
    "wizard_expert_exact": 0.66,
    "hearts_expert_margin": 1.0,
    "hearts_ismcts_margin": 2.0,
    "kaiser_expert_win": 0.5,
    "crazy8s_expert_win": 0.55,
}
DEFAULT_SIZES = {
    "wizard": 2000,
    "hearts": 4000,
    "kaiser": 400,
    "crazy8s": 4000,
    # the expert's matches, a few minutes each (issue 16's closing notes give the sizes of
    # their figures: pass them with --wizard-expert-games and the like)
    "wizard-expert": 48,
    "hearts-expert": 24,
    "hearts-ismcts": 8,
    "kaiser-expert": 10,
    "crazy8s-expert": 600,
}
#: Levels whose decision time is held to the 20 ms target (the expert thinks longer).
SEARCHING = ("expert", "ismcts")

Report = dict[str, Any]
Progress = Callable[[int, str], Any]  # (total, description) -> a tqdm-like bar


class Clock:
    """Time spent choosing each move, per strategy: wall-clock and CPU.

    The wall-clock time is what a player waits (and what the target is
    checked on); the CPU time is the strategy's own cost, unaffected by
    whatever else the machine is running.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self.cpu_seconds: dict[str, list[float]] = defaultdict(list)

    def summary(self) -> dict[str, dict[str, float]]:
        out = {}
        for name, times in sorted(self.seconds.items()):
            ordered = sorted(times)
            cpu = sorted(self.cpu_seconds[name])
            out[name] = {
                "moves": len(ordered),
                "p50_ms": 1000 * quantile(ordered, 0.50),
                "p99_ms": 1000 * quantile(ordered, 0.99),
                "max_ms": 1000 * ordered[-1],
                "cpu_p50_ms": 1000 * quantile(cpu, 0.50),
                "cpu_p99_ms": 1000 * quantile(cpu, 0.99),
            }
        return out


def quantile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank quantile of sorted values."""
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@runtime_checkable
class TableSeat(Protocol):
    """A player that is not a Parlour strategy and needs the table itself (OpenSpiel's
    ISMCTS reads the game mirrored into OpenSpiel, and samples from its own seat's view)."""

    @property
    def name(self) -> str: ...

    def choose_at(self, state: GameState, seat: int, rng: random.Random) -> Action: ...


def play(
    game_id: str,
    strategies: Sequence[Strategy | TableSeat],
    seed: str,
    clock: Clock,
    options: dict[str, object] | None = None,
    hands: int | None = None,
) -> GameState:
    """Play one game to the end (or to the end of ``hands`` hands).

    Seat ``s`` is driven by ``strategies[s]``. The deck shuffles come from
    ``seed`` alone, so two games with the same seed are dealt the same cards
    hand by hand, whoever sits where.
    """
    state = new_game(game_id, len(strategies), options)
    deck_rng = random.Random(f"{seed}:deck")
    seat_rngs = [random.Random(f"{seed}:seat{s}") for s in range(len(strategies))]
    while not state.is_over:
        cards = state.chance()
        if cards is not None:
            if hands is not None and len(state.view(None).hand_scores) >= hands:
                break
            state.deal(shuffled(cards, deck_rng))
            continue
        seat = state.to_act()[0]
        strategy = strategies[seat]
        start, start_cpu = time.perf_counter(), time.thread_time()
        if isinstance(strategy, TableSeat):
            action = strategy.choose_at(state, seat, seat_rngs[seat])
        else:
            view = state.view(seat)
            action = strategy.choose(view, view.legal_actions, seat_rngs[seat])
        clock.cpu_seconds[strategy.name].append(time.thread_time() - start_cpu)
        clock.seconds[strategy.name].append(time.perf_counter() - start)
        state.apply(seat, action)
    return state


# -- statistics ----------------------------------------------------------------------
def mean_ci(values: Sequence[float]) -> dict[str, float]:
    """Mean with a 95% confidence interval (normal approximation)."""
    n = len(values)
    mean = sum(values) / n if n else 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = Z95 * math.sqrt(var / n) if n else 0.0
    return {"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "n": n}


def proportion(wins: float, n: int) -> dict[str, float]:
    """A rate with its 95% Wilson interval."""
    if n == 0:
        return {"rate": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 0}
    p = wins / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return {"rate": p, "ci_low": centre - half, "ci_high": centre + half, "n": n}


def paired_test(differences: Sequence[float]) -> dict[str, Any]:
    """Is the mean difference below zero? Paired z-test, two-sided p (normal approximation)."""
    stats = mean_ci(differences)
    n = len(differences)
    sd = math.sqrt(sum((d - stats["mean"]) ** 2 for d in differences) / (n - 1)) if n > 1 else 0.0
    z = stats["mean"] / (sd / math.sqrt(n)) if sd > 0 else 0.0
    p = math.erfc(abs(z) / math.sqrt(2))
    return {**stats, "z": z, "p": p, "significant": bool(z < -Z95)}


# -- one evaluation per game -----------------------------------------------------------
def evaluate_wizard(rounds: int, seed: int, clock: Clock, progress: Progress) -> Report:
    """Exact bids of all-AI tables and of all-random tables, 3 to 6 seats in turn."""
    report: Report = {}
    for label, level in (("ai", "normal"), ("random", "random")):
        strategy = strategy_for("wizard", level)
        exact = bids = played = games = 0
        with progress(rounds, f"wizard {label}") as bar:
            while played < rounds:
                seats = 3 + games % 4
                state = play("wizard", [strategy] * seats, f"{seed}:wizard:{games}", clock)
                for scores in state.view(None).hand_scores:
                    exact += sum(1 for score in scores if score > 0)  # an exact bid scores 20+
                    bids += len(scores)
                    played += 1
                    bar.update(1)
                games += 1
        report[label] = {"games": games, "rounds": played, "bids": bids, "exact": exact}
        report[label].update(proportion(exact, bids))
    report["target_met"] = report["ai"]["rate"] >= TARGETS["wizard_exact"]
    return report


def hearts_seatings() -> Iterator[tuple[str, ...]]:
    """Every order of the four levels round the table, up to rotation, repeated."""
    orders = [("hard", *rest) for rest in permutations(HEARTS_LEVELS[1:])]
    while True:
        yield from orders


def evaluate_hearts(hands: int, seed: int, clock: Clock, progress: Progress) -> Report:
    """Mixed tables, one seat per level, played as duplicate.

    A session is one round of the passing cycle (left, right, across, none).
    Each session's deals are played from all four rotations of a seating, so
    every level holds every hand; the steps are tested on the per-session
    differences of mean points, which takes the luck of the deal out.
    """
    sessions: dict[str, list[float]] = {level: [] for level in HEARTS_LEVELS}
    played = groups = 0
    seatings = hearts_seatings()
    with progress(hands, "hearts") as bar:
        while played < hands:
            order = next(seatings)
            session: dict[str, list[float]] = {level: [] for level in HEARTS_LEVELS}
            for turn in range(4):
                seating = order[turn:] + order[:turn]
                strategies = [strategy_for("hearts", level) for level in seating]
                seed_text = f"{seed}:hearts:{groups}"
                state = play("hearts", strategies, seed_text, clock, hands=HEARTS_SESSION)
                for scores in state.view(None).hand_scores:
                    for seat, level in enumerate(seating):
                        session[level].append(scores[seat])
                    played += 1
                    bar.update(1)
            for level, taken in session.items():
                sessions[level].append(sum(taken) / len(taken))
            groups += 1
    report: Report = {"hands": played, "sessions": groups, "games": 4 * groups}
    # One sample per session: its 16 hands (four deals from four seatings) are not
    # independent, so the intervals are over sessions, not hands.
    report["points_per_hand"] = {level: mean_ci(sessions[level]) for level in HEARTS_LEVELS}
    steps = {}
    for better, worse in pairwise(HEARTS_LEVELS):
        differences = [a - b for a, b in zip(sessions[better], sessions[worse], strict=True)]
        steps[f"{better}<{worse}"] = paired_test(differences)
    report["steps"] = steps
    report["target_met"] = all(step["significant"] for step in steps.values())
    return report


def evaluate_kaiser(games: int, seed: int, clock: Clock, progress: Progress) -> Report:
    """An AI partnership against a random one, the sides changing seats every game."""
    ai, rnd = strategy_for("kaiser", "normal"), strategy_for("kaiser", "random")
    wins = 0.0
    with progress(games, "kaiser") as bar:
        for game in range(games):
            side = game % 2
            strategies = [ai if seat % 2 == side else rnd for seat in range(4)]
            state = play("kaiser", strategies, f"{seed}:kaiser:{game}", clock)
            wins += _share(state.winners(), {side, side + 2})
            bar.update(1)
    report: Report = {"games": games, "wins": wins, **proportion(wins, games)}
    report["target_met"] = report["rate"] >= TARGETS["kaiser_win"]
    return report


def evaluate_crazy8s(games: int, seed: int, clock: Clock, progress: Progress) -> Report:
    """The AI against random play heads-up, taking the first seat every other game."""
    ai, rnd = strategy_for("crazy8s", "normal"), strategy_for("crazy8s", "random")
    wins = 0.0
    with progress(games, "crazy8s") as bar:
        for game in range(games):
            seat = game % 2
            strategies = [ai, rnd] if seat == 0 else [rnd, ai]
            state = play("crazy8s", strategies, f"{seed}:crazy8s:{game}", clock)
            wins += _share(state.winners(), {seat})
            bar.update(1)
    report: Report = {"games": games, "wins": wins, **proportion(wins, games)}
    report["target_met"] = report["rate"] >= TARGETS["crazy8s_win"]
    return report


def _share(winners: Sequence[int], ours: set[int]) -> float:
    """1 for a win, a share for a tie shared with the other side, 0 for a loss."""
    if not winners or not ours & set(winners):
        return 0.0
    if set(winners) <= ours:
        return 1.0
    return len(ours & set(winners)) / len(winners)


EVALUATIONS: dict[str, Callable[[int, int, Clock, Progress], Report]] = {
    "wizard": evaluate_wizard,
    "hearts": evaluate_hearts,
    "kaiser": evaluate_kaiser,
    "crazy8s": evaluate_crazy8s,
}


# -- the expert level, on duplicate deals (see ``parlour.ai.eval.versus``) ----------------------
@dataclass(frozen=True)
class Settings:
    """How the expert evaluations run: the expert's budget, ISMCTS's simulations."""

    expert_budget: int | None = None
    ismcts_simulations: int = 4000


def _player(clock: Clock) -> versus.Play:
    def run(game: str, players: Sequence[Any], seed: str, hands: int | None) -> GameState:
        return play(game, players, seed, clock, hands=hands)

    return run


def evaluate_wizard_expert(
    games: int, seed: int, clock: Clock, progress: Progress, settings: Settings
) -> Report:
    """Four expert seats against four normal seats on the same shuffles."""
    expert = strategy_for("wizard", "expert", settings.expert_budget)
    normal = strategy_for("wizard", "normal")
    report = versus.wizard(
        _player(clock), expert, normal, games, 4, f"{seed}:wizard-expert", mean_ci, progress
    )
    report["target_met"] = (
        report["a_exact"]["mean"] >= TARGETS["wizard_expert_exact"]
        and report["a_minus_b_points"]["ci_low"] > 0
    )
    return report


def evaluate_hearts_expert(
    deals: int, seed: int, clock: Clock, progress: Progress, settings: Settings
) -> Report:
    """Two expert seats against two hard seats, every deal from both seatings."""
    expert = strategy_for("hearts", "expert", settings.expert_budget)
    report = versus.hearts(
        _player(clock),
        expert,
        strategy_for("hearts", "hard"),
        deals,
        f"{seed}:hearts-expert",
        mean_ci,
        progress,
    )
    report["target_met"] = _ahead(report["a_minus_b"], TARGETS["hearts_expert_margin"])
    return report


def evaluate_hearts_ismcts(
    deals: int, seed: int, clock: Clock, progress: Progress, settings: Settings
) -> Report:
    """Two expert seats against two seats of OpenSpiel's ISMCTS, duplicate deals."""
    from parlour.ai.eval.ismcts import IsmctsSeat

    try:
        ismcts = IsmctsSeat(settings.ismcts_simulations, seed)
    except RuntimeError as error:
        return {"skipped": str(error), "target_met": False}  # not counted in all_targets_met
    expert = strategy_for("hearts", "expert", settings.expert_budget)
    report = versus.hearts(
        _player(clock), expert, ismcts, deals, f"{seed}:hearts-ismcts", mean_ci, progress
    )
    report["ismcts_moves_refused"] = ismcts.refused
    report["target_met"] = _ahead(report["a_minus_b"], TARGETS["hearts_ismcts_margin"])
    return report


def _expert_against_normal(
    game: str, deals: int, seed: int, clock: Clock, progress: Progress, settings: Settings
) -> Report:
    """Games won by the expert against the normal opponent, every deal from every seating."""
    return versus.wins(
        _player(clock),
        game,
        strategy_for(game, "expert", settings.expert_budget),
        strategy_for(game, "normal"),
        deals,
        f"{seed}:{game}-expert",
        mean_ci,
        progress,
    )


def evaluate_kaiser_expert(
    deals: int, seed: int, clock: Clock, progress: Progress, settings: Settings
) -> Report:
    """An expert partnership against a normal one, every deal from both sides' seats."""
    report = _expert_against_normal("kaiser", deals, seed, clock, progress, settings)
    report["target_met"] = report["a_win_share"]["ci_low"] > TARGETS["kaiser_expert_win"]
    return report


def evaluate_crazy8s_expert(
    deals: int, seed: int, clock: Clock, progress: Progress, settings: Settings
) -> Report:
    """The expert against the normal opponent heads-up, every deal from both seats."""
    report = _expert_against_normal("crazy8s", deals, seed, clock, progress, settings)
    report["target_met"] = report["a_win_share"]["mean"] >= TARGETS["crazy8s_expert_win"]
    return report


def _ahead(difference: dict[str, float], margin: float) -> bool:
    """Fewer points by at least ``margin`` a hand, and significantly fewer at all (95%)."""
    return difference["mean"] <= -margin and difference["ci_high"] < 0


EXPERT_EVALUATIONS: dict[str, Callable[[int, int, Clock, Progress, Settings], Report]] = {
    "wizard-expert": evaluate_wizard_expert,
    "hearts-expert": evaluate_hearts_expert,
    "hearts-ismcts": evaluate_hearts_ismcts,
    "kaiser-expert": evaluate_kaiser_expert,
    "crazy8s-expert": evaluate_crazy8s_expert,
}


def evaluate(
    games: Sequence[str] = GAMES,
    sizes: dict[str, int] | None = None,
    seed: int = 1,
    progress: bool = False,
    settings: Settings | None = None,
) -> Report:
    """Run the evaluations named in ``games``; ``sizes`` overrides how much of each is played.

    ``games`` may also name the expert evaluations (``EXPERT_EVALUATIONS``).
    """
    settings = settings or Settings()
    wanted = {**DEFAULT_SIZES, **(sizes or {})}
    clock = Clock()

    def bar(total: int, description: str) -> Any:
        return tqdm(total=total, desc=description, disable=not progress, leave=False)

    report: Report = {"seed": seed}
    started = time.perf_counter()
    for game in games:
        if game in EXPERT_EVALUATIONS:
            report[game] = EXPERT_EVALUATIONS[game](wanted[game], seed, clock, bar, settings)
        else:
            report[game] = EVALUATIONS[game](wanted[game], seed, clock, bar)
    timing = clock.summary()
    report["decision_time"] = timing
    report["seconds"] = time.perf_counter() - started
    held = [
        t["p99_ms"]
        for name, t in timing.items()
        if not name.rsplit("/", 1)[-1].startswith(SEARCHING)  # "hearts/ismcts-4000"
    ]
    worst = max(held, default=0.0)
    report["decision_target_met"] = worst < TARGETS["decision_p99_ms"]
    report["all_targets_met"] = report["decision_target_met"] and all(
        report[game]["target_met"] for game in games if "skipped" not in report[game]
    )
    return report


# -- the report in words ---------------------------------------------------------------
def _pct(stats: dict[str, float]) -> str:
    return f"{100 * stats['rate']:.1f}% [{100 * stats['ci_low']:.1f}, {100 * stats['ci_high']:.1f}]"


def _mark(met: bool) -> str:
    return "target met" if met else "TARGET MISSED"


def format_report(report: Report) -> str:
    lines = [f"Self-play evaluation, seed {report['seed']} ({report['seconds']:.0f} s)"]
    if "wizard" in report:
        w = report["wizard"]
        lines.append(
            f"Wizard    exact bids: AI {_pct(w['ai'])} of {w['ai']['bids']} bids "
            f"({w['ai']['rounds']} rounds); random {_pct(w['random'])} of {w['random']['bids']} "
            f"bids -- {_mark(w['target_met'])} (AI >= 50%)"
        )
    if "hearts" in report:
        h = report["hearts"]
        lines.append(f"Hearts    points per hand over {h['hands']} hands at mixed tables:")
        for level, stats in h["points_per_hand"].items():
            lines.append(
                f"            {level:<7} {stats['mean']:6.2f}  "
                f"[{stats['ci_low']:.2f}, {stats['ci_high']:.2f}]"
            )
        for step, test in h["steps"].items():
            verdict = "significant" if test["significant"] else "NOT significant"
            lines.append(
                f"            {step:<14} difference {test['mean']:+.2f} "
                f"[{test['ci_low']:+.2f}, {test['ci_high']:+.2f}], z={test['z']:.1f}, "
                f"p={test['p']:.2g}: {verdict}"
            )
        lines.append(f"            -- {_mark(h['target_met'])} (every step significant at 95%)")
    if "kaiser" in report:
        k = report["kaiser"]
        lines.append(
            f"Kaiser    AI side beats a random side {_pct(k)} of {k['games']} games "
            f"-- {_mark(k['target_met'])} (>= 80%)"
        )
    if "crazy8s" in report:
        c = report["crazy8s"]
        lines.append(
            f"Crazy 8s  AI beats random heads-up {_pct(c)} of {c['games']} games "
            f"-- {_mark(c['target_met'])} (>= 60%)"
        )
    lines += _format_expert(report)
    lines.append("Decision time per move (ms):   p50     p99     max  p50 cpu  p99 cpu    moves")
    for name, t in report["decision_time"].items():
        lines.append(
            f"  {name:<22} {t['p50_ms']:7.3f} {t['p99_ms']:7.3f} {t['max_ms']:7.2f} "
            f"{t['cpu_p50_ms']:8.3f} {t['cpu_p99_ms']:8.3f} {int(t['moves']):8d}"
        )
    lines.append(
        f"  -- {_mark(report['decision_target_met'])} (p99 < 20 ms for every strategy "
        "but the searching ones: expert and ismcts)"
    )
    lines.append("ALL TARGETS MET" if report["all_targets_met"] else "SOME TARGETS MISSED")
    return "\n".join(lines)


def _ci(stats: dict[str, float], scale: float = 1.0, unit: str = "") -> str:
    return (
        f"{scale * stats['mean']:+.2f}{unit} [{scale * stats['ci_low']:+.2f}, "
        f"{scale * stats['ci_high']:+.2f}] (n={int(stats['n'])})"
    )


def _format_expert(report: Report) -> list[str]:
    """The duplicate-deal evaluations of the expert level, in words."""
    lines = []
    w = report.get("wizard-expert")
    if w:
        lines.append(
            f"Wizard    expert at {w['seats']} expert seats, {w['games']} games "
            f"({w['a_bids']} bids), same shuffles as {w['seats']} normal seats:"
        )
        lines.append(f"            exact bids  expert {_ci(w['a_exact'], 100, '%')}")
        lines.append(f"                        normal {_ci(w['b_exact'], 100, '%')}")
        lines.append(f"            points/round expert {_ci(w['a_points_per_round'])}")
        lines.append(f"                         normal {_ci(w['b_points_per_round'])}")
        lines.append(f"            expert - normal     {_ci(w['a_minus_b_points'])} per round")
        lines.append(
            f"            -- {_mark(w['target_met'])} (>= 66% exact and more points per round)"
        )
    for key, margin in (("hearts-expert", 1.0), ("hearts-ismcts", 2.0)):
        h = report.get(key)
        if not h:
            continue
        if "skipped" in h:
            lines.append(f"Hearts    {key}: skipped: {h['skipped']}")
            continue
        lines.append(
            f"Hearts    {h['a']} v {h['b']}, {h['deals']} duplicate deals ({h['hands']} hands), "
            "points per hand per seat:"
        )
        lines.append(f"            {h['a']:<18} {_ci(h['a_points_per_hand'])}")
        lines.append(f"            {h['b']:<18} {_ci(h['b_points_per_hand'])}")
        lines.append(f"            difference         {_ci(h['a_minus_b'])}")
        if "ismcts_moves_refused" in h:
            lines.append(
                f"            ISMCTS moves refused by Parlour's rules: {h['ismcts_moves_refused']}"
            )
        verdict = _mark(h["target_met"])
        lines.append(f"            -- {verdict} (expert ahead by >= {margin:g}, significantly)")
    for key, words in (("kaiser-expert", "partnership"), ("crazy8s-expert", "heads-up")):
        k = report.get(key)
        if k:
            lines.append(
                f"{'Kaiser' if key.startswith('kaiser') else 'Crazy 8s':<10}{k['a']} v {k['b']} "
                f"{words}, {k['deals']} duplicate deals ({k['games']} games): win share "
                f"{_ci(k['a_win_share'], 100, '%')} -- {_mark(k['target_met'])} "
                f"({'>' if key.startswith('kaiser') else '>='} "
                f"{100 * TARGETS[key.replace('-', '_') + '_win']:.0f}%)"
            )
    return lines


# -- command line ----------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``parlour selfplay``."""
    parser.add_argument(
        "--games",
        default=",".join((*GAMES, *EXPERT_EVALUATIONS)),
        help="comma-separated evaluations: games, and the expert's duplicate-deal matches "
        f"({', '.join(EXPERT_EVALUATIONS)}) (default: all)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed for every shuffle and bot")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    parser.add_argument("--wizard-rounds", type=int, default=DEFAULT_SIZES["wizard"])
    parser.add_argument("--hearts-hands", type=int, default=DEFAULT_SIZES["hearts"])
    parser.add_argument("--kaiser-games", type=int, default=DEFAULT_SIZES["kaiser"])
    parser.add_argument("--crazy8s-games", type=int, default=DEFAULT_SIZES["crazy8s"])
    for name in EXPERT_EVALUATIONS:
        unit = "games" if name.startswith("wizard") else "deals"
        parser.add_argument(f"--{name}-{unit}", type=int, default=DEFAULT_SIZES[name])
    parser.add_argument(
        "--expert-budget",
        type=int,
        default=None,
        help="the expert's thinking budget, simulated card plays per decision (default: its own)",
    )
    parser.add_argument(
        "--ismcts-simulations",
        type=int,
        default=4000,
        help="OpenSpiel ISMCTS simulations per move (default: %(default)s)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")


def run(args: argparse.Namespace) -> int:
    """Run ``parlour selfplay``; the exit status is 0 only when every target is met."""
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    known = (*GAMES, *EXPERT_EVALUATIONS)
    unknown = [g for g in games if g not in known]
    if unknown:
        print(f"unknown game(s): {', '.join(unknown)} (known: {', '.join(known)})", file=sys.stderr)
        return 2
    sizes = {
        "wizard": args.wizard_rounds,
        "hearts": args.hearts_hands,
        "kaiser": args.kaiser_games,
        "crazy8s": args.crazy8s_games,
    }
    for name in EXPERT_EVALUATIONS:
        unit = "games" if name.startswith("wizard") else "deals"
        sizes[name] = getattr(args, f"{name.replace('-', '_')}_{unit}")
    settings = Settings(args.expert_budget, args.ismcts_simulations)
    report = evaluate(games, sizes, args.seed, progress=not args.no_progress, settings=settings)
    print(format_report(report))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=2)
    return 0 if report["all_targets_met"] else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parlour selfplay", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
