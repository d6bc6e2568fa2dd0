"""Bot levels rated by self-play through the rating projection (issue 31).

Every game is played in process by the engine (``parlour.ai.eval.match.play``),
every seat a bot of a level drawn at random (Kaiser: one level per side, the
two sides different), dealt from seeded shuffles. Each finished game is then
written as the log the service would hold (``TableHosted`` with the seats'
kinds and levels, ``GameFinished`` with the scores and winners) and handed to
the rating projection itself: ``app/ratings.outcome`` reads it and
``HomeStore.record`` (an in-memory event store's) rates it with
``app/ratings.rerate``, exactly as a game that ends at a table is rated.

It prints, per game, each level's ordinal (mu - 3 sigma), mu with its 95%
interval (mu +/- 1.96 sigma), the rated games, and whether the ordinals come
in the documented order (random < normal < expert, and for Hearts random <
easy < normal < hard < expert), with the running time.

Run with ``.venv/bin/python bench/selfplay_ratings.py [--games 200]``
(``make selfplay-ratings``); each game is rated in a process of its own, ``--jobs``
at once (the cores by default), its CPU seconds printed beside its time;
``--quick`` plays short games (the tests' small options) and ``--expert-budget``
lowers the expert's search, for a check run.
A script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from itertools import pairwise
from multiprocessing import get_context
from typing import Any

from parlour.ai.eval.match import Clock, play
from parlour.ai.registry import levels, strategy_for
from parlour.service.app.ratings import outcome, rerate
from parlour.service.domain.events import GameFinished, TableHosted
from parlour.service.store.memory import MemoryEventStore
from parlour.service.store.protocol import stored_events, utcnow

SEATS = {"wizard": (3, 4, 5), "crazy8s": (2, 3, 4), "kaiser": (4,), "hearts": (4,)}
QUICK: dict[str, dict[str, object]] = {
    "wizard": {"rounds": "5"},
    "crazy8s": {"rounds": 1},
    "kaiser": {"target": 32},
    "hearts": {},
}


def seating(game: str, rng: random.Random) -> list[str]:
    offered = levels(game)
    seats = rng.choice(SEATS[game])
    if game == "kaiser":  # two sides, each one level
        first, second = rng.sample(offered, 2)
        return [first, second, first, second]
    return [rng.choice(offered) for _ in range(seats)]


async def rate_game(game: str, count: int, seed: int, quick: bool, budget: int | None) -> None:
    store = MemoryEventStore()
    rng = random.Random(f"{seed}:{game}")
    clock = Clock()
    strategies = {level: strategy_for(game, level, budget) for level in levels(game)}
    began, cpu_began = time.perf_counter(), time.process_time()
    rated = 0
    for number in range(count):
        chosen = seating(game, rng)
        options = QUICK[game] if quick else {}
        state = play(
            game, [strategies[level] for level in chosen], f"{seed}:{game}:{number}", clock, options
        )
        table_id = f"{game}-{number:05d}"
        log = stored_events(
            table_id,
            0,
            [
                TableHosted(
                    game,
                    len(chosen),
                    dict(options),
                    ("bot",) * len(chosen),
                    tuple(chosen),
                    table_id,
                ).new(),
                GameFinished(tuple(state.scores()), tuple(state.winners())).new(),
            ],
            None,
            utcnow(),
        )
        found = outcome(log)
        assert found is not None
        moved = partial(rerate, found)
        if await store.home.record(found.result, found.subjects, moved):
            rated += 1 if found.sides else 0
    took = time.perf_counter() - began
    rows = await store.home.leaderboard(game, include_bots=True, offset=0, limit=100)
    by_level = {row.subject.rsplit(":", 1)[-1]: row for row in rows}
    order = [level for level in levels(game) if level in by_level]
    ordered = all(by_level[low].ordinal < by_level[high].ordinal for low, high in pairwise(order))
    cpu = time.process_time() - cpu_began
    lines = [
        f"\n{game}: {rated} rated games in {took:.1f} s (CPU {cpu:.1f} s)",
        f"  {'level':8} {'ordinal':>8} {'mu':>7}  {'95% interval':>17} {'games':>6}",
    ]
    for level in order:
        row = by_level[level]
        low, high = row.mu - 1.96 * row.sigma, row.mu + 1.96 * row.sigma
        lines.append(
            f"  {level:8} {row.ordinal:8.2f} {row.mu:7.2f}  [{low:6.2f}, {high:6.2f}] {row.games:6}"
        )
    lines.append(f"  ordered as documented ({' < '.join(order)}): {'yes' if ordered else 'NO'}")
    print("\n".join(lines), flush=True)  # one block: the games may run in parallel


def rate_in_process(game: str, count: int, seed: int, quick: bool, budget: int | None) -> None:
    """:func:`rate_game` to its end, in a worker process of its own."""
    asyncio.run(rate_game(game, count, seed, quick, budget))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="rated games per game")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--only", choices=sorted(SEATS), action="append")
    parser.add_argument("--quick", action="store_true", help="short games (a check run)")
    parser.add_argument("--expert-budget", type=int, default=None)
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="games rated at once, a process each"
    )
    args: Any = parser.parse_args(argv)
    began = time.perf_counter()
    # the longest first (measured: Kaiser, then Hearts and Wizard; Crazy 8s is quick)
    games = [g for g in ("kaiser", "hearts", "wizard", "crazy8s") if g in (args.only or SEATS)]
    print(f"parlour selfplay-ratings: {args.games} games each of {', '.join(games)}, "
          f"{args.jobs} at once", flush=True)  # fmt: skip
    with ProcessPoolExecutor(max(1, args.jobs), mp_context=get_context("spawn")) as pool:
        for done in [
            pool.submit(
                rate_in_process, game, args.games, args.seed, args.quick, args.expert_budget
            )
            for game in games
        ]:
            done.result()
    print(f"\nparlour selfplay-ratings: {time.perf_counter() - began:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
