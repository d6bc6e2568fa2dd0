"""``parlour ratings --rebuild``: recompute every rating from the event log (issue 31).

Ratings are a projection of the log (``service/app/ratings.py``,
docs/ratings.md): this reads every finished and abandoned table's events,
rates them in the order they ended and replaces the ``results`` and
``ratings`` tables in one transaction, giving the numbers the live
projection gave. Without ``--rebuild`` it prints each game's top ratings.
"""

from __future__ import annotations

import argparse
import asyncio

from parlour.cli.options import database_url_argument, safe_url
from parlour.engine.registry import all_games
from parlour.service.app.ratings import Ratings, provisional
from parlour.service.store.open import open_store, upgrade_head


def add_arguments(parser: argparse.ArgumentParser) -> None:
    database_url_argument(parser)
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="recompute every rating from every ended game, in the order they ended",
    )
    parser.add_argument("--top", type=int, default=10, help="ratings shown per game")


async def _run(args: argparse.Namespace) -> int:
    store = open_store(args.database_url)
    try:
        ratings = Ratings(store)
        if args.rebuild:
            ended, rated = await ratings.rebuild()
            print(
                f"parlour: ratings rebuilt from {ended} ended games ({rated} rated)"
                f" in {safe_url(args.database_url)}",
                flush=True,
            )
        for info in all_games():
            rows = await store.home.leaderboard(
                info.id, include_bots=True, offset=0, limit=args.top
            )
            if not rows:
                continue
            print(f"{info.id}:")
            for rank, row in enumerate(rows, 1):
                mark = "?" if provisional(row) else " "
                name = row.name or row.subject
                print(
                    f"  {rank:3} {row.ordinal:7.2f}{mark} mu {row.mu:6.2f} sigma {row.sigma:5.2f}"
                    f" games {row.games:5}  {name}"
                )
        return 0
    finally:
        await store.close()


def run(args: argparse.Namespace) -> int:
    upgrade_head(args.database_url)
    return asyncio.run(_run(args))
