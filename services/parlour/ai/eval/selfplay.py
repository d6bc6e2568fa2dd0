"""Self-play evaluation of the computer opponents: what is measured, and its targets.

The composition root for engines and strategies, with no service involved:
games are played in-process by the engine (``parlour.ai.eval.match``), every
seat driven by the same strategy code the AI worker runs, and the outcome of
chance comes from seeded shuffles, so a run is reproducible from its seed.

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

The expert level is measured on duplicate deals (``parlour.ai.eval.versus``).
Run it as ``parlour selfplay`` (``parlour.cli.selfplay``); the report in words
is ``parlour.ai.eval.report``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise, permutations
from typing import Any

from tqdm import tqdm  # type: ignore[import-untyped]

from parlour.ai.eval import versus
from parlour.ai.eval.match import Clock, play
from parlour.ai.eval.stats import mean_ci, paired_test, proportion
from parlour.ai.registry import strategy_for
from parlour.engine.base import GameState

GAMES = ("wizard", "hearts", "kaiser", "crazy8s")
HEARTS_LEVELS = ("hard", "normal", "easy", "random")  # best first
HEARTS_SESSION = 4  # hands: one round of the passing cycle
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
