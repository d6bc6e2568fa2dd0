"""``make partition-test``: two replicas beyond one host, without containers, and one
of them cut off mid-game.

Each replica runs in a network namespace of its own (``ip netns``), joined to
this host by a veth pair; Postgres and NATS (this machine's, on loopback) are
reached across the link through a TCP relay on the host's end of it. An AI
worker plays the bots through both replicas, and this script plays a person's
seat at a table of each game kind hosted on each replica, its client failing
over between them. Mid-game one replica's link is cut (its veth down: packets
vanish, connections hang, as in a real partition) and later healed. Then a
checker reads every game's event log from Postgres: every acknowledgement a
client received is in the log exactly once (none lost, none applied twice), at
or before the version it named, and every game replays with its digests and
deals verified. It prints the figures and each phase's time; exit status 0 only
if every check passed.

    sudo .venv/bin/python -m tests.partition.run [--notify postgres|nats]

Needs root (namespaces, links), ``ip``, Postgres ($PARLOUR_TEST_POSTGRES_URL,
default postgresql+psycopg://postgres@127.0.0.1:5432/postgres) and, for
``--notify nats``, NATS on 127.0.0.1:4222.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[2]
PARLOUR = str(Path(sys.executable).with_name("parlour"))
POSTGRES_ENV = "PARLOUR_TEST_POSTGRES_URL"
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
NATS_PORT = 4222
GRPC_PORT = 50051
#: replica i lives in namespace NS[i], host end 10.231.{i+1}.1, its end 10.231.{i+1}.2
NAMESPACES = ("parlour-pt1", "parlour-pt2")
GAMES: tuple[tuple[str, int, dict[str, object]], ...] = (
    ("hearts", 4, {}),
    ("wizard", 4, {"rounds": "5"}),
    ("crazy8s", 3, {"rounds": 1}),
    ("kaiser", 4, {"target": 32}),
)
#: bounds on waits (a hang fails the run; they are not what is measured)
WITHIN = 600.0
#: how long the link stays cut once every game has made a move across the cut
CUT_SECONDS = 8.0
PHASES: list[tuple[str, float]] = []


def say(text: str) -> None:
    print(f"partition-test: {text}", flush=True)


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    start = time.monotonic()
    try:
        yield
    finally:
        took = time.monotonic() - start
        PHASES.append((name, took))
        say(f"[{name}] {took:.1f} s")


def sh(*command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(command), text=True, capture_output=True, check=False)
    if check and done.returncode != 0:
        raise SystemExit(f"partition-test: {' '.join(command)}: {done.stderr.strip()}")
    return done


def host_end(index: int) -> str:
    return f"10.231.{index + 1}.1"


def replica_end(index: int) -> str:
    return f"10.231.{index + 1}.2"


def link(index: int) -> str:
    return f"ptveth{index + 1}"


# --- the network ---------------------------------------------------------------------


def make_network() -> None:
    for index, ns in enumerate(NAMESPACES):
        remove_network_part(index, ns)
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", link(index), "type", "veth", "peer", "name", "eth-pt")
        sh("ip", "link", "set", "eth-pt", "netns", ns)
        sh("ip", "addr", "add", f"{host_end(index)}/24", "dev", link(index))
        sh("ip", "link", "set", link(index), "up")
        inside = ("ip", "netns", "exec", ns)
        sh(*inside, "ip", "addr", "add", f"{replica_end(index)}/24", "dev", "eth-pt")
        sh(*inside, "ip", "link", "set", "eth-pt", "up")
        sh(*inside, "ip", "link", "set", "lo", "up")


def remove_network_part(index: int, ns: str) -> None:
    sh("ip", "link", "del", link(index), check=False)
    sh("ip", "netns", "del", ns, check=False)


def remove_network() -> None:
    for index, ns in enumerate(NAMESPACES):
        remove_network_part(index, ns)


class Relays:
    """TCP relays on the host's end of each link to a loopback service (Postgres,
    NATS), on an event loop in a thread of this process."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="relays", daemon=True)
        self.servers: list[asyncio.base_events.Server] = []

    def start(self, routes: Sequence[tuple[str, int, int]]) -> None:
        self.thread.start()
        for host, port, target in routes:
            future = asyncio.run_coroutine_threadsafe(self._serve(host, port, target), self.loop)
            self.servers.append(future.result(10))

    async def _serve(self, host: str, port: int, target: int) -> asyncio.base_events.Server:
        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            except OSError:
                pass
            finally:
                writer.close()

        async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target)
            except OSError:
                writer.close()
                return
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

        return await asyncio.start_server(relay, host, port)

    def stop(self) -> None:
        async def close() -> None:
            for server in self.servers:
                server.close()

        if self.thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)


# --- the processes -------------------------------------------------------------------


@dataclass
class Processes:
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, command: Sequence[str], env: dict[str, str], log: Path) -> None:
        with log.open("wb") as sink:
            self.started.append(
                subprocess.Popen(list(command), env=env, stdout=sink, stderr=subprocess.STDOUT)
            )

    def stop(self) -> None:
        for process in self.started:  # each by its PID
            if process.poll() is None:
                process.terminate()
        for process in self.started:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# --- playing (a person's seat, through the client library) --------------------------


@dataclass
class Ack:
    request_id: str
    version: int


@dataclass
class Game:
    game: str
    hosted_on: int
    table_id: str = ""
    acks: list[Ack] = field(default_factory=list)
    finished: bool = False
    error: str = ""


async def play(game: Game, addresses: list[str], seats: int, options: dict[str, object]) -> None:
    from parlour.client import ParlourClient, ParlourError, RetryPolicy

    rng = random.Random(f"{game.game}:{game.hosted_on}")
    # keepalives notice a link that went silent (UNAVAILABLE, then the client fails over)
    channel = [("grpc.keepalive_time_ms", 2000), ("grpc.keepalive_timeout_ms", 2000)]
    retry = RetryPolicy(attempts=8, max_backoff=2.0)
    order = [addresses[game.hosted_on], addresses[1 - game.hosted_on]]
    clients = [
        ParlourClient(order, retry=retry, timeout=5, channel_options=channel),
        ParlourClient(order[::-1], retry=retry, timeout=5, channel_options=channel),
    ]
    using = 0
    try:
        hosted = await clients[0].host_table(
            game.game, seats, options=options,
            seat_setup=[("person", ""), *(("bot", "normal") for _ in range(seats - 1))],
            host_player_name="Tester", host_takes_seat=True, host_seat=0,
        )  # fmt: skip
        game.table_id = hosted.table.table_id
        await clients[0].start_table(game.table_id, hosted.host_token)
        pending: tuple[str, int, int] | None = None
        while True:
            seat = clients[using].seat(game.table_id, hosted.seat, hosted.seat_token)
            try:
                if pending is not None:
                    request_id, action_id, version = pending
                    answer = await seat.act(
                        action_id, expected_version=version, request_id=request_id
                    )
                    game.acks.append(Ack(request_id, answer.version))
                    pending = None
                    continue
                got = await seat.view()
                if got.view.is_over:
                    game.finished = True
                    return
                if seat.seat in got.view.to_act and got.view.legal_actions:
                    chosen = rng.choice(list(got.view.legal_actions))
                    pending = (str(uuid.uuid4()), chosen.id, got.version)
                else:
                    await asyncio.sleep(0.3)
            except ParlourError as error:
                if pending is not None and error.code.name in ("FAILED_PRECONDITION", "ABORTED"):
                    pending = None  # refused (the table moved on): nothing was applied
                elif error.code.name == "DEADLINE_EXCEEDED":
                    using = 1 - using  # no answer from that side: ask the other replica
                await asyncio.sleep(0.5)  # then the same request again
    except Exception as error:
        game.error = f"{type(error).__name__}: {error}"
    finally:
        for client in clients:
            await client.close()


async def play_across_the_cut(addresses: list[str], cut: int) -> tuple[list[Game], dict[str, int]]:
    games = [Game(name, on) for name, _, _ in GAMES for on in (0, 1)]
    setups = {name: (seats, options) for name, seats, options in GAMES}
    tasks = [asyncio.create_task(play(g, addresses, *setups[g.game])) for g in games]

    async def until(check: Any, what: str) -> None:
        deadline = time.monotonic() + WITHIN
        while not check():
            if time.monotonic() > deadline:
                raise SystemExit(f"partition-test: {what} did not happen in time")
            await asyncio.sleep(0.25)

    def moved(marks: dict[int, int]) -> bool:
        return all(g.finished or g.error or len(g.acks) > marks.get(id(g), 0) for g in games)

    await until(lambda: moved({id(g): 1 for g in games}), "two moves in every game")
    say(f"cutting replica {cut + 1}'s link mid-game")
    sh("ip", "link", "set", link(cut), "down")
    marks = {id(g): len(g.acks) for g in games}
    await until(lambda: moved(marks), "a move in every game across the cut")
    await asyncio.sleep(CUT_SECONDS)
    during = sum(len(g.acks) for g in games) - sum(marks.values())
    say("healing the link")
    sh("ip", "link", "set", link(cut), "up")
    await asyncio.wait_for(asyncio.gather(*tasks), WITHIN)
    return games, {"acknowledged_during_the_cut": during}


# --- checking ------------------------------------------------------------------------


def check(url: str, games: list[Game]) -> tuple[list[str], dict[str, int]]:
    from parlour.replay.check import read_log, replay
    from parlour.service.domain.deals import DealChecker

    problems: list[str] = []
    figures = {"acknowledged": 0, "lost": 0, "applied_twice": 0, "replayed": 0}
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        for game in games:
            where = f"{game.game} hosted on replica {game.hosted_on + 1} ({game.table_id})"
            if game.error or not game.finished:
                problems.append(f"{where}: did not finish: {game.error or 'unfinished'}")
                continue
            with engine.connect() as conn:
                rows = conn.execute(
                    sa.text("SELECT request_id, seq FROM events WHERE game_id = :t"),
                    {"t": game.table_id},
                ).all()
            seqs: dict[str, list[int]] = {}
            for request_id, seq in rows:
                if request_id:
                    seqs.setdefault(request_id, []).append(int(seq))
            for ack in game.acks:
                figures["acknowledged"] += 1
                found = seqs.get(ack.request_id, [])
                if not found:
                    figures["lost"] += 1
                    problems.append(f"{where}: acknowledged move {ack.request_id} lost")
                elif len(found) > 1:
                    figures["applied_twice"] += 1
                    problems.append(f"{where}: {ack.request_id} applied at {found}")
                elif found[0] > ack.version:
                    problems.append(f"{where}: {ack.request_id} at {found[0]} > {ack.version}")
            deals = DealChecker()
            try:
                for _ in replay(asyncio.run(read_log(url, game.table_id)), deals=deals):
                    pass
            except Exception as error:
                problems.append(f"{where}: does not replay: {error}")
                continue
            if not deals.verified:
                problems.append(f"{where}: no deal verified")
                continue
            figures["replayed"] += 1
    finally:
        engine.dispose()
    return problems, figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notify", choices=("postgres", "nats"), default="postgres")
    args = parser.parse_args(argv)
    if os.geteuid() != 0 or not shutil.which("ip"):
        raise SystemExit("partition-test: needs root and iproute2's ip (namespaces, links)")
    server = sa.make_url(os.environ.get(POSTGRES_ENV) or DEFAULT_POSTGRES)
    pg_port = int(server.port or 5432)
    database = f"parlour_partition_{secrets.token_hex(4)}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{database}"'))
    local_url = server.set(database=database).render_as_string(hide_password=False)
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / database
    scratch.mkdir(parents=True)
    relays = Relays()
    processes = Processes()
    token = secrets.token_urlsafe(32)
    problems: list[str] = []
    figures: dict[str, int] = {}
    started = time.monotonic()
    try:
        with phase("network and replicas up"):
            sh(PARLOUR, "migrate", "--database-url", local_url)
            make_network()
            routes = [(host_end(i), pg_port, pg_port) for i in range(2)]
            routes += [(host_end(i), NATS_PORT, NATS_PORT) for i in range(2)]
            relays.start(routes)
            env = {k: v for k, v in os.environ.items() if not k.startswith("PARLOUR_")}
            env["PARLOUR_WORKER_TOKEN"] = token
            for index, ns in enumerate(NAMESPACES):
                url = server.set(host=host_end(index), database=database)
                notify = "postgres" if args.notify == "postgres" else (
                    f"nats://{host_end(index)}:{NATS_PORT}"
                )  # fmt: skip
                processes.start(
                    ["ip", "netns", "exec", ns, PARLOUR, "serve", "--no-migrate",
                     "--address", f"0.0.0.0:{GRPC_PORT}", "--notify", notify,
                     "--database-url", url.render_as_string(hide_password=False)],
                    env, scratch / f"replica-{index + 1}.log",
                )  # fmt: skip
            addresses = [f"{replica_end(i)}:{GRPC_PORT}" for i in range(2)]
            for address in addresses:
                deadline = time.monotonic() + 60
                while sh(PARLOUR, "health", "--server", address, check=False).returncode:
                    if time.monotonic() > deadline:
                        raise SystemExit(f"partition-test: replica {address} never served")
                    time.sleep(0.5)
            worker = [PARLOUR, "worker", "--think-seconds", "0"]
            for address in addresses:
                worker += ["--server", address]
            processes.start(worker, env, scratch / "worker.log")
        with phase("games across the cut"):
            games, during = asyncio.run(play_across_the_cut(addresses, cut=0))
        with phase("check acknowledgements and replays"):
            problems, figures = check(local_url, games)
        figures.update(during)
        figures["games"] = len(games)
    finally:
        processes.stop()
        relays.stop()
        remove_network()
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
        admin.dispose()
        if not problems:
            shutil.rmtree(scratch, ignore_errors=True)
    say("phases: " + ", ".join(f"{name} {took:.1f} s" for name, took in PHASES))
    say(f"notifier {args.notify}; total {time.monotonic() - started:.1f} s; {figures}")
    for problem in problems:
        say(f"FAILED: {problem}")
    if problems:
        say(f"the processes' logs: {scratch}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
