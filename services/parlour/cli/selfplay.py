"""``parlour selfplay``: measure the computer opponents, in-process, against their targets.

Plays the evaluations named by ``--games`` (see ``parlour.ai.eval.selfplay``),
prints the report in words and, with ``--json FILE``, writes it as JSON too.
The exit status is 0 only when every target is met (1 otherwise, 2 for an
unknown evaluation), so ``make selfplay`` fails when a level gets weaker.
"""

from __future__ import annotations

import argparse
import json
import sys

from parlour.ai.eval.report import format_report
from parlour.ai.eval.selfplay import (
    DEFAULT_SIZES,
    EXPERT_EVALUATIONS,
    GAMES,
    Settings,
    evaluate,
)


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
