"""Deterministic counts of the watched shape: store reads and Python calls per move.

``make bench-service`` measures CPU time, which other load on a shared machine
moves. This counts instead: it starts ``parlour serve`` on a scratch Postgres
database under cProfile, with the dealer seeded (``secrets.SystemRandom`` is
``random.Random(12345)`` in the served process, so the deals repeat), sets up
``--games`` tables with every seat (and ``--spectators`` more) on its own Watch
stream, then profiles only the moves: ``--moves`` seeded random legal moves per
game, one in flight per game, each from the view the seat's stream brought
(``bench/service.py``'s watched shape). It prints, per move: the store's event
reads and table reads, the Python function calls, and the functions that took
the most time (cumulative and own).

Run with ``.venv/bin/python bench/fanout_counts.py [--games 16] [--moves 24]``.
This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import pstats
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).parent))
from service import (
    DEFAULT_ADMIN_URL,
    GAMES,
    Tally,
    WatchTally,
    clients_for,
    new_table,
    play,
    process,
    scratch_database,
    watched_game,
)

from parlour.client import ParlourClient
from parlour.service.grpc import rates

#: runs ``parlour serve`` with a seeded dealer under cProfile; SIGUSR1 starts the
#: profile, the next SIGUSR1 stops it and writes it to the file named first
SERVED = """
import cProfile, json, random, secrets, signal, sys
secrets.SystemRandom = lambda: random.Random(12345)
from parlour.cli import main
from parlour.service.store.postgres import PostgresEventStore
out, profile, on, counts = sys.argv[1], cProfile.Profile(), [], {"read": 0, "get_table": 0}
def counting(name):
    original = getattr(PostgresEventStore, name)
    async def counted(self, *args, **kwargs):
        counts[name] += 1
        return await original(self, *args, **kwargs)
    setattr(PostgresEventStore, name, counted)
for name in counts:
    counting(name)
def toggle(*_):
    if on:
        profile.disable(); on.clear()
        with open(out + ".json", "w") as file:
            json.dump(counts, file)
        profile.dump_stats(out)
    else:
        counts.update(read=0, get_table=0); on.append(1); profile.enable()
signal.signal(signal.SIGUSR1, toggle)
sys.exit(main(sys.argv[2:]))
"""


async def moves_watched(address: str, games: int, moves: int, spectators: int, pid: int) -> int:
    """Set up ``games`` watched tables, then profile ``moves`` moves of each; moves made."""
    clients = clients_for(address, games, 4 + spectators + 1)
    tables = [
        await new_table(clients[i % len(clients)], *GAMES[i % len(GAMES)]) for i in range(games)
    ]
    tallies = [WatchTally() for _ in range(games)]
    started = asyncio.Event()

    async def one(i: int) -> None:
        await started.wait()
        await watched_game(
            clients[i % len(clients)],
            tables[i],
            float("inf"),
            tallies[i],
            random.Random(i),
            spectators,
            moves,
        )

    runs = [asyncio.create_task(one(i)) for i in range(games)]
    await asyncio.sleep(0.5)
    os.kill(pid, signal.SIGUSR1)  # the profile starts (streams open at the first move)
    started.set()
    await asyncio.gather(*runs)
    os.kill(pid, signal.SIGUSR1)  # and stops
    for client in clients:
        await client.close()
    return sum(tally.moves for tally in tallies)


async def moves_today(address: str, games: int, moves: int, pid: int) -> int:
    """Today's shape (GetView and Act, no Watch: bench/service.py's ``play``), profiled
    from the first table's hosting: ``moves`` Acts per game; Acts made."""
    clients = [ParlourClient(address) for _ in range(max(1, games // 16))]
    tallies = [Tally() for _ in range(games)]
    os.kill(pid, signal.SIGUSR1)
    await asyncio.gather(
        *(
            play(clients[i % len(clients)], i, math.inf, tallies[i], random.Random(i), moves=moves)
            for i in range(games)
        )
    )
    os.kill(pid, signal.SIGUSR1)
    for client in clients:
        await client.close()
    return sum(len(tally.act_ms) for tally in tallies)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=16, help="games in flight")
    parser.add_argument("--moves", type=int, default=24, help="moves profiled per game")
    parser.add_argument("--spectators", type=int, default=0, help="spectators per game")
    parser.add_argument("--top", type=int, default=25, help="functions listed")
    parser.add_argument(
        "--today",
        action="store_true",
        help="today's shape (GetView and Act) instead, setup included",
    )
    parser.add_argument("--profile-out", help="also keep the profile (pstats) in this file")
    args = parser.parse_args()
    for knob in rates.KNOBS:
        os.environ[knob.env] = "0"
    admin = sa.make_url(
        os.environ.get("PARLOUR_BENCH_POSTGRES_URL")
        or os.environ.get("PARLOUR_TEST_POSTGRES_URL")
        or DEFAULT_ADMIN_URL
    ).set(drivername="postgresql+psycopg")
    with tempfile.TemporaryDirectory() as scratch, scratch_database(admin) as url:
        out = Path(scratch) / "served.prof"
        serve = [sys.executable, "-c", SERVED, str(out), "serve", "--address", "127.0.0.1:0"]
        serve += ["--database-url", url.render_as_string(hide_password=False)]
        with process(serve, "serving on") as server:
            if args.today:
                made = asyncio.run(moves_today(server.address, args.games, args.moves, server.pid))
            else:
                made = asyncio.run(
                    moves_watched(
                        server.address, args.games, args.moves, args.spectators, server.pid
                    )
                )
            deadline = time.monotonic() + 30
            while not out.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(0.5)
            stats = pstats.Stats(str(out))
            counted = json.loads(Path(f"{out}.json").read_text())
    total = stats.total_calls  # type: ignore[attr-defined]
    reads, rows = counted["read"], counted["get_table"]
    print(
        f"{args.games} games in flight, {args.spectators} spectators per game,"
        f" {made} moves profiled ({args.moves} per game)"
    )
    print(f"  store event reads per move   {reads / made:8.2f}")
    print(f"  store table reads per move   {rows / made:8.2f}")
    print(f"  Python calls per move        {total / made:8.0f} (coroutine resumptions counted)")
    if args.profile_out:
        stats.dump_stats(args.profile_out)
    print(f"  profiled seconds per move    {stats.total_tt * 1000 / made:8.2f} ms (under cProfile)")  # type: ignore[attr-defined]
    stats.sort_stats("cumulative").print_stats(args.top)
    stats.sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
