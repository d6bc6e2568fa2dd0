"""The game service's instructions per move, counted by valgrind (callgrind).

``make bench-service`` measures CPU time, which other load on a shared machine
moves by tens of percent between runs (steal time, a busy neighbour). This
counts the instructions the service process executes instead: the same for
the same code and the same moves, whatever else runs. It starts ``parlour
serve`` under ``valgrind --tool=callgrind`` on a scratch Postgres database,
warms it up, then plays a fixed, seeded sequence of random legal moves at one
move in flight (the same client loop as the benchmark: a seat fetches its view,
at least at the version the last answer named, unless its own last Act
answered it), an equal number in each game, new
tables included, and prints the instructions per Act (its GetViews included).

With ``--shape watched`` it plays ``bench/service.py``'s watched shape instead
(every seat of the game on its own Watch stream, one game at a time, each move
made from the view its seat's stream brought) and counts the instructions per
move, the Act and every Watch message it causes; then it counts the skeleton
(``bench/skeleton.py``, canned answers captured from this service, one commit
per Act) on the same moves under valgrind too and prints the ratio; and the bare
game (``bench/game_skeleton.py``: the skeleton that also plays the game, its
rules, views and bytes) on the service's moves. valgrind
counts only the process's own instructions, not the kernel's work for its
system calls, which both pay alike.

Run with ``.venv/bin/python bench/act_cost.py [--moves 400]`` (``make
bench-act-cost``; valgrind runs the service about 50x slower, so this takes a
few minutes). This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).parent))
import pickle

import skeleton
from service import (
    DEFAULT_ADMIN_URL,
    FLOOR_TABLE,
    GAMES,
    Tally,
    WatchTally,
    libpq,
    new_table,
    play,
    process,
    scratch_database,
    watched_game,
)

from parlour.client import ParlourClient
from parlour.service.grpc import rates


async def play_moves(address: str, per_game: int, seed: int) -> tuple[int, int]:
    """Play ``per_game`` moves of each game (new tables as games end); (acts, views)."""
    rng = random.Random(seed)
    tally = Tally()
    async with ParlourClient(address) as client:
        for index in range(len(GAMES)):
            await play(client, index, math.inf, tally, rng, moves=len(tally.act_ms) + per_game)
    return len(tally.act_ms), len(tally.view_ms)


async def watch_moves(address: str, per_game: int, seed: int, games: int = len(GAMES)) -> int:
    """Play ``per_game`` moves of each of the first ``games`` games, every seat watching
    (new tables as games end); the moves made."""
    rng = random.Random(seed)
    tally = WatchTally()
    async with ParlourClient(address) as client:
        for index in range(games):
            goal = tally.moves + per_game
            while tally.moves < goal:
                table = await new_table(client, *GAMES[index])
                await watched_game(client, table, math.inf, tally, rng, 0, goal)
    return tally.moves


def dump(pid: int, files: Path, count: int) -> Path:
    """Ask callgrind for a dump of the counts since the last one; the new file."""
    subprocess.run(["callgrind_control", "--dump", str(pid)], check=True, capture_output=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = sorted(files.glob(f"callgrind.out.{pid}.{count}"))
        if found:
            return found[0]
        time.sleep(0.5)
    raise RuntimeError("callgrind wrote no dump")


def total_instructions(path: Path) -> int:
    for _ in range(60):  # the file is complete once its summary line is written
        match = re.search(r"^(?:summary|totals):\s*(\d+)", path.read_text(), re.MULTILINE)
        if match:
            return int(match.group(1))
        time.sleep(0.5)
    raise RuntimeError(f"no totals in {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=400, help="moves measured (all games)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--shape",
        choices=("today", "watched"),
        default="today",
        help="today: GetView and Act; watched: every seat on Watch, beside the skeleton",
    )
    args = parser.parse_args()
    admin = sa.make_url(
        os.environ.get("PARLOUR_BENCH_POSTGRES_URL")
        or os.environ.get("PARLOUR_TEST_POSTGRES_URL")
        or DEFAULT_ADMIN_URL
    )
    per_game = max(1, args.moves // len(GAMES))
    # every client runs here, from one address: the per-caller rates would refuse it
    for knob in rates.KNOBS:
        os.environ[knob.env] = "0"
    with tempfile.TemporaryDirectory() as tmp, scratch_database(admin) as url:
        files = Path(tmp)
        serve = [sys.executable, "-m", "parlour.cli", "serve", "--address", "127.0.0.1:0"]
        serve += ["--database-url", url.render_as_string(hide_password=False)]
        with process(counted(serve, files), "serving on", start_seconds=600) as server:
            if args.shape == "today":
                asyncio.run(play_moves(server.address, 10, args.seed + 1000))  # warm up
                dump(server.pid, files, 1)
                acts, views = asyncio.run(play_moves(server.address, per_game, args.seed))
                instructions = total_instructions(dump(server.pid, files, 2))
                print(
                    f"moves: {acts} Acts ({per_game} of each game) and {views} GetViews"
                    " (besides each new table's first)"
                )
                print(
                    f"service instructions per Act, its GetViews and new tables included: "
                    f"{instructions / acts / 1e6:.2f} million"
                )
                return 0
            asyncio.run(watch_moves(server.address, 10, args.seed + 1000))  # warm up
            dump(server.pid, files, 1)
            moves = asyncio.run(watch_moves(server.address, per_game, args.seed))
            service = total_instructions(dump(server.pid, files, 2)) / moves
            canned = asyncio.run(skeleton.capture(server.address))
        with psycopg.connect(libpq(url), autocommit=True) as conn:  # the skeleton's commits
            conn.execute(FLOOR_TABLE)
        with tempfile.NamedTemporaryFile(suffix=".pickle") as file:
            pickle.dump(canned, file)
            file.flush()
            bones = [sys.executable, str(Path(__file__).parent / "service.py")]
            bones += ["--skeleton-server", file.name, libpq(url)]
            with process(counted(bones, files), "skeleton server on", 600) as bare:
                asyncio.run(watch_moves(bare.address, 10, args.seed + 1000, games=1))
                dump(bare.pid, files, 1)
                floor_moves = asyncio.run(watch_moves(bare.address, args.moves, args.seed, 1))
                floor = total_instructions(dump(bare.pid, files, 2)) / floor_moves
        # the bare game (bench/game_skeleton.py): the skeleton that also plays the game
        game = [sys.executable, str(Path(__file__).parent / "service.py")]
        game += ["--game-skeleton-server", libpq(url)]
        with process(counted(game, files), "game skeleton server on", 600) as bare_game:
            asyncio.run(watch_moves(bare_game.address, 10, args.seed + 1000))  # warm up
            dump(bare_game.pid, files, 1)
            game_moves = asyncio.run(watch_moves(bare_game.address, per_game, args.seed))
            played = total_instructions(dump(bare_game.pid, files, 2)) / game_moves
        print(
            f"the watched shape, one game at a time, every seat on Watch: {moves} moves"
            f" ({per_game} of each game, new tables included); the skeleton {floor_moves}"
        )
        print(
            f"instructions per move: the service {service / 1e6:.2f} million, the skeleton"
            f" {floor / 1e6:.2f} million: {service / floor:.2f}x"
        )
        print(
            f"the bare game (the skeleton that also plays the game: rules, views, bytes;"
            f" {game_moves} moves): {played / 1e6:.2f} million, {played / floor:.2f}x the"
            f" skeleton; the service {service / played:.2f}x the bare game"
        )
    return 0


def counted(command: list[str], files: Path) -> list[str]:
    """``command`` under callgrind, its counts dumped into ``files``."""
    return [
        "valgrind",
        "--tool=callgrind",
        "--quiet",
        f"--callgrind-out-file={files}/callgrind.out.%p",
        *command,
    ]


if __name__ == "__main__":
    sys.exit(main())
