"""Game-service benchmark: random-legal-move clients over gRPC against Postgres.

Creates a scratch Postgres database (dropped at the end), starts ``parlour
serve`` on it as a separate process, and for 1, 16 and 64 games in flight
plays random legal moves for a fixed time from this (the client) process:
each move is an Act by legal-action id, preceded by a GetView of the seat to
act unless that seat's own last Act answered its view (a seat still to act:
a Hearts pass, a Crazy 8s draw...). The GetView names the version the last
answer had as its min_version, as a client told of a move by Watch does.
Prints Act and GetView calls per second, p50/p99 Act latency, the service's
CPU per Act and the cores used by the service, the clients and Postgres.

Then the watched shape (issue 34): every seat of every game on its own Watch
stream (and, as a second line, 10 spectators' streams per game), one move in
flight per game, each made from the view the seat's stream brought. It prints
moves/s, the service's CPU per move, the latency from an Act to the last of
the table's streams bringing its version, and the service's memory per 1,000
open streams; the skeleton serves the same streams with canned views, and the
ratios to it are printed; so is the bare game (bench/game_skeleton.py), the
skeleton that also plays the game (rules, views, bytes), which splits the
service's cost into the game's and its other duties'. The per-caller rates
are off for the served process (every client runs here, from one address).

Beside it, in the same run, the raw floors it is compared with:
  * an empty gRPC unary call (grpc.aio, 64 in flight: the health Check of a
    bare server in its own process), measured before and after the service
    (the higher is used, so a machine busier at one end cannot flatter the ratio),
  * a single-row insert commit into Postgres (one connection, then 16), and
    the CPU that commit costs its client through psycopg's async pool on the
    service's event loop (what any append pays at the least),
and the ratios, each act's CPU floor (its RPCs as bare calls plus one commit)
and latency floor (an empty call plus a commit); and the latency of the last
moves of full Wizard games against their first moves (act latency must not
grow with game length).

Run with ``.venv/bin/python bench/service.py [--seconds 5]`` (``make
bench-service``). The admin URL comes from $PARLOUR_BENCH_POSTGRES_URL or
$PARLOUR_TEST_POSTGRES_URL (default postgresql+psycopg://postgres@127.0.0.1:5432/postgres).
This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import pickle
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import game_skeleton  # bench/, beside this script
import grpc
import psycopg
import skeleton
import sqlalchemy as sa
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from psycopg import sql

from parlour.cli.serve import event_loop
from parlour.client import ParlourClient, Seat
from parlour.service.grpc import rates
from parlour.service.grpc.limits import SERVER_OPTIONS

GAMES = (("wizard", 4), ("hearts", 4), ("crazy8s", 4), ("kaiser", 4))
DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
TARGET_RATIO, AIM_RATIO, TARGET_P50_MS, TARGET_GROWTH = 0.3, 0.3, 1.5, 1.5
#: the watched shape's targets (issue 34): CPU per move and moves/s against the skeleton's
TARGET_WATCH_CPU, TARGET_WATCH_RATE = 1.5, 0.7
#: the table of the floor's commits (and the skeleton's: bench/skeleton.py)
FLOOR_TABLE = "CREATE TABLE IF NOT EXISTS bench_floor (id bigserial PRIMARY KEY, v text)"
#: The calls one bench client keeps in flight at most, each client on a connection of its
#: own: under the service's (and the skeleton's) cap of 100 per connection.
CALLS_PER_CLIENT = 90
#: A channel with this option has a connection of its own (gRPC otherwise shares one
#: between channels to the same address with the same options).
OWN_CONNECTION = ("grpc.use_local_subchannel_pool", 1)


def clients_for(address: str, games: int, calls_per_game: int) -> list[ParlourClient]:
    """Clients enough for ``games`` games of ``calls_per_game`` calls in flight each
    (dealt out ``clients[i % len(clients)]``), each client on its own connection."""
    per_client = max(1, CALLS_PER_CLIENT // calls_per_game)
    return [
        ParlourClient(address, channel_options=[OWN_CONNECTION])
        for _ in range(max(1, math.ceil(games / per_client)))
    ]


# -- processes and databases -----------------------------------------------------------------


def libpq(url: sa.URL) -> str:
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def scratch_database(admin: sa.URL) -> Iterator[sa.URL]:
    name = f"parlour_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(libpq(admin), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield admin.set(database=name)
    finally:
        with psycopg.connect(libpq(admin), autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc; 0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Child:
    address: str
    pid: int

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid)


class CpuShare:
    """How the cores were shared during a measurement: the service, this process
    (the clients) and the Postgres backends serving the scratch database."""

    def __init__(self, server: Child, url: sa.URL) -> None:
        self.server, self.url = server, url
        self.start = self._sample()
        self.start_stat = machine_times()

    def _backends(self) -> list[int]:
        with psycopg.connect(libpq(self.url), autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (self.url.database,),
            ).fetchall()
        return [pid for (pid,) in rows]

    def connections(self) -> int:
        """Connections to the scratch database now: all the replica's (pool and LISTEN)."""
        return len(self._backends())

    def _sample(self) -> tuple[float, float, float, dict[int, float]]:
        times = os.times()
        backends = {pid: cpu_seconds(pid) for pid in self._backends()}
        return time.perf_counter(), self.server.cpu_seconds(), times.user + times.system, backends

    def steal(self) -> float:
        """The share of the machine's CPU time the hypervisor gave to other guests since
        construction (on a shared virtual machine, what makes CPU figures move)."""
        (busy0, steal0), (busy1, steal1) = self.start_stat, machine_times()
        return (steal1 - steal0) / max(1, busy1 - busy0)

    def cores(self) -> tuple[float, float, float]:
        """Cores used since construction by (the service, the clients, Postgres)."""
        wall0, server0, self0, backends0 = self.start
        wall1, server1, self1, backends1 = self._sample()
        postgres = sum(  # a backend gone by the end is left out (not counted negative)
            max(0.0, backends1.get(pid, 0.0) - backends0.get(pid, 0.0))
            for pid in backends0.keys() | backends1.keys()
        )
        elapsed = wall1 - wall0
        return (server1 - server0) / elapsed, (self1 - self0) / elapsed, postgres / elapsed


def machine_times() -> tuple[int, int]:
    """(all CPU time, stolen CPU time) of the machine so far, in ticks (/proc/stat)."""
    with open("/proc/stat", encoding="ascii") as stat:
        ticks = [int(n) for n in stat.readline().split()[1:9]]
    return sum(ticks), ticks[7]


@contextmanager
def process(command: list[str], marker: str, start_seconds: float = 60) -> Iterator[Child]:
    """Run ``command``; yield it once it prints its address after ``marker``."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    found: list[str] = []

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            if marker in line:
                found.append(line.split(marker, 1)[1].split()[0])
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=start_seconds)
    try:
        if not found:
            raise RuntimeError(f"{command[:4]} did not start")
        yield Child(found[0], child.pid)
    finally:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()


async def bare_server() -> None:
    """A gRPC server with nothing but health checking (the empty-call floor)."""
    server = grpc.aio.server()
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    await skeleton.serve_until_interrupted(server, "bare server")


# -- floors ----------------------------------------------------------------------------------


@dataclass
class EmptyCalls:
    """The empty-call floor: calls/s, the bare server's CPU per call, latencies."""

    rate: float
    server_ms: float  # the bare server's CPU ms per call
    p50_ms: float


async def empty_calls(bare: Child, seconds: float, in_flight: int = 64) -> EmptyCalls:
    async with grpc.aio.insecure_channel(bare.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest()
        await stub.Check(request)
        latencies: list[float] = []
        deadline = time.perf_counter() + seconds

        async def caller() -> None:
            while time.perf_counter() < deadline:
                t0 = time.perf_counter()
                await stub.Check(request)
                latencies.append((time.perf_counter() - t0) * 1000)

        cpu0, start = bare.cpu_seconds(), time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(in_flight)))
        elapsed, cpu = time.perf_counter() - start, bare.cpu_seconds() - cpu0
        calls = len(latencies)
        return EmptyCalls(calls / elapsed, cpu * 1000 / calls, quantile(latencies, 0.5))


def insert_commit_rate(url: sa.URL, seconds: float, connections: int) -> float:
    with psycopg.connect(libpq(url), autocommit=True) as conn:
        conn.execute(FLOOR_TABLE)
    commits = [0] * connections
    deadline = time.perf_counter() + seconds

    def writer(index: int) -> None:
        with psycopg.connect(libpq(url)) as conn:
            while time.perf_counter() < deadline:
                conn.execute("INSERT INTO bench_floor (v) VALUES (%s)", ("x",))
                conn.commit()
                commits[index] += 1

    start = time.perf_counter()
    threads = [threading.Thread(target=writer, args=(i,)) for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(commits) / (time.perf_counter() - start)


@dataclass
class Commits:
    """The store's floor: single-row insert commits through psycopg's async pool, on
    the service's event loop, measured in this process (nothing else runs in it then)."""

    client_ms: float  # this process's CPU ms per commit, 16 in flight
    p50_ms: float  # commit latency, 1 in flight


async def async_commits(url: sa.URL, seconds: float) -> Commits:
    async with skeleton.commit_pool(libpq(url)) as pool:

        async def run(in_flight: int) -> tuple[float, list[float]]:
            latencies: list[float] = []
            deadline = time.perf_counter() + seconds

            async def writer() -> None:
                while time.perf_counter() < deadline:
                    t0 = time.perf_counter()
                    async with pool.connection() as conn:
                        await conn.execute(skeleton.INSERT, ("x",), prepare=True)
                    latencies.append((time.perf_counter() - t0) * 1000)

            cpu0 = sum(os.times()[:2])
            await asyncio.gather(*(writer() for _ in range(in_flight)))
            return sum(os.times()[:2]) - cpu0, latencies

        cpu, latencies = await run(16)
        _, single = await run(1)
    return Commits(cpu * 1000 / len(latencies), quantile(single, 0.5))


# -- games -----------------------------------------------------------------------------------


@dataclass
class Tally:
    act_ms: list[float] = field(default_factory=list)
    view_ms: list[float] = field(default_factory=list)
    games_finished: int = 0

    def views_per_act(self) -> float:
        return len(self.view_ms) / max(1, len(self.act_ms))


async def new_table(client: ParlourClient, game: str, seats: int) -> list[Seat]:
    hosted = await client.host_table(game, seats, host_player_name="p0", host_takes_seat=True)
    table_id = hosted.table.table_id
    taken = [client.seat(table_id, hosted.seat, hosted.seat_token)]
    for n in range(1, seats):
        joined = await client.join_table(table_id, f"p{n}")
        taken.append(client.seat(table_id, joined.seat, joined.seat_token))
    await client.start_table(table_id, hosted.host_token)
    return sorted(taken, key=lambda seat: seat.seat)


async def play(
    client: ParlourClient,
    index: int,
    deadline: float,
    tally: Tally,
    rng: random.Random,
    view_every_move: bool = False,
    moves: float = math.inf,
) -> None:
    """Play games back to back until the deadline (or ``moves`` Acts), timing every
    GetView and Act.

    Like a seat's own client, a seat that has just acted and is still to act
    (a Hearts pass, a Crazy 8s draw, ...) moves on from the view its Act
    answered; any other seat first fetches its view with GetView.
    """

    def going() -> bool:
        return time.perf_counter() < deadline and len(tally.act_ms) < moves

    while going():
        game, seats = GAMES[index % len(GAMES)]
        table = await new_table(client, game, seats)
        current: Any = await table[0].view()
        holder = 0  # the seat whose view `current` is
        to_act = list(current.view.to_act)
        while to_act and going():
            if view_every_move or holder not in to_act:
                holder = rng.choice(to_act)
                t0 = time.perf_counter()
                # at least the version the last answer named (as a Watch event would)
                current = await table[holder].view(min_version=current.version)
                tally.view_ms.append((time.perf_counter() - t0) * 1000)
            choice = rng.choice(current.view.legal_actions)
            t1 = time.perf_counter()
            current = await table[holder].act(choice.id, expected_version=current.version)
            tally.act_ms.append((time.perf_counter() - t1) * 1000)
            to_act = list(current.view.to_act)
        if not to_act:
            tally.games_finished += 1


async def load(
    address: str, in_flight: int, seconds: float, view_every_move: bool = False
) -> tuple[float, Tally]:
    tally = Tally()
    # connections of their own, as in the watched shape: channels to one address
    # otherwise share one, which refused calls (REFUSED_STREAM) in about half the runs
    clients = clients_for(address, in_flight, 4)
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    await asyncio.gather(
        *(
            play(clients[i % len(clients)], i, deadline, tally, random.Random(i), view_every_move)
            for i in range(in_flight)
        )
    )
    elapsed = time.perf_counter() - start
    for client in clients:
        await client.close()
    return len(tally.act_ms) / elapsed, tally


@dataclass
class WatchTally:
    """What the watched shape counted: moves, each move's Act-to-last-watcher latency,
    Watch messages received, and the streams open at the peak."""

    fanout_ms: list[float] = field(default_factory=list)
    messages: int = 0
    games_finished: int = 0
    streams: int = 0  # open now
    peak_streams: int = 0

    @property
    def moves(self) -> int:
        return len(self.fanout_ms)


def rss_kb(pid: int) -> int:
    """A process's resident memory now, in KiB (Linux /proc; 0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


async def watched_play(
    client: ParlourClient,
    index: int,
    deadline: float,
    tally: WatchTally,
    rng: random.Random,
    spectators: int,
) -> None:
    """Play games back to back until the deadline with every seat on its own Watch stream
    (and ``spectators`` more streams without a seat), one move in flight: the seat to act
    moves from the view its stream brought, and the next move waits until every stream
    of the table has brought the version the Act answered."""
    while time.perf_counter() < deadline:
        game, seat_count = GAMES[index % len(GAMES)]
        table = await new_table(client, game, seat_count)
        await watched_game(client, table, deadline, tally, rng, spectators)


async def watched_game(
    client: ParlourClient,
    table: list[Seat],
    deadline: float,
    tally: WatchTally,
    rng: random.Random,
    spectators: int,
    moves: float = math.inf,
) -> None:
    """One game of :func:`watched_play`, until it ends, the deadline comes or it has
    had ``moves`` moves."""
    seat_count = len(table)
    watchers = seat_count + spectators
    versions = [0] * watchers
    views: dict[int, Any] = {}
    ended = [False] * watchers
    bump = asyncio.Event()

    async def follow(i: int, stream: Any, seat: int | None) -> None:
        tally.streams += 1
        tally.peak_streams = max(tally.peak_streams, tally.streams)
        try:
            async for update in stream:
                versions[i] = update.version
                if seat is not None:
                    views[seat] = update
                tally.messages += 1
                bump.set()
        finally:
            tally.streams -= 1
            ended[i] = True
            bump.set()

    streams = [table[seat].watch() for seat in range(seat_count)]
    streams += [client.watch(table[0].table_id) for _ in range(spectators)]
    tasks = [
        asyncio.create_task(follow(i, stream, i if i < seat_count else None))
        for i, stream in enumerate(streams)
    ]
    try:
        target, acted_at = 1, 0.0
        while True:
            while min(versions) < target and not all(ended):
                bump.clear()
                await bump.wait()
            if acted_at:
                tally.fanout_ms.append((time.perf_counter() - acted_at) * 1000)
            view = views[0].view
            to_act = list(view.to_act)
            if not to_act or view.is_over:
                tally.games_finished += 1
                break
            if time.perf_counter() >= deadline or tally.moves >= moves:
                break
            seat = rng.choice(to_act)
            current = views[seat]
            choice = rng.choice(current.view.legal_actions)
            acted_at = time.perf_counter()
            answer = await table[seat].act(choice.id, expected_version=current.version)
            target = answer.version
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for stream in streams:
            await stream.aclose()


async def watched_load(
    server: Child, in_flight: int, seconds: float, spectators: int
) -> tuple[float, WatchTally]:
    """``in_flight`` watched games for ``seconds``: (moves/s, what was counted)."""
    tally = WatchTally()
    # each game: a stream per seat and per spectator, and an Act
    clients = clients_for(server.address, in_flight, 4 + spectators + 1)
    deadline = time.perf_counter() + seconds

    start = time.perf_counter()
    await asyncio.gather(
        *(
            watched_play(
                clients[i % len(clients)], i, deadline, tally, random.Random(i), spectators
            )
            for i in range(in_flight)
        )
    )
    elapsed = time.perf_counter() - start
    for client in clients:
        await client.close()
    return tally.moves / elapsed, tally


@dataclass
class WatchedLevel:
    """What one watched load level measured."""

    in_flight: int
    spectators: int
    moves_per_second: float
    tally: WatchTally
    cores: tuple[float, float, float]  # service, clients, postgres
    steal: float

    def service_ms(self) -> float:
        """The service's CPU ms per move (the Act, and every Watch message it causes)."""
        rate = self.moves_per_second
        return self.cores[0] * 1000 / rate if rate else float("nan")

    def row(self) -> str:
        tally = self.tally
        return (
            f"{self.in_flight:>9} {self.spectators:>5} {self.moves_per_second:7.0f}"
            f" {tally.messages / max(1, tally.moves):6.1f}"
            f" {quantile(tally.fanout_ms, 0.5):8.2f} {quantile(tally.fanout_ms, 0.99):8.2f}"
            f" {self.service_ms():6.2f} {self.cores[0]:8.2f} {self.cores[1]:7.2f}"
            f" {self.cores[2]:8.2f} {tally.peak_streams:7d}"
            f" {tally.games_finished:5d}"
            f" {self.steal * 100:5.0f}%"
        )


WATCH_HEADER = (
    f"{'in flight':>9} {'specs':>5} {'moves/s':>7} {'msg/mv':>6} {'fan p50':>8} {'fan p99':>8}"
    f" {'ms/mv':>6} {'service':>8} {'clients':>7} {'postgres':>8} {'streams':>7}"
    f" {'games':>5} {'steal':>6}"
)
WATCH_LEGEND = """\
  the watched shape: every seat of every game on its own Watch stream (specs: that
  many spectators' streams more per game), one move in flight per game, each moved
  from the view its seat's stream brought; msg/mv: Watch messages per move; fan
  p50/p99: ms from sending an Act to the last of the table's streams bringing its
  version; ms/mv: the service's CPU ms per move (table setup included); streams:
  Watch streams open at the peak"""


async def stream_memory(server: Child, tables: int = 50, per_table: int = 20) -> tuple[int, float]:
    """The service's memory growth for idle open Watch streams: ``tables`` started 4-seat
    Hearts tables, then ``per_table`` streams on each (its four seats and spectators),
    every one having brought its first message. (streams, KiB per 1,000 streams)."""
    clients = clients_for(server.address, tables, per_table)
    seated = [await new_table(clients[i % len(clients)], "hearts", 4) for i in range(tables)]
    await asyncio.sleep(0.5)
    before = rss_kb(server.pid)
    arrived = asyncio.Semaphore(0)

    async def hold(stream: Any) -> None:
        async for _ in stream:
            arrived.release()
            await asyncio.Event().wait()  # open, idle, until cancelled

    streams: list[Any] = []
    for i, table in enumerate(seated):
        streams += [seat.watch() for seat in table]
        streams += [
            clients[i % len(clients)].watch(table[0].table_id) for _ in range(per_table - 4)
        ]
    tasks = [asyncio.create_task(hold(stream)) for stream in streams]
    for _ in streams:
        await arrived.acquire()
    await asyncio.sleep(0.5)
    grown = rss_kb(server.pid) - before
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for stream in streams:
        await stream.aclose()
    for client in clients:
        await client.close()
    return len(streams), grown * 1000 / len(streams)


def measure_watched(
    server: Child, url: sa.URL, levels: list[int], seconds: float, spectators: list[int]
) -> dict[tuple[int, int], WatchedLevel]:
    """Each watched load level against ``server`` (after a short warm-up)."""
    asyncio.run(watched_load(server, 2, 1.0, 0))
    results: dict[tuple[int, int], WatchedLevel] = {}
    for watching in spectators:
        for level in levels:
            share = CpuShare(server, url)
            rate, tally = asyncio.run(watched_load(server, level, seconds, watching))
            results[level, watching] = WatchedLevel(
                level, watching, rate, tally, share.cores(), share.steal()
            )
    return results


async def wizard_growth(address: str, games: int = 3) -> tuple[float, float, int]:
    """Median Act latency of the first and of the last 30 moves of full 3-seat Wizard games.

    Pooled over a few games, so that a burst of other work on the machine
    during one game's start or end does not decide the comparison.
    """
    first: list[float] = []
    last: list[float] = []
    async with ParlourClient(address) as client:
        for game in range(games):
            table = await new_table(client, "wizard", 3)
            rng = random.Random(11 + game)
            latencies: list[float] = []
            to_act = list((await table[0].view()).view.to_act)
            while to_act:
                seat = table[to_act[0]]
                current = await seat.view()
                choice = rng.choice(current.view.legal_actions)
                t0 = time.perf_counter()
                done = await seat.act(choice.id, expected_version=current.version)
                latencies.append((time.perf_counter() - t0) * 1000)
                to_act = list(done.view.to_act)
            first += latencies[:30]
            last += latencies[-30:]
    return statistics.median(first), statistics.median(last), len(latencies)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# -- main ------------------------------------------------------------------------------------


@dataclass
class Level:
    """What one load level measured."""

    in_flight: int
    acts_per_second: float
    tally: Tally
    cores: tuple[float, float, float]  # service, clients, postgres
    connections: int  # held by the replica at the end of the level
    steal: float  # the share of the machine's CPU time stolen by other guests meanwhile

    def service_ms(self) -> float:
        """The service's CPU ms per Act (its GetViews included)."""
        rate = self.acts_per_second
        return self.cores[0] * 1000 / rate if rate else float("nan")

    def row(self, empty: float) -> str:
        rate, tally = self.acts_per_second, self.tally
        views = rate * tally.views_per_act()
        service_ms = self.service_ms()
        return (
            f"{self.in_flight:>9} {rate:7.0f} {rate / empty:7.3f} {views:7.0f}"
            f" {quantile(tally.act_ms, 0.5):7.2f} {quantile(tally.act_ms, 0.99):7.2f}"
            f" {quantile(tally.view_ms, 0.5):8.2f} {service_ms:6.2f}"
            f" {self.cores[0]:8.2f} {self.cores[1]:7.2f} {self.cores[2]:8.2f}"
            f" {tally.games_finished:5d} {self.connections:5d} {self.steal * 100:5.0f}%"
        )


HEADER = (
    f"{'in flight':>9} {'acts/s':>7} {'x empty':>7} {'views/s':>7} {'act p50':>7}"
    f" {'act p99':>7} {'view p50':>8} {'ms/act':>6} {'service':>8} {'clients':>7}"
    f" {'postgres':>8} {'games':>5} {'conns':>5} {'steal':>6}"
)
LEGEND = """\
  acts/s: Act calls per second; views/s: GetView calls per second (a seat fetches
  its view unless its own last Act answered it); latencies in ms; ms/act: service
  CPU ms per Act, its GetViews and table setup included; service / clients /
  postgres: cores used by the service process, the client process (this one)
  and the Postgres backends of the scratch database; conns: connections the
  replica holds to its database (its pool and its LISTEN connection); steal: the
  share of the machine's CPU time a hypervisor gave to other guests meanwhile (CPU
  figures are not comparable across runs with much of it: see make bench-act-cost)"""


def measure(
    server: Child, url: sa.URL, levels: list[int], seconds: float, view_every_move: bool
) -> dict[int, Level]:
    """Each load level against ``server``, after a short warm-up (connections, caches)."""
    asyncio.run(load(server.address, 4, 1.0))
    results: dict[int, Level] = {}
    for level in levels:
        share = CpuShare(server, url)
        rate, tally = asyncio.run(load(server.address, level, seconds, view_every_move))
        results[level] = Level(
            level, rate, tally, share.cores(), share.connections(), share.steal()
        )
    return results


def load_average() -> str:
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per load level")
    parser.add_argument("--levels", default="1,16,64", help="games in flight, comma-separated")
    parser.add_argument(
        "--view-every-move",
        action="store_true",
        help="GetView before every Act, even when the seat's last Act answered its view",
    )
    parser.add_argument(
        "--growth-games",
        type=int,
        default=3,
        help="full Wizard games timed for latency growth (0: skip; default %(default)s)",
    )
    parser.add_argument(
        "--shapes",
        default="today,watched",
        help="which shapes to run: today (GetView and Act), watched (every seat on Watch)",
    )
    parser.add_argument(
        "--spectators",
        default="0,10",
        help="spectators per game in the watched shape, one line each (default %(default)s)",
    )
    parser.add_argument("--bare-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--skeleton-server", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--game-skeleton-server", help=argparse.SUPPRESS)
    args = parser.parse_args()
    run_loop = event_loop(os.environ.get("PARLOUR_EVENT_LOOP", "uvloop"))
    if args.bare_server:
        run_loop(bare_server())
        return 0
    if args.skeleton_server:
        canned_path, conninfo = args.skeleton_server
        run_loop(skeleton.serve(canned_path, conninfo, list(SERVER_OPTIONS)))
        return 0
    if args.game_skeleton_server:
        run_loop(game_skeleton.serve(args.game_skeleton_server, list(SERVER_OPTIONS)))
        return 0

    admin = sa.make_url(
        os.environ.get("PARLOUR_BENCH_POSTGRES_URL")
        or os.environ.get("PARLOUR_TEST_POSTGRES_URL")
        or DEFAULT_ADMIN_URL
    ).set(drivername="postgresql+psycopg")
    levels = [int(level) for level in args.levels.split(",")]
    # every client runs in this one process, from one address: the per-caller rates
    # (``parlour serve --host-per-minute`` and the like) would refuse it, so all are off
    for knob in rates.KNOBS:
        os.environ[knob.env] = "0"
    shapes = set(args.shapes.split(","))
    spectators = [int(n) for n in args.spectators.split(",")] if "watched" in shapes else []
    bare_command = [sys.executable, __file__, "--bare-server"]
    load_start = load_average()
    with scratch_database(admin) as url:
        with process(bare_command, "bare server on") as bare:
            empty_before = asyncio.run(empty_calls(bare, 3.0))
            single = asyncio.run(empty_calls(bare, 2.0, in_flight=1))
        commit_1 = insert_commit_rate(url, 2.0, 1)
        commit_16 = insert_commit_rate(url, 2.0, 16)
        commits = run_loop(async_commits(url, 2.0))
        serve = [sys.executable, "-m", "parlour.cli", "serve", "--address", "127.0.0.1:0"]
        serve += ["--database-url", url.render_as_string(hide_password=False)]
        with process(serve, "serving on") as server:
            results: dict[int, Level] = {}
            if "today" in shapes:
                results = measure(server, url, levels, args.seconds, args.view_every_move)
            watched = measure_watched(server, url, levels, args.seconds, spectators)
            memory = asyncio.run(stream_memory(server)) if spectators else None
            if args.growth_games:
                first, last, moves = asyncio.run(wizard_growth(server.address, args.growth_games))
            canned = asyncio.run(skeleton.capture(server.address))
        with tempfile.NamedTemporaryFile(suffix=".pickle") as file:
            pickle.dump(canned, file)
            file.flush()
            command = [sys.executable, __file__, "--skeleton-server", file.name, libpq(url)]
            with process(command, "skeleton server on") as bare_service:
                bones: dict[int, Level] = {}
                if "today" in shapes:
                    bones = measure(bare_service, url, levels, args.seconds, args.view_every_move)
                watched_bones = measure_watched(bare_service, url, levels, args.seconds, spectators)
                bone_memory = asyncio.run(stream_memory(bare_service)) if spectators else None
        game_bones: dict[tuple[int, int], WatchedLevel] = {}
        if "watched" in shapes:
            command = [sys.executable, __file__, "--game-skeleton-server", libpq(url)]
            with process(command, "game skeleton server on") as game_service:
                game_bones = measure_watched(game_service, url, levels, args.seconds, spectators)
        # the floor once more, so that a machine busier at one end cannot flatter the ratio
        with process(bare_command, "bare server on") as bare:
            empty_after = asyncio.run(empty_calls(bare, 3.0))
    floor = max(empty_before, empty_after, key=lambda calls: calls.rate)
    empty = floor.rate

    print(f"load average at the start: {load_start}; at the end: {load_average()}")
    print(f"machine: {os.cpu_count()} cores, shared by the service, the clients, Postgres")
    print("  (and whatever else runs on it); the client process is not the service's")
    print(
        f"floor: empty gRPC unary calls/s (grpc.aio, 64 in flight)   {empty:7.0f}"
        f"  (before {empty_before.rate:.0f}, after {empty_after.rate:.0f}: the higher is used)"
    )
    print(
        f"floor: the bare server's CPU per empty call                {floor.server_ms:7.3f} ms"
        f"  (same event loop as the service); empty call p50, 1 in flight {single.p50_ms:.2f} ms"
    )
    print(f"floor: Postgres single-row insert commits/s, 1 connection   {commit_1:7.0f}")
    print(f"floor: Postgres single-row insert commits/s, 16 connections {commit_16:7.0f}")
    print(
        f"floor: the client's CPU per commit (psycopg async pool)     {commits.client_ms:7.3f} ms"
        f"  (16 in flight, same event loop); commit p50, 1 in flight {commits.p50_ms:.2f} ms"
    )
    if results:
        print_today(results, bones, empty, floor, commits, single, commit_16)
    if watched:
        print_watched(watched, watched_bones, game_bones, floor, commits, single)
    if memory is not None and bone_memory is not None:
        print(
            f"memory per 1,000 open Watch streams (idle, {memory[0]} on 50 Hearts tables):"
            f" the service {memory[1] / 1024:.1f} MiB, the skeleton {bone_memory[1] / 1024:.1f} MiB"
        )
    if args.growth_games:
        print(
            f"\nfull 3-seat Wizard games ({moves} acts each, {args.growth_games} games):"
            f" median act latency of the first 30 acts {first:.2f} ms,"
        )
        print(
            f"  of the last 30 {last:.2f} ms: last/first {last / first:.2f}x"
            f" (target <= {TARGET_GROWTH}x)"
        )
    return 0


def print_watched(
    watched: dict[tuple[int, int], WatchedLevel],
    bones: dict[tuple[int, int], WatchedLevel],
    game_bones: dict[tuple[int, int], WatchedLevel],
    floor: EmptyCalls,
    commits: Commits,
    single: EmptyCalls,
) -> None:
    print(f"\nthe watched shape, the service:\n{WATCH_HEADER}")
    for level in watched.values():
        print(level.row())
    print(WATCH_LEGEND)
    print(f"the watched shape, the skeleton (canned views on the same streams):\n{WATCH_HEADER}")
    for level in bones.values():
        print(level.row())
    print(
        "the watched shape, the bare game (bench/game_skeleton.py: the skeleton that also"
        f" plays the game: rules, views, bytes):\n{WATCH_HEADER}"
    )
    for level in game_bones.values():
        print(level.row())
    latency_floor = single.p50_ms + commits.p50_ms
    for key, level in watched.items():
        bone = bones[key]
        print(
            f"{level.in_flight:>3} in flight, {level.spectators:>2} spectators: CPU per move"
            f" {level.service_ms():.2f} ms against the skeleton's {bone.service_ms():.2f} ms"
            f" ({level.service_ms() / bone.service_ms():.2f}x, target <= {TARGET_WATCH_CPU}x);"
            f" moves/s {level.moves_per_second / bone.moves_per_second:.2f}x the skeleton's"
            f" (target >= {TARGET_WATCH_RATE}x); fan-out p50"
            f" {quantile(level.tally.fanout_ms, 0.5):.2f} ms against"
            f" {quantile(bone.tally.fanout_ms, 0.5):.2f} ms"
        )
        game = game_bones.get(key)
        if game is not None:
            print(
                f"  the bare game: CPU per move {game.service_ms():.2f} ms,"
                f" {game.service_ms() / bone.service_ms():.2f}x the skeleton's, moves/s"
                f" {game.moves_per_second / bone.moves_per_second:.2f}x; the service's CPU per"
                f" move {level.service_ms() / game.service_ms():.2f}x the bare game's: its"
                f" duties beyond the game cost {level.service_ms() - game.service_ms():.2f} ms"
                f" a move, where the target leaves"
                f" {TARGET_WATCH_CPU * bone.service_ms() - game.service_ms():.2f} ms"
            )
    for (in_flight, spectating), level in watched.items():
        if in_flight == 1:
            p50 = quantile(level.tally.fanout_ms, 0.5)
            print(
                f"  1 in flight, {level.spectators} spectators: Act-to-last-watcher p50"
                f" {p50:.2f} ms, {p50 / latency_floor:.2f}x the floor (an empty call and"
                f" a commit: {latency_floor:.2f} ms; target <= 2x)"
            )
            game = game_bones.get((in_flight, spectating))
            if game is not None:
                played = quantile(game.tally.fanout_ms, 0.5)
                print(f"    the bare game's: {played:.2f} ms, {played / latency_floor:.2f}x")


def print_today(
    results: dict[int, Level],
    bones: dict[int, Level],
    empty: float,
    floor: EmptyCalls,
    commits: Commits,
    single: EmptyCalls,
    commit_16: float,
) -> None:
    print(f"\n{HEADER}")
    for level in results.values():
        print(level.row(empty))
    print(LEGEND)
    print("\nthe skeleton floor (bench/skeleton.py: canned answers, one commit per Act):")
    print(HEADER)
    for level in bones.values():
        print(level.row(empty))

    best = max(level.acts_per_second for level in results.values())
    skeleton_best = max(level.acts_per_second for level in bones.values())
    print(
        f"best acts/s / empty-call rate: {best / empty:.3f} "
        f"(target >= {TARGET_RATIO}, aim {AIM_RATIO})"
    )
    print(f"  the skeleton's best acts/s / empty-call rate: {skeleton_best / empty:.3f}")
    print(f"best acts/s / Postgres commits/s (16 connections): {best / commit_16:.3f}")
    if 1 in results:
        p50 = quantile(results[1].tally.act_ms, 0.5)
        print(f"act p50 with one game in flight: {p50:.2f} ms (target < {TARGET_P50_MS} ms)")
    for level in results.values():
        calls = 1 + level.tally.views_per_act()
        least = calls * floor.server_ms + commits.client_ms
        print(
            f"{level.in_flight:>3} in flight: {calls:.2f} RPCs per act; their bare gRPC cost and"
            f" one commit's client side alone {least:.2f} ms of the service's"
            f" {level.service_ms():.2f} ms CPU per act"
        )
    print(
        f"  an act's latency floor, an empty call and a commit at one in flight:"
        f" {single.p50_ms + commits.p50_ms:.2f} ms"
    )
    for level in results.values():
        bone = bones[level.in_flight]
        bare_ms, full_ms = bone.service_ms(), level.service_ms()
        calls = 1 + bone.tally.views_per_act()
        print(
            f"{level.in_flight:>3} in flight: the skeleton's CPU per act {bare_ms:.2f} ms"
            f" ({calls:.2f} RPCs per act), the"
            f" service's {full_ms:.2f} ms: its own work {full_ms - bare_ms:.2f} ms;"
            f" act p50 {quantile(bone.tally.act_ms, 0.5):.2f} ms against"
            f" {quantile(level.tally.act_ms, 0.5):.2f} ms"
        )


if __name__ == "__main__":
    sys.exit(main())
