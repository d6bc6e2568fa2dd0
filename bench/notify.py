"""Notifier benchmark: append commits per second and wake-up latency, per notifier, on Postgres.

In one run, on a scratch Postgres database (dropped at the end), for each
notifier -- none (appends without ``pg_notify``, nobody told), ``pg_notify``
(the Postgres LISTEN/NOTIFY adapter, the default) and NATS (``--nats``,
default nats://127.0.0.1:4222; appends without ``pg_notify``, a publish after
each commit) -- and for 1, 16 and 64 concurrent writers:

* **append commits/s**: each writer appends one move at a time to a table of
  its own through the real store (``PostgresEventStore.append``: the
  one-statement append, with the notifier as configured), for ``--seconds``.
  The writers run in writer processes (one for 1 writer, else
  ``--writer-processes``), each a replica with its notifier started (so on
  the pg_notify path every writer process also LISTENs, as replicas do).
* **wake-up latency p50/p99**: from the moment a watched table's append
  returned to its writer (the commit acknowledged) to the moment a watcher in
  another process -- another replica, with the same notifier -- has read
  that event from the store (it waits on its notifier, then reads after its
  last version: what a Watch does). The watcher follows ``--watched``
  tables; it hears every notification of every table. Without a notifier
  it is woken only by its periodic catch-up (``--catch-up-seconds``, 1 s
  here; 15 s in ``parlour serve`` by default), so its latency is that.

Run with ``.venv/bin/python bench/notify.py`` (``make bench-notify``). The
admin URL comes from $PARLOUR_BENCH_POSTGRES_URL or $PARLOUR_TEST_POSTGRES_URL
(default postgresql+psycopg://postgres@127.0.0.1:5432/postgres). A script, not
a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from service import scratch_database

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.notify import make_notifier
from parlour.service.store.open import upgrade_head
from parlour.service.store.postgres import PostgresEventStore
from parlour.service.store.protocol import NewEvent, SeatRow, TableRow

DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
#: notifier name as printed -> the --notify setting (NATS filled in from --nats)
MODES = {"none": "local", "pg_notify": "postgres", "NATS": "nats"}
WRITERS = (1, 16, 64)


def table_row(table_id: str) -> TableRow:
    return TableRow(
        table_id=table_id,
        game="hearts",
        seats=4,
        options={},
        status=TableStatus.PLAYING,
        host_token_hash="ab" * 32,
        version=0,
        name="bench",
        seat_rows=tuple(SeatRow(seat, SeatKind.PERSON, occupied=True) for seat in range(4)),
    )


async def read_line() -> str:
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


def say(**message: Any) -> None:
    print(json.dumps(message), flush=True)


# -- the writer and watcher processes ----------------------------------------------------------


async def writer(url: str, notify: str, tables: list[str], watched: set[str]) -> None:
    """A replica that appends: creates ``tables``, says ready, then for each
    "go N SECONDS" line appends to its first N tables, one coroutine each, and reports."""
    bootstrap = PostgresEventStore(url, connections=2)
    notifier = make_notifier(bootstrap, notify)
    await notifier.start()
    for table_id in tables:
        hosted = NewEvent("TableHosted", {"game": "hearts"})
        await bootstrap.create_table(table_row(table_id), [hosted])
    await bootstrap.close()
    seqs = dict.fromkeys(tables, 1)
    say(ready=True)
    while (line := (await read_line()).split())[:1] == ["go"]:
        active, seconds = tables[: int(line[1])], float(line[2])
        # a pool of the cell's size (opened, and closed after, by the cell)
        store = PostgresEventStore(url, connections=len(active))
        store.notify_in_transaction = notifier.notify_in_transaction
        store.add_listener(notifier.committed)
        await asyncio.gather(*(store.last_seq(table_id) for table_id in active))
        commits: list[tuple[str, int, float]] = []
        counts = dict.fromkeys(active, 0)
        started = time.monotonic()
        deadline = started + seconds

        async def append(
            table_id: str,
            store: PostgresEventStore = store,
            deadline: float = deadline,
            commits: list[tuple[str, int, float]] = commits,
            counts: dict[str, int] = counts,
        ) -> None:
            follow = table_id in watched
            while time.monotonic() < deadline:
                seq = seqs[table_id]
                event = NewEvent("ActionTaken", {"seat": seq % 4, "action": "play QS"}, "d" * 64)
                await store.append(table_id, seq, [event])
                if follow:
                    commits.append((table_id, seq + 1, time.monotonic()))
                seqs[table_id] = seq + 1
                counts[table_id] += 1

        await asyncio.gather(*(append(table_id) for table_id in active))
        elapsed = time.monotonic() - started
        await store.close()
        say(appends=sum(counts.values()), seconds=elapsed, commits=commits)
    await notifier.stop()


async def watcher(url: str, notify: str, tables: list[str], catch_up: float) -> None:
    """Follow ``tables`` as a Watch does; on each line on stdin, report when each event
    was read since the last report."""
    store = PostgresEventStore(url, connections=4)
    notifier = make_notifier(store, notify)
    await notifier.start()
    seen: dict[str, dict[int, float]] = {table_id: {} for table_id in tables}

    async def follow(table_id: str) -> None:
        last = await store.last_seq(table_id)
        while True:
            await notifier.wait(table_id, last, catch_up)
            events = await store.read(table_id, last)
            now = time.monotonic()
            for event in events:
                seen[table_id][event.seq] = now
            if events:
                last = events[-1].seq

    tasks = [asyncio.create_task(follow(table_id)) for table_id in tables]
    say(ready=True)
    while (await read_line()).strip() == "report":
        say(seen={table: {str(seq): t for seq, t in got.items()} for table, got in seen.items()})
        for got in seen.values():
            got.clear()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await notifier.stop()
    await store.close()


# -- the driver --------------------------------------------------------------------------------


class Child:
    def __init__(self, arguments: list[str]) -> None:
        command = [sys.executable, __file__, *arguments]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a benchmark process ended early ({self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Replicas:
    """One notifier's processes: the writer replicas and the watching replica."""

    def __init__(self, name: str, url: str, notify: str, args: argparse.Namespace) -> None:
        self.name, self.args = name, args
        most = max(args.writer_counts)
        self.tables = [
            [f"{name.lower()}-{p}-{n}" for n in range(p, most, args.writer_processes)]
            for p in range(args.writer_processes)
        ]
        # the watched tables, spread over the writer processes (the first ones of each)
        spread = [t for group in zip(*self.tables, strict=False) for t in group]
        self.watched = spread[: args.watched]
        watch = ["--catch-up-seconds", str(args.catch_up_seconds)]
        self.follower = Child(["--role", "watcher", url, notify, *self.watched, *watch])
        self.writers = [
            Child(["--role", "writer", url, notify, *group, "--watch", ",".join(self.watched)])
            for group in self.tables
        ]
        self.children = [self.follower, *self.writers]
        self.latencies: dict[int, list[float]] = {}
        self.rates: dict[int, list[float]] = {}
        self.missed: dict[int, int] = {}

    def wait_ready(self) -> None:
        for child in self.children:
            child.receive()

    def cell(self, writers: int) -> None:
        """One measurement at ``writers`` concurrent writers."""
        processes = 1 if writers == 1 else len(self.writers)
        busy = self.writers[:processes]
        for child in busy:
            child.send(f"go {writers // processes} {self.args.seconds}")
        reports = [child.receive() for child in busy]
        # the last events' wake-ups (without a notifier: the catch-up)
        time.sleep(0.3 + (self.args.catch_up_seconds if self.name == "none" else 0))
        self.follower.send("report")
        seen = self.follower.receive()["seen"]
        self.rates.setdefault(writers, []).append(
            sum(report["appends"] / report["seconds"] for report in reports)
        )
        latencies = self.latencies.setdefault(writers, [])
        for report in reports:
            for table_id, seq, committed in report["commits"]:
                at = seen.get(table_id, {}).get(str(seq))
                if at is None:
                    self.missed[writers] = self.missed.get(writers, 0) + 1
                else:
                    latencies.append((at - committed) * 1000)

    def figures(self, writers: int) -> dict[str, Any]:
        latencies = self.latencies.get(writers, [])
        return {
            "rate": statistics.median(self.rates[writers]),
            "p50": percentile(latencies, 0.5) if latencies else float("nan"),
            "p99": percentile(latencies, 0.99) if latencies else float("nan"),
            "samples": len(latencies),
            "missed": self.missed.get(writers, 0),
        }

    def close(self) -> None:
        for child in self.children:
            child.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--role", choices=("driver", "writer", "watcher"), default="driver")
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="measurements per cell")
    parser.add_argument("--catch-up-seconds", type=float, default=1.0)
    parser.add_argument("--watched", type=int, default=8, help="tables the watcher follows")
    parser.add_argument("--writer-processes", type=int, default=2)
    parser.add_argument("--watch", default="", help=argparse.SUPPRESS)
    parser.add_argument(
        "--nats", default=os.environ.get("PARLOUR_BENCH_NATS_URL") or "nats://127.0.0.1:4222"
    )
    parser.add_argument("--writers", default=",".join(map(str, WRITERS)))
    args = parser.parse_args()
    if args.role == "writer":
        url, notify, *tables = args.rest
        asyncio.run(writer(url, notify, tables, set(filter(None, args.watch.split(",")))))
        return 0
    if args.role == "watcher":
        url, notify, *tables = args.rest
        asyncio.run(watcher(url, notify, tables, args.catch_up_seconds))
        return 0

    admin = sa.make_url(
        os.environ.get("PARLOUR_BENCH_POSTGRES_URL")
        or os.environ.get("PARLOUR_TEST_POSTGRES_URL")
        or DEFAULT_ADMIN_URL
    )
    args.writer_counts = counts = [int(n) for n in args.writers.split(",")]
    print(
        f"Notifier benchmark on Postgres: {args.rounds} rounds of {args.seconds:g} s per cell, "
        "the notifiers interleaved in each round (the median rate is shown);\n"
        f"one-event appends, each writer on a table of its own, the writers in "
        f"{args.writer_processes} processes (1 for one writer). Wake-up latency: append "
        "returned ->\na watcher in another process has read the event from the store "
        f"({args.watched} watched tables; without a notifier it re-reads every "
        f"{args.catch_up_seconds:g} s). NATS: {args.nats}. Machine load average at start: "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.\n",
        flush=True,
    )
    with scratch_database(admin) as url:
        database = url.render_as_string(hide_password=False)
        upgrade_head(database)
        replicas: list[Replicas] = []
        try:
            for name, setting in MODES.items():
                notify = args.nats if setting == "nats" else setting
                replicas.append(Replicas(name, database, notify, args))
            for group in replicas:
                group.wait_ready()
            for round_number in range(args.rounds):
                for writers in counts:
                    for group in replicas:
                        group.cell(writers)
                        print(
                            f"  round {round_number + 1}: {group.name:>9} {writers:>3} writers "
                            f"{group.rates[writers][-1]:8.0f} commits/s",
                            flush=True,
                        )
        finally:
            for group in replicas:
                group.close()
    print("\n| notifier | writers | commits/s | wake-up p50 | wake-up p99 | samples |")
    print("|---|---:|---:|---:|---:|---:|")
    for writers in counts:
        for group in replicas:
            cell = group.figures(writers)
            missed = f", {cell['missed']} not seen" if cell["missed"] else ""
            print(
                f"| {group.name} | {writers} | {cell['rate']:,.0f} | {cell['p50']:.1f} ms "
                f"| {cell['p99']:.1f} ms | {cell['samples']}{missed} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
