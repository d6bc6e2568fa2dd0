"""Home benchmark (issue 31): a player's history and a game's leaderboard at size.

On a scratch Postgres database (dropped at the end), migrated to head, this
writes one account's 10,000 finished tables (each with its two seats, the
other a bot, and its result row) among other accounts' tables, and 100,000
accounts' Crazy 8s ratings; then times, through the home store
(``store/home_postgres.py``, the statements HomeService runs):

* ``ListMyGames``: the first page (20) and a page 5,000 tables deep (keyset),
* ``GetLeaderboard``: the first page (20, people only), page 50 and with bots,

each the median (p50) and p95 of ``--runs`` calls, and prints each
statement's plan (EXPLAIN) so the indexes used are named: history reads
``ix_plays_account`` backwards (the account's seats, newest table first), then
``pk_tables``, ``pk_seats`` and ``pk_results`` for the page;
the leaderboard scans ``ix_ratings_board`` (game, bot, ordinal, subject)
or ``ix_ratings_game_ordinal`` backwards.

Run with ``.venv/bin/python bench/home.py [--games 10000] [--accounts 100000]``
(``make bench-home``). A script, not a test: it prints figures, asserts nothing
about time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from statistics import median, quantiles
from typing import Any

import psycopg
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service import DEFAULT_ADMIN_URL, scratch_database

from parlour.service.store.home_postgres import BOARD_ALL, BOARD_PEOPLE, MY_TABLES
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.urls import libpq_url

ME = "bench-player"
START = datetime(2026, 1, 1, tzinfo=UTC)


def seed_postgres(url: str, games: int, others: int, accounts: int) -> None:
    """Bulk rows with COPY: the player's tables, others' tables, the ratings."""
    with psycopg.connect(libpq_url(url)) as conn, conn.cursor() as cur:
        cur.execute(
            "INSERT INTO accounts (account_id, name, name_key, created_at) VALUES (%s, %s, %s, %s)",
            (ME, "Bench", "bench", START),
        )
        with cur.copy(
            "COPY tables (table_id, game, seats, options, status, host_token_hash, version,"
            " name, created_at, updated_at, host_account_id) FROM STDIN"
        ) as copy:
            for n in range(games + others):
                made = START + timedelta(seconds=n * 37)
                copy.write_row(
                    (
                        f"t{n:08d}",
                        "crazy8s",
                        2,
                        "{}",
                        "finished",
                        "x" * 64,
                        60,
                        f"table {n}",
                        made,
                        made + timedelta(minutes=9),
                        ME if n < games else None,
                    )
                )
        with cur.copy(
            "COPY seats (table_id, seat, kind, bot_level, player_name, occupied, account_id)"
            " FROM STDIN"
        ) as copy:
            for n in range(games + others):
                owner = ME if n < games else f"a{n % accounts:07d}"
                copy.write_row((f"t{n:08d}", 0, "person", None, "Bench", True, owner))
                copy.write_row((f"t{n:08d}", 1, "bot", "easy", "Bot 2 (easy)", True, None))
        with cur.copy(
            "COPY results (table_id, game, ending, ended_at, scores, winners, rated) FROM STDIN"
        ) as copy:
            for n in range(games + others):
                ended = START + timedelta(seconds=n * 37, minutes=9)
                copy.write_row(
                    (f"t{n:08d}", "crazy8s", "finished", ended, json.dumps([0, 30]), "[0]", True)
                )
        with cur.copy(
            "COPY ratings (game, subject, account_id, bot, mu, sigma, ordinal, games) FROM STDIN"
        ) as copy:
            for n in range(accounts):
                mu, sigma = 15 + (n * 7919 % 2000) / 100, 1 + (n * 104729 % 700) / 100
                copy.write_row(
                    (
                        "crazy8s",
                        f"account:a{n:07d}",
                        f"a{n:07d}",
                        False,
                        mu,
                        sigma,
                        mu - 3 * sigma,
                        10 + n % 50,
                    )
                )
            for level in ("random", "easy", "normal", "hard", "expert"):
                copy.write_row(("crazy8s", f"bot:crazy8s:{level}", None, True, 25, 1, 22, 5000))
        cur.execute("ANALYZE")
        conn.commit()


async def timed(call: Callable[[], Awaitable[Any]], runs: int) -> tuple[float, float]:
    await call()  # warm: the pool's connection, the prepared statement
    took = []
    for _ in range(runs):
        began = time.perf_counter()
        await call()
        took.append((time.perf_counter() - began) * 1000)
    return median(took), quantiles(took, n=20)[-1]


def plans(url: str, deep: tuple[datetime, str]) -> dict[str, str]:
    """EXPLAIN of each statement, for the indexes it uses."""
    found = {}
    with psycopg.connect(libpq_url(url)) as conn:
        statements = {
            "ListMyGames (first page)": (
                MY_TABLES,
                {"account": ME, "after": None, "key": "", "limit": 21},
            ),
            "ListMyGames (deep page)": (
                MY_TABLES,
                {"account": ME, "after": deep[0], "key": deep[1], "limit": 21},
            ),
            "GetLeaderboard (people)": (BOARD_PEOPLE, ("crazy8s", 0, 21)),
            "GetLeaderboard (with bots)": (BOARD_ALL, ("crazy8s", 0, 21)),
        }
        for name, (statement, params) in statements.items():
            rows = conn.execute(f"EXPLAIN {statement}", params).fetchall()
            found[name] = "\n".join(f"      {row[0]}" for row in rows)
    return found


async def measure(url: str, runs: int) -> None:
    store = open_store(url)
    try:
        home = store.home
        first = await home.my_tables(ME, 21)
        page, after = 0, None
        while page < 250:  # 250 pages of 20: 5,000 tables deep
            rows = await home.my_tables(ME, 20, after)
            after = (rows[-1].created_at, rows[-1].table_id)
            page += 1
        assert len(first) == 21 and after is not None
        deep = after
        figures = {
            "ListMyGames, first page of 20": lambda: home.my_tables(ME, 21),
            "ListMyGames, 5,000 tables deep": lambda: home.my_tables(ME, 21, deep),
            "GetLeaderboard, first page (people)": lambda: home.leaderboard(
                "crazy8s", include_bots=False, offset=0, limit=21
            ),
            "GetLeaderboard, page 50 (people)": lambda: home.leaderboard(
                "crazy8s", include_bots=False, offset=980, limit=21
            ),
            "GetLeaderboard, first page (with bots)": lambda: home.leaderboard(
                "crazy8s", include_bots=True, offset=0, limit=21
            ),
        }
        for name, call in figures.items():
            p50, p95 = await timed(call, runs)
            print(f"  {name:42} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms", flush=True)
    finally:
        await store.close()
    if url.startswith("postgresql"):
        print("\n  plans (EXPLAIN):")
        for name, plan in plans(url, deep).items():
            print(f"    {name}:\n{plan}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="the player's finished tables")
    parser.add_argument("--others", type=int, default=40_000, help="other accounts' tables")
    parser.add_argument("--accounts", type=int, default=100_000, help="rated accounts")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--admin-url", default=DEFAULT_ADMIN_URL)
    args = parser.parse_args()
    admin = sa.make_url(args.admin_url)
    with scratch_database(admin) as scratch:
        url = scratch.render_as_string(hide_password=False)
        upgrade_head(url)
        began = time.perf_counter()
        seed_postgres(url, args.games, args.others, args.accounts)
        print(
            f"parlour bench-home: Postgres, {args.games:,} finished tables of one player among"
            f" {args.games + args.others:,}, {args.accounts:,} rated accounts"
            f" (seeded in {time.perf_counter() - began:.1f} s), {args.runs} calls each",
            flush=True,
        )
        asyncio.run(measure(url, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
