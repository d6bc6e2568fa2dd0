"""Scale benchmark: bot moves and bot claims with thousands of tables waiting for people.

Creates a scratch Postgres database (dropped at the end) and starts
``parlour serve`` on it (its sweeper on, table expiry off) and one ``parlour
worker`` (4 slots, random-level bots, decisions in the worker's own process).
Then, for 0, 2,000 and 20,000 tables in play waiting for a person (Crazy 8s,
a person to act and a bot, hosted and started through the service's API, in
batches of 2,000 with 32 calls in flight; each batch timed), it measures:

* ClaimTurn cost: 300 ``BotService.ClaimTurn`` calls with ``wait_seconds`` 0
  from this process while no bot has a turn (a whole claim pass: the
  projection's index scan, empty-handed), p50/p99 ms; and the claim
  statement's own Postgres execution time (``EXPLAIN ANALYZE``, median of 20)
  beside the statement the claim used before issue 12 (every bot seat of
  every table in play, joined and sorted);
* bot move latency: 4 all-bot Crazy 8s tables played by the worker for
  ``--seconds``; the time from one move to the next at a table, read from the
  event log (claim + view + decision + act), p50/p99 ms.

Last, the same measurements once more with those tables marked abandoned in
the database (status and their ``turns`` rows, as the sweeper would leave
them): the baseline closest in time to the 20,000 row, on a machine whose
load may have changed since the first.

Prints one table of figures and checks the targets: 20,000 waiting tables
change the bot move p50 by under 20% (against each baseline), and the
hosting time per table stays flat (the last batch within 1.5x the first).

Run with ``.venv/bin/python bench/scale.py`` (``make bench-scale``). The
admin URL comes from $PARLOUR_BENCH_POSTGRES_URL or $PARLOUR_TEST_POSTGRES_URL
(default postgresql+psycopg://postgres@127.0.0.1:5432/postgres). A script,
not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import grpc
import psycopg
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service import (
    DEFAULT_ADMIN_URL,
    libpq,
    load_average,
    process,
    quantile,
    scratch_database,
)

from parlour.client import ParlourClient
from parlour.v1 import bots_pb2, bots_pb2_grpc, lobby_pb2

BATCH = 2_000
IN_FLIGHT = 32
BOT_TABLES = 4
CLAIM_CALLS = 300

# the claim statement of store_pg (issue 12) and the one it replaced
CLAIM_NOW = """
SELECT t.table_id, t.seat, t.version FROM turns t
LEFT JOIN bot_leases l ON l.table_id = t.table_id AND l.seat = t.seat
WHERE t.kind = 'bot' AND (cardinality(%(games)s::text[]) = 0 OR t.game = ANY(%(games)s::text[]))
  AND (l.table_id IS NULL OR l.expires_at <= now() OR l.version < t.version)
ORDER BY t.since LIMIT 16
"""
CLAIM_BEFORE = """
SELECT s.table_id, s.seat, t.version FROM seats s JOIN tables t ON t.table_id = s.table_id
WHERE t.status = 'playing' AND s.kind = 'bot' ORDER BY t.updated_at, s.table_id, s.seat
"""


@dataclass
class Row:
    label: str
    waiting: int
    host_seconds: float  # hosting the batch that brought the count here (0 for none)
    host_ms_per_table: float
    claim_p50: float
    claim_p99: float
    sql_now_ms: float
    sql_before_ms: float
    move_p50: float
    move_p99: float
    moves: int


async def host_waiting(client: ParlourClient, count: int) -> float:
    """Host and start ``count`` Crazy 8s tables whose person (seat 1: the first to act
    after the first deal) is to act; seconds taken."""
    queue = iter(range(count))

    async def one_after_another() -> None:
        for _ in queue:
            hosted = await client.host_table(
                "crazy8s",
                2,
                seat_setup=[("bot", "random"), ("person", "")],
                host_player_name="Waiting",
                host_takes_seat=True,
                host_seat=1,
            )
            await client.start_table(hosted.table.table_id, hosted.host_token)

    start = time.perf_counter()
    await asyncio.gather(*(one_after_another() for _ in range(IN_FLIGHT)))
    return time.perf_counter() - start


async def claim_cost(address: str, token: str) -> tuple[float, float]:
    """ClaimTurn (wait 0) round trips while no bot has a turn: p50, p99 ms."""
    metadata = (("x-parlour-worker-token", token),)
    request = bots_pb2.ClaimTurnRequest(worker_id="bench-probe", wait_seconds=0)
    times = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = bots_pb2_grpc.BotServiceStub(channel)
        for _ in range(CLAIM_CALLS):
            t0 = time.perf_counter()
            answer = await stub.ClaimTurn(request, metadata=metadata)
            times.append((time.perf_counter() - t0) * 1000)
            if answer.claimed:  # (none expected) give it back to the worker
                await stub.ReleaseTurn(
                    bots_pb2.ReleaseTurnRequest(
                        worker_id="bench-probe", table_id=answer.table_id, seat=answer.seat
                    ),
                    metadata=metadata,
                )
    return quantile(times, 0.5), quantile(times, 0.99)


def sql_ms(url: sa.URL, statement: str, params: dict[str, object]) -> float:
    """The statement's Postgres execution time (EXPLAIN ANALYZE), median of 20 runs."""
    runs = []
    with psycopg.connect(libpq(url), autocommit=True) as conn:
        for _ in range(20):
            plan = conn.execute(
                "EXPLAIN (ANALYZE, FORMAT JSON) " + statement,  # type: ignore[operator]
                params,
            ).fetchone()
            assert plan is not None
            runs.append(float(plan[0][0]["Execution Time"]))
    return statistics.median(runs)


async def bot_move_gaps(address: str, url: sa.URL, seconds: float) -> tuple[float, float, int]:
    """Bot games for ``seconds``: BOT_TABLES all-bot Crazy 8s tables at a time, each
    replaced when it finishes (one round, a few dozen moves); p50/p99 ms between two
    moves at a table (from the log), and the number of such gaps."""
    ids: list[str] = []
    async with ParlourClient(address) as client:

        async def lane(end: float) -> None:
            while time.perf_counter() < end:
                hosted = await client.host_table("crazy8s", 4, seat_setup=[("bot", "random")] * 4)
                table_id = hosted.table.table_id
                await client.start_table(table_id, hosted.host_token)
                ids.append(table_id)
                while (await client.get_table(table_id)).status == lobby_pb2.TABLE_STATUS_PLAYING:
                    await asyncio.sleep(0.1)

        end = time.perf_counter() + seconds
        await asyncio.gather(*(lane(end) for _ in range(BOT_TABLES)))
    gaps: list[float] = []
    with psycopg.connect(libpq(url), autocommit=True) as conn:
        for table_id in ids:
            rows = conn.execute(
                "SELECT created_at FROM events WHERE game_id = %s AND type = 'ActionTaken'"
                " ORDER BY seq",
                (table_id,),
            ).fetchall()
            times = [row[0] for row in rows]
            gaps += [(b - a).total_seconds() * 1000 for a, b in pairwise(times)]
    return quantile(gaps, 0.5), quantile(gaps, 0.99), len(gaps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0, help="bot play per measurement")
    parser.add_argument(
        "--waiting", default="0,2000,20000", help="tables waiting for people, comma-separated"
    )
    args = parser.parse_args()
    levels = [int(level) for level in args.waiting.split(",")]
    admin = sa.make_url(
        os.environ.get("PARLOUR_BENCH_POSTGRES_URL")
        or os.environ.get("PARLOUR_TEST_POSTGRES_URL")
        or DEFAULT_ADMIN_URL
    ).set(drivername="postgresql+psycopg")
    token = secrets.token_urlsafe(24)
    env = {**os.environ, "PARLOUR_WORKER_TOKEN": token}
    os.environ["PARLOUR_WORKER_TOKEN"] = token
    rows: list[Row] = []
    batches: list[tuple[int, float]] = []  # (tables in the batch, seconds)
    load_start = load_average()
    with scratch_database(admin) as url:
        database = url.render_as_string(hide_password=False)
        serve = [sys.executable, "-m", "parlour.cli", "serve", "--address", "127.0.0.1:0"]
        serve += ["--database-url", database, "--open-table-seconds", "0"]
        serve += ["--abandon-seconds", "0"]
        with process(serve, "serving on") as server:
            worker = subprocess.Popen(
                [
                    *(sys.executable, "-m", "parlour.cli", "worker", "--server", server.address),
                    *("--concurrency", str(BOT_TABLES), "--processes", "0"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
            )
            try:
                waiting = 0
                asyncio.run(bot_move_gaps(server.address, url, 5.0))  # warm up
                for level in levels:
                    host_seconds = 0.0
                    hosted_now = level - waiting
                    while waiting < level:
                        count = min(BATCH, level - waiting)
                        seconds = asyncio.run(_host(server.address, count))
                        batches.append((count, seconds))
                        host_seconds += seconds
                        waiting += count
                        print(
                            f"  hosted {waiting:6d} waiting tables "
                            f"(batch of {count}: {seconds:6.1f} s, "
                            f"{seconds / count * 1000:5.2f} ms per table)",
                            flush=True,
                        )
                    per_table = host_seconds / hosted_now * 1000 if hosted_now else 0.0
                    rows.append(
                        measure(server.address, url, token, args.seconds, f"{level:,}", level)
                    )
                    rows[-1].host_seconds, rows[-1].host_ms_per_table = host_seconds, per_table
                with psycopg.connect(libpq(url), autocommit=True) as conn:  # the baseline again
                    conn.execute("UPDATE tables SET status = 'abandoned' WHERE status = 'playing'")
                    conn.execute("DELETE FROM turns")
                rows.append(measure(server.address, url, token, args.seconds, "0 (after)", 0))
            finally:
                worker.terminate()
                try:
                    worker.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    worker.kill()

    print(f"\nload average at the start: {load_start}; at the end: {load_average()}")
    print(f"machine: {os.cpu_count()} cores, shared by the service, the worker, Postgres and")
    print("this process; Postgres on the same machine")
    print(
        "\n    waiting | hosting the batch  | ClaimTurn (wait 0) | claim SQL (EXPLAIN ANALYZE) "
        "| bot move (between moves)"
    )
    print(
        "     tables |   s    ms/table    |  p50 ms   p99 ms   |  now ms   before issue 12 ms "
        "|  p50 ms   p99 ms  moves"
    )
    for row in rows:
        print(
            f"  {row.label:>10} | {row.host_seconds:6.1f}  {row.host_ms_per_table:7.2f}    "
            f"| {row.claim_p50:6.2f}   {row.claim_p99:6.2f}    "
            f"| {row.sql_now_ms:7.3f}   {row.sql_before_ms:10.3f}       "
            f"| {row.move_p50:6.1f}   {row.move_p99:6.1f}  {row.moves:5d}"
        )
    per_table = [seconds / count * 1000 for count, seconds in batches]
    if per_table:
        print(
            "\nhosting, ms per table by batch of "
            f"{BATCH}: " + ", ".join(f"{value:.2f}" for value in per_table)
        )
    ok = True
    most = max(rows, key=lambda row: row.waiting)
    for baseline in (rows[0], rows[-1]):
        if baseline is most or baseline.move_p50 <= 0:
            continue
        change = most.move_p50 / baseline.move_p50 - 1
        met = abs(change) < 0.20
        ok &= met
        print(
            f"target: {most.waiting:,} waiting tables change the bot move p50 by under 20% "
            f"(against {baseline.label}): {change:+.1%} ({'met' if met else 'NOT met'})"
        )
    if len(per_table) >= 2:
        growth = per_table[-1] / per_table[0]
        met = growth < 1.5
        ok &= met
        print(
            f"target: hosting time per table flat (last batch / first < 1.5): {growth:.2f} "
            f"({'met' if met else 'NOT met'})"
        )
    return 0 if ok else 1


def measure(address: str, url: sa.URL, token: str, seconds: float, label: str, waiting: int) -> Row:
    """ClaimTurn's cost (the RPC, then its SQL beside the one before issue 12), then bot moves."""
    claim_p50, claim_p99 = asyncio.run(claim_cost(address, token))
    now_ms = sql_ms(url, CLAIM_NOW, {"games": []})
    before_ms = sql_ms(url, CLAIM_BEFORE, {})
    p50, p99, moves = asyncio.run(bot_move_gaps(address, url, seconds))
    return Row(label, waiting, 0.0, 0.0, claim_p50, claim_p99, now_ms, before_ms, p50, p99, moves)


async def _host(address: str, count: int) -> float:
    async with ParlourClient(address) as client:
        return await host_waiting(client, count)


if __name__ == "__main__":
    sys.exit(main())
