"""``make abuse``: a bounded hostile client against two replicas, a worker and the
gateway on a scratch Postgres database, loopback only; stops by itself.

It prints: the tables one anonymous address gets hosted before refusals; a
victim's Act p50/p95 alone and during each attack (a hosting flood, 2,000
Watch attempts, 200 spectators on the victim's table, seat grabbing); the
Watch streams and seats accepted past the caps (must be 0); the game
service's memory and threads before and after; 1,000 idle gRPC connections
and 1,000 half-sent gateway requests, and when each was closed; and forged
page tokens answered INTERNAL or 5xx (must be 0).

The attacks run in a process of their own (as a stranger's script runs on a
machine of its own), so the victim's timings are the server's answer, not a
client event loop shared with the flood. The callers are told apart by their
source address: the victim connects through a relay from 127.0.0.2, the
spectators from 127.0.1.1-20 and the hosts of the grabbed tables from
127.0.2.1-5 (all loopback), each relay in the attacker's process; the attacker
is 127.0.0.1. Each attack is compared with the victim alone just before it (the
same victim's Acts drift as its tables and the database grow: the first and the
last "alone" lines show how far), each ratio with a 95 % bootstrap interval. Every figure is from a
2-core machine that also runs the attacker, the victim and Postgres (and
whatever else runs on it): the attacker is kept to a core of its own, the
replicas, worker, gateway and victim to the other (Postgres runs on either).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import socket
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import httpx
import sqlalchemy as sa

from parlour.client import tokens
from parlour.service.grpc import limits as grpc_limits
from parlour.service.grpc.rates import Rates
from parlour.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from tests.fuzz.campaign import DEFAULT_ADMIN_URL, free_port, process, scratch_database
from tests.service.test_page_tokens import forged_tokens

LIMITS = Rates()
#: the victim's Acts timed alone and during each attack (each attack lasts longer than
#: they take: about 0.12 s each); p95 is then the 8th slowest
ACTS = 150


# -- processes ---------------------------------------------------------------------------------


def status_of(pid: int) -> tuple[float, int]:
    """(resident memory in MB, threads) of process ``pid``."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["Threads"])


# -- a relay that gives a caller its own loopback address -----------------------------------


async def relay(target: tuple[str, int], source: str) -> tuple[asyncio.Server, str]:
    """A listener on 127.0.0.1 whose connections reach ``target`` from ``source``."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*target, local_addr=(source, 0))
        except OSError:
            writer.close()
            return
        with contextlib.suppress(asyncio.CancelledError):  # the run is over
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"127.0.0.1:{server.sockets[0].getsockname()[1]}"


def host_port(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


# -- the victim ------------------------------------------------------------------------------


class Victim:
    """Plays Wizard at all three seats of its own tables (about 690 moves a game, so
    that a phase's Acts are on one table), through its own address, and times every
    Act."""

    def __init__(self, address: str) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.play = play_pb2_grpc.PlayServiceStub(self.channel)
        self.table_id = ""
        self.seats: dict[int, str] = {}
        self.to_act: list[int] = []
        self.refusals = 0

    async def new_table(self) -> None:
        hosted = await self.lobby.HostTable(
            lobby_pb2.HostTableRequest(
                game="wizard", seats=3, host_player_name="Vic", host_takes_seat=True
            )
        )
        self.table_id = hosted.table.table_id
        self.seats = {hosted.seat: hosted.seat_token}
        for name in ("Vera", "Vince"):
            joined = await self.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=self.table_id, player_name=name)
            )
            self.seats[joined.seat] = joined.seat_token
        await self.lobby.StartTable(
            lobby_pb2.StartTableRequest(table_id=self.table_id),
            metadata=tokens(host_token=hosted.host_token),
        )
        self.to_act = list(
            (await self.play.GetView(play_pb2.GetViewRequest(table_id=self.table_id))).view.to_act
        )

    async def moves(self, count: int, pause: float = 0.1) -> list[float]:
        """Act ``count`` times (a new table when one ends); each Act's milliseconds.
        One GetView and one Act a move, about 8 moves a second: under the rates."""
        timings: list[float] = []
        while len(timings) < count:
            if not self.table_id:
                await self.new_table()
            if not self.to_act:
                self.table_id = ""
                continue
            seat = self.to_act[0]
            mine = await self.play.GetView(
                play_pb2.GetViewRequest(table_id=self.table_id, seat=seat),
                metadata=tokens(seat_token=self.seats[seat]),
            )
            if mine.view.is_over or not mine.view.legal_actions:
                self.table_id = ""
                continue
            began = time.perf_counter()
            try:
                acted = await self.play.Act(
                    play_pb2.ActRequest(
                        table_id=self.table_id,
                        seat=seat,
                        expected_version=mine.version,
                        legal_action_id=mine.view.legal_actions[0].id,
                    ),
                    metadata=tokens(seat_token=self.seats[seat]),
                )
                timings.append((time.perf_counter() - began) * 1000)
                self.to_act = [] if acted.view.is_over else list(acted.view.to_act)
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    self.refusals += 1
                self.to_act = [seat]
            await asyncio.sleep(pause)
        return timings


def p50_p95(timings: list[float]) -> tuple[float, float]:
    ordered = sorted(timings)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def ratio_interval(
    timings: list[float], alone: list[float], at: float, draws: int = 2000
) -> tuple[float, float]:
    """A 95 % bootstrap interval of the ratio of the ``at`` quantiles (0.5: p50) of
    ``timings`` to ``alone``: each side resampled on its own, as each was timed."""
    chooser = random.Random(7)

    def quantile(sample: list[float]) -> float:
        ordered = sorted(sample)
        return ordered[min(len(ordered) - 1, int(len(ordered) * at))]

    ratios = sorted(
        quantile(chooser.choices(timings, k=len(timings)))
        / quantile(chooser.choices(alone, k=len(alone)))
        for _ in range(draws)
    )
    return ratios[int(draws * 0.025)], ratios[int(draws * 0.975)]


def percentiles(timings: list[float], alone: list[float] | None = None) -> str:
    p50, p95 = p50_p95(timings)
    line = f"p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  ({len(timings)} acts)"
    if alone:
        base50, base95 = p50_p95(alone)
        low50, high50 = ratio_interval(timings, alone, 0.5)
        low95, high95 = ratio_interval(timings, alone, 0.95)
        line += (
            f"  of alone: p50 x{p50 / base50:4.2f} [{low50:4.2f}-{high50:4.2f}],"
            f" p95 x{p95 / base95:4.2f} [{low95:4.2f}-{high95:4.2f}]"
        )
    return line


def _attack_in_process(name: str, *args: Any) -> Any:
    """Run the attack coroutine ``name`` of this module to its end (in a child process)."""
    return asyncio.run(globals()[name](*args))


#: on a machine of two cores or more the attacker has the last core to itself (as a
#: stranger's script runs on a machine of its own) and everything else the others: the
#: victim's timings then show what the attacks cost the server, not the attacker's own CPU
_CORES = sorted(os.sched_getaffinity(0))  # the cores this run may use, not the machine's
SERVER_CORES = set(_CORES[:-1] or _CORES)
ATTACKER_CORES = set(_CORES[-1:]) if len(_CORES) > 1 else SERVER_CORES


def _attacker_core() -> None:
    os.sched_setaffinity(0, ATTACKER_CORES)


ATTACKER = ProcessPoolExecutor(
    1, mp_context=multiprocessing.get_context("spawn"), initializer=_attacker_core
)


async def during(
    victim: Victim, name: str, *args: Any, acts: int = ACTS
) -> tuple[list[float], Any]:
    """The victim's Act timings while the attack ``name`` runs in the attacker's process."""
    task = asyncio.get_running_loop().run_in_executor(ATTACKER, _attack_in_process, name, *args)
    await asyncio.sleep(1.0)  # the attack under way (its process started)
    timings = await victim.moves(acts)
    return timings, await task


# -- the attacks -----------------------------------------------------------------------------


def code_of(error: BaseException) -> str:
    return error.code().name if isinstance(error, grpc.aio.AioRpcError) else type(error).__name__


async def hosting_flood(addresses: list[str], seconds: float) -> dict[str, int]:
    counts: dict[str, int] = {}
    stop = time.monotonic() + seconds

    async def flood(address: str) -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
            while time.monotonic() < stop:
                try:
                    await lobby.HostTable(lobby_pb2.HostTableRequest(game="wizard", seats=6))
                    code = "OK"
                except grpc.aio.AioRpcError as error:
                    code = code_of(error)
                counts[code] = counts.get(code, 0) + 1

    await asyncio.gather(*(flood(address) for address in addresses for _ in range(4)))
    return counts


async def watch_attempts(
    targets: list[tuple[str, str, str]], seconds: float
) -> tuple[int, int, dict[str, int]]:
    """Open one spectator Watch per (replica, table, source address), all held for
    ``seconds``: (accepted, attempted, refusals by code). A source other than ""
    connects through a relay, in this (the attacker's) process."""
    relays: dict[tuple[str, str], str] = {}
    servers = []
    for address, _, source in targets:
        if source and (address, source) not in relays:
            server, via = await relay(host_port(address), source)
            servers.append(server)
            relays[address, source] = via
    routes = {(a, s): relays.get((a, s), a) for a, _, s in targets}
    channels = {route: grpc.aio.insecure_channel(route) for route in set(routes.values())}
    calls = [
        play_pb2_grpc.PlayServiceStub(channels[routes[address, source]]).Watch(
            play_pb2.WatchRequest(table_id=table_id)
        )
        for address, table_id, source in targets
    ]

    async def first(call: Any) -> str:
        try:
            await asyncio.wait_for(call.read(), 20)
            return "OK"
        except grpc.aio.AioRpcError as error:
            return code_of(error)
        except TimeoutError:
            return "TIMEOUT"

    results = await asyncio.gather(*(first(call) for call in calls))
    await asyncio.sleep(seconds)
    # accepted: a stream that brought its first view and was still open at the end
    results = [
        "ENDED" if result == "OK" and call.done() else result
        for call, result in zip(calls, results, strict=True)
    ]
    for call in calls:
        call.cancel()
    for channel in channels.values():
        await channel.close()
    for server in servers:
        server.close()
    refused: dict[str, int] = {}
    for result in results:
        if result != "OK":
            refused[result] = refused.get(result, 0) + 1
    return results.count("OK"), len(results), refused


async def seat_grab(address: str, table_ids: list[str], seconds: float) -> tuple[int, int]:
    """Join every free seat of ``table_ids`` for ``seconds``: (seats taken, refused)."""
    taken = refused = 0
    stop = time.monotonic() + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        while time.monotonic() < stop:
            for table_id in table_ids:
                if time.monotonic() >= stop:
                    break
                try:
                    await lobby.JoinTable(
                        lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Grabber")
                    )
                    taken += 1
                except grpc.aio.AioRpcError as error:
                    if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                        refused += 1
    return taken, refused


async def seat_grabs(
    replicas: list[str], table_ids: list[str], seconds: float
) -> list[tuple[int, int]]:
    """:func:`seat_grab` on every replica at once."""
    return list(await asyncio.gather(*(seat_grab(r, table_ids, seconds) for r in replicas)))


async def sign_in_guesses(address: str, name: str, seconds: float) -> dict[str, int]:
    """Guess ``name``'s password for ``seconds``, 4 callers at once: answers by code."""
    counts: dict[str, int] = {}
    stop = time.monotonic() + seconds

    async def guess(number: int) -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            accounts = accounts_pb2_grpc.AccountServiceStub(channel)
            attempt = 0
            while time.monotonic() < stop:
                attempt += 1
                guessed = f"guess-{number}-{attempt}"
                request = accounts_pb2.SignInRequest(name=name, password=guessed)
                try:
                    await accounts.SignIn(request)
                    code = "OK"
                except grpc.aio.AioRpcError as error:
                    code = code_of(error)
                counts[code] = counts.get(code, 0) + 1

    await asyncio.gather(*(guess(number) for number in range(4)))
    return counts


async def warm_up() -> None:
    """Nothing: the attacker's process is started (and its imports done) by calling it."""


async def closed_within(sockets: list[socket.socket], bound: float) -> tuple[int, float]:
    """(how many of ``sockets`` the server closed within ``bound`` s, the last close's s)."""
    began = time.monotonic()
    loop = asyncio.get_running_loop()
    last = 0.0

    async def wait(sock: socket.socket) -> bool:
        nonlocal last
        sock.setblocking(False)
        try:
            while await asyncio.wait_for(loop.sock_recv(sock, 4096), bound):
                pass
        except TimeoutError:
            return False
        except OSError:
            pass
        last = max(last, time.monotonic() - began)
        return True

    closed = await asyncio.gather(*(wait(sock) for sock in sockets))
    for sock in sockets:
        sock.close()
    return sum(closed), last


def open_sockets(address: str, count: int, first_bytes: bytes = b"") -> list[socket.socket]:
    opened = []
    for _ in range(count):
        sock = socket.create_connection(host_port(address), timeout=10)
        if first_bytes:
            sock.sendall(first_bytes)
        opened.append(sock)
    return opened


async def forged(address: str, base: str) -> tuple[int, int]:
    """Forged page tokens over gRPC and the gateway: (sent, INTERNAL or 5xx)."""
    bad = sent = 0
    async with grpc.aio.insecure_channel(address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        for _ in range(3):
            await lobby.HostTable(lobby_pb2.HostTableRequest(game="kaiser", seats=4))
        page = await lobby.ListTables(lobby_pb2.ListTablesRequest(page_size=1))
        tokens_ = list(forged_tokens(page.next_page_token).values()) * 10
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            for token in tokens_:
                sent += 2
                try:
                    await lobby.ListTables(lobby_pb2.ListTablesRequest(page_token=token))
                except grpc.aio.AioRpcError as error:
                    bad += error.code() in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
                answer = await http.post("/api/LobbyService/ListTables", json={"pageToken": token})
                bad += answer.status_code >= 500
    return sent, bad


# -- the run ---------------------------------------------------------------------------------


async def attack(replicas: list[str], base: str, pid: int, metrics: str) -> None:
    say: Callable[..., None] = lambda *parts: print(*parts, flush=True)  # noqa: E731
    memory_before, threads_before = status_of(pid)
    victim_relay, victim_address = await relay(host_port(replicas[0]), "127.0.0.2")
    victim = Victim(victim_address)
    say("\nvictim's Act (Wizard, all three seats, from 127.0.0.2), the attacker at 127.0.0.1:")
    alone = await victim.moves(ACTS)
    say(f"  alone                          {percentiles(alone)}")

    # the attacker's process started and warm before anything is timed
    await asyncio.get_running_loop().run_in_executor(ATTACKER, _attack_in_process, "warm_up")
    timings, hosted = await during(victim, "hosting_flood", replicas, 25)
    say(f"  during a hosting flood         {percentiles(timings, alone)}")
    accepted = hosted.get("OK", 0)

    # 2,000 Watch attempts from the attacker, on tables it hosted, over both replicas
    async with grpc.aio.insecure_channel(replicas[0]) as channel:
        rows = await lobby_pb2_grpc.LobbyServiceStub(channel).ListTables(
            lobby_pb2.ListTablesRequest(page_size=20)
        )
    tables = [table.table_id for table in rows.tables] or [victim.table_id]
    targets = [(replicas[n % 2], tables[n % len(tables)], "") for n in range(2000)]
    before = await victim.moves(ACTS)
    say(f"  alone, just before             {percentiles(before, alone)}")
    timings, (watched, tried, refused) = await during(victim, "watch_attempts", targets, 25)
    say(f"  during 2,000 Watch attempts    {percentiles(timings, before)}")
    watch_cap = LIMITS.watch_streams * len(replicas)

    # 200 spectators on the victim's table, from 20 addresses, over both replicas: a new
    # table, which lasts past the phase's Acts
    before = await victim.moves(ACTS)
    say(f"  alone, just before             {percentiles(before, alone)}")
    await victim.new_table()
    spectators = [
        (replicas[n % 2], victim.table_id, f"127.0.1.{(n % 40) // 2 + 1}") for n in range(200)
    ]
    timings, (spectating, _, _) = await during(victim, "watch_attempts", spectators, 25)
    say(f"  during 200 spectators          {percentiles(timings, before)}")
    spectator_cap = LIMITS.spectators_per_table * len(replicas)

    # seat grabbing: 5 hosts (their own addresses) open 40 tables with 3 free seats each
    open_tables: list[str] = []
    for number in range(5):
        host_relay, via = await relay(host_port(replicas[number % 2]), f"127.0.2.{number + 1}")
        async with grpc.aio.insecure_channel(via) as channel:
            lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
            for _ in range(8):
                hosted_table = await lobby.HostTable(
                    lobby_pb2.HostTableRequest(
                        game="hearts", seats=4, host_player_name="Host", host_takes_seat=True
                    )
                )
                open_tables.append(hosted_table.table.table_id)
        host_relay.close()
    before = await victim.moves(ACTS)
    say(f"  alone, just before             {percentiles(before, alone)}")
    timings, grabbed = await during(victim, "seat_grabs", replicas, open_tables, 25)
    say(f"  during seat grabbing           {percentiles(timings, before)}")
    again = await victim.moves(ACTS)
    say(f"  alone again, after the attacks {percentiles(again, alone)}")
    seats = sum(taken for taken, _ in grabbed)
    seat_cap = LIMITS.join_per_minute * len(replicas)

    say("\nhosting flood (25 s, 8 callers at once from one address, both replicas):")
    say(f"  tables hosted {accepted}, refused {hosted.get('RESOURCE_EXHAUSTED', 0)}")
    say(f"  = {accepted} tables a minute for one address before refusals (the limit: "
        f"{LIMITS.host_per_minute} a minute per replica)")  # fmt: skip
    say("\ncaps:")
    say(f"  Watch streams: {watched} of {tried} accepted (cap {watch_cap}: "
        f"{LIMITS.watch_streams} per address per replica); past the cap: "
        f"{max(0, watched - watch_cap)}; refused {refused}")  # fmt: skip
    say(f"  spectators on one table: {spectating} of 200 accepted (cap {spectator_cap}); "
        f"past the cap: {max(0, spectating - spectator_cap)}")  # fmt: skip
    say(f"  seats grabbed: {seats} of {len(open_tables) * 3} free (the join rate allows "
        f"{seat_cap} a minute); past it: {max(0, seats - seat_cap)}")  # fmt: skip

    # connections that say nothing
    idle = open_sockets(replicas[1], 1000)
    half = open_sockets(base.removeprefix("http://"), 1000, b"GET / HTTP/1.1\r\nHost: x\r\nX-")
    metric_sockets = open_sockets(metrics, 200)
    await asyncio.sleep(1)
    _, threads_during = status_of(pid)
    (idle_closed, idle_last), (half_closed, half_last), _ = await asyncio.gather(
        closed_within(idle, grpc_limits.CONNECTION_IDLE_SECONDS + 15),
        closed_within(half, 25),
        closed_within(metric_sockets, 20),
    )
    say("\nconnections:")
    say(f"  1,000 idle gRPC connections: {idle_closed} closed, the last after "
        f"{idle_last:.1f} s (handshake limit {grpc_limits.HANDSHAKE_SECONDS} s, idle "
        f"{grpc_limits.CONNECTION_IDLE_SECONDS} s)")  # fmt: skip
    say(
        f"  1,000 half-sent gateway requests: {half_closed} closed, the last after "
        f"{half_last:.1f} s (header limit 10 s; past 1,000 connections closed at once)"
    )
    say(f"  200 idle metrics connections: game service threads {threads_before} before, "
        f"{threads_during} with them open")  # fmt: skip

    sent, bad = await forged(replicas[0], base)
    say(f"\nforged page tokens: {sent} sent (gRPC and gateway), INTERNAL/UNKNOWN/5xx: {bad}")

    # password guessing: a named account, then 30 s of wrong passwords from one address
    async with grpc.aio.insecure_channel(replicas[1]) as channel:
        accounts = accounts_pb2_grpc.AccountServiceStub(channel)
        guest = await accounts.AuthenticateDevice(
            accounts_pb2.AuthenticateDeviceRequest(device_secret="abuse" + "d" * 40)
        )
        await accounts.ClaimName(
            accounts_pb2.ClaimNameRequest(name="Targeted", password="the real password"),
            metadata=(("authorization", f"Bearer {guest.session_token}"),),
        )
    guesses = await asyncio.get_running_loop().run_in_executor(
        ATTACKER, _attack_in_process, "sign_in_guesses", replicas[1], "Targeted", 30
    )
    say(f"password guesses at one name, 30 s, 4 callers from one address: "
        f"{guesses.get('UNAUTHENTICATED', 0)} checked, "
        f"{guesses.get('RESOURCE_EXHAUSTED', 0)} refused, {guesses.get('OK', 0)} right "
        f"(the limit: {LIMITS.sign_in_per_minute} a minute per replica)")  # fmt: skip
    await asyncio.sleep(2)
    memory_after, _ = status_of(pid)
    say(f"\ngame service (replica 1) memory: {memory_before:.0f} MB before, "
        f"{memory_after:.0f} MB after")  # fmt: skip
    say(f"victim's Acts refused for its own rate: {victim.refusals}")
    victim_relay.close()
    await victim.channel.close()
    ATTACKER.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgres", default=os.environ.get("PARLOUR_ABUSE_POSTGRES_URL", DEFAULT_ADMIN_URL)
    )
    parser.add_argument("--logs", type=Path, default=Path("build/abuse"))
    args = parser.parse_args(argv)
    args.logs.mkdir(parents=True, exist_ok=True)
    # the attacker's process would print gRPC's notes on every closed connection
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    admin = sa.make_url(args.postgres).set(drivername="postgresql")
    os.sched_setaffinity(0, SERVER_CORES)  # the replicas, worker and gateway inherit it
    cli = [sys.executable, "-m", "parlour.cli"]
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(scratch_database(admin.render_as_string(hide_password=False)))
        metrics = f"127.0.0.1:{free_port()}"
        replicas, pids = [], []
        for number in (1, 2):
            serve = [*cli, "serve", "--address", "127.0.0.1:0", "--database-url", url]
            if number == 1:
                serve += ["--metrics-address", metrics]
            else:
                serve += ["--no-migrate"]
            address, pid = stack.enter_context(
                process(serve, args.logs / f"serve-{number}.log", "serving on")
            )
            replicas.append(address)
            pids.append(pid)
        stack.enter_context(
            process(
                [*cli, "worker", *[part for a in replicas for part in ("--server", a)]],
                args.logs / "worker.log",
                "playing bots on",
            )
        )
        gateway = [*cli, "gateway", "--server", replicas[0], "--port", "0"]
        url, _ = stack.enter_context(
            process(gateway, args.logs / "gateway.log", "browser client on ")
        )
        base = url.rstrip("/")
        for _ in range(100):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        print(f"make abuse: replicas {', '.join(replicas)}, gateway {base} (load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; servers and victim on "
              f"cores {sorted(SERVER_CORES)}, the attacker on {sorted(ATTACKER_CORES)}, "
              "Postgres on any)", flush=True)  # fmt: skip
        asyncio.run(asyncio.wait_for(attack(replicas, base, pids[0], metrics), 600))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
