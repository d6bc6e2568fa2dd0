"""``make compose-test``: the image and docker-compose.yml built and run for real.

With podman (no Docker engine is needed) and docker-compose driving podman's
Docker-compatible API socket:

1. stand-ins for the official base images, built from Debian packages with
   debootstrap (no image registry is reachable here) and kept between runs
   (podman keeps its images; a stand-in that exists is not built again);
2. the project's image from deploy/Dockerfile, its base the python stand-in;
3. for each notifier profile (Postgres LISTEN/NOTIFY, then NATS): the whole
   docker-compose.yml up and healthy; a game of each kind played through the
   gateway (HTTP) and through gRPC on each replica (the client library), a
   person's seat played by this script against the workers' bots; mid-game a
   replica and a worker killed and the postgres container restarted; then every
   acknowledged move checked in the exported log (each exactly once, at or before
   the version its answer named) and every game replayed with its digests and
   deals verified, in the image (``parlour replay``) and here
   (``parlour.replay.check``); then everything torn down, volumes included;
4. the expert's decision time in the image and in this Python.

It stops what it started by PID (podman's API service, the healthcheck loop)
and prints the time of each phase. Exit status 0 only if every check passed.

    .venv/bin/python deploy/compose_test.py [--keep-going] [--profile postgres|nats]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STANDINS = ROOT / "deploy" / "standins"
PROJECT = "parlourct"
DEBIAN_IMAGE = "localhost/parlour-standin/debian:bookworm"
#: stand-in name -> the image compose or the Dockerfile would otherwise pull
STANDIN_IMAGES = {
    "python": "localhost/parlour-standin/python:bookworm",
    "postgres": "localhost/parlour-standin/postgres:bookworm",
    "nats": "localhost/parlour-standin/nats:bookworm",
}
IMAGE = "localhost/parlour:latest"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
CONTAINERS_CONF = Path("/etc/containers/containers.conf")
#: bounds on waits (a hang fails the run; they are not what is measured)
HEALTHY_WITHIN = 300.0
GAMES_WITHIN = 600.0
#: games and the options that keep them short: (game, seats, options)
GAMES: tuple[tuple[str, int, dict[str, object]], ...] = (
    ("hearts", 4, {}),
    ("wizard", 4, {"rounds": "5"}),
    ("crazy8s", 3, {"rounds": 1}),
    ("kaiser", 4, {"target": 32}),
)

PHASES: list[tuple[str, float]] = []


def say(text: str) -> None:
    print(f"compose-test: {text}", flush=True)


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    start = time.monotonic()
    say(f"[{name}] ...")
    try:
        yield
    finally:
        took = time.monotonic() - start
        PHASES.append((name, took))
        say(f"[{name}] {took:.1f} s")


def run(
    command: Sequence[str], *, env: dict[str, str] | None = None, check: bool = True, **kw: Any
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(command), env=env, text=True, capture_output=True, check=False, **kw)
    if check and done.returncode != 0:
        raise SystemExit(
            f"compose-test: {' '.join(command)} failed ({done.returncode}):\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- the machine ---------------------------------------------------------------------


def prerequisites() -> None:
    missing = [
        tool for tool in ("podman", "docker-compose", "debootstrap") if not shutil.which(tool)
    ]
    if missing:
        raise SystemExit(f"compose-test: missing {', '.join(missing)} (apt-get install -y ...)")
    # this sandbox refuses podman's default ulimits ("error setting rlimit type 7")
    if not CONTAINERS_CONF.exists():
        CONTAINERS_CONF.parent.mkdir(parents=True, exist_ok=True)
        CONTAINERS_CONF.write_text("[containers]\ndefault_ulimits = []\n")
    # crun refuses a machine whose cgroups are v1 with a v2 hierarchy beside them
    # ("cgroups in hybrid mode not supported"); runc runs there
    conf = CONTAINERS_CONF.read_text()
    runc = shutil.which("runc", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/usr/bin")
    if hybrid_cgroups() and runc and "[engine]" not in conf:
        CONTAINERS_CONF.write_text(conf.rstrip("\n") + '\n\n[engine]\nruntime = "runc"\n')


def hybrid_cgroups() -> bool:
    """Whether cgroup v1 controllers are mounted with a v2 hierarchy beside them."""
    root = Path("/sys/fs/cgroup")
    return (root / "unified" / "cgroup.controllers").exists() and not (
        root / "cgroup.controllers"
    ).exists()


def image_exists(name: str) -> bool:
    return run(["podman", "image", "exists", name], check=False).returncode == 0


def build_standins() -> None:
    if image_exists(DEBIAN_IMAGE):
        say(f"{DEBIAN_IMAGE}: kept from an earlier run")
    else:
        scratch = Path(tempfile.mkdtemp(prefix="parlour-debootstrap-", dir="/var/tmp"))
        try:
            say("debootstrap of Debian bookworm (minbase; a few minutes, once per machine)")
            run(
                [
                    "debootstrap",
                    "--variant=minbase",
                    "bookworm",
                    str(scratch / "root"),
                    DEBIAN_MIRROR,
                ]
            )
            tar = subprocess.Popen(
                ["tar", "-C", str(scratch / "root"), "-c", "."], stdout=subprocess.PIPE
            )
            run(["podman", "import", "-", DEBIAN_IMAGE], stdin=tar.stdout)
            tar.wait()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    for name, image in STANDIN_IMAGES.items():
        if image_exists(image):
            say(f"{image}: kept from an earlier run")
            continue
        say(f"building the {name} stand-in")
        run(
            ["podman", "build", "--pull=never", "--network", "host",
             "--build-arg", f"DEBIAN={DEBIAN_IMAGE}",
             "-f", str(STANDINS / f"{name}.Containerfile"), "-t", image, str(STANDINS)]
        )  # fmt: skip


def build_image() -> int:
    """The project's image (docker format: OCI has no HEALTHCHECK); its size in bytes."""
    command = [
        "podman", "build", "--format", "docker", "--pull=never", "--network", "host",
        "--build-arg", f"BASE_IMAGE={STANDIN_IMAGES['python']}",
        "-f", str(ROOT / "deploy" / "Dockerfile"), "-t", IMAGE, str(ROOT),
    ]  # fmt: skip
    if Path(CA_BUNDLE).exists():  # pip in the RUN steps trusts what this machine's pip does
        command[2:2] = ["-v", f"{CA_BUNDLE}:{CA_BUNDLE}:ro"]
    run(command)
    inspected = json.loads(run(["podman", "image", "inspect", IMAGE]).stdout)[0]
    config = inspected.get("Config") or {}
    if not (inspected.get("Healthcheck") or config.get("Healthcheck")):
        raise SystemExit("compose-test: the image has no HEALTHCHECK")
    if config.get("User") in ("", "root", "0", None):
        raise SystemExit("compose-test: the image runs as root")
    return int(inspected["Size"])


class Podman:
    """Podman's Docker-compatible API service on a socket of this run, by PID."""

    def __init__(self, scratch: Path) -> None:
        self.socket = scratch / "podman.sock"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["podman", "system", "service", "--time=0", f"unix://{self.socket}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not self.socket.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("compose-test: podman's API service did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class Healthchecks:
    """Podman without systemd runs no healthchecks by itself: run them every 2 s
    for every running container of the project (a thread of this process)."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="healthchecks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)

    def _loop(self) -> None:
        while not self._stop.is_set():
            names = run(
                ["podman", "ps", "--filter", f"label=com.docker.compose.project={PROJECT}",
                 "--format", "{{.Names}}"],
                check=False,
            ).stdout.split()  # fmt: skip
            for name in names:
                run(["podman", "healthcheck", "run", name], check=False, timeout=30)
            self._stop.wait(2)


# --- one profile's stack ------------------------------------------------------------


@dataclass
class Stack:
    profile: str  # "postgres" or "nats"
    scratch: Path
    podman: Podman
    grpc_ports: tuple[int, int] = (0, 0)
    web_port: int = 0
    env: dict[str, str] = field(default_factory=dict)

    def compose(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = ["docker-compose", "-p", PROJECT, "--project-directory", str(ROOT)]
        command += [
            "-f",
            str(ROOT / "docker-compose.yml"),
            "-f",
            str(self.scratch / "standins.yml"),
        ]
        command += ["--env-file", str(self.scratch / ".env")]
        if self.profile == "nats":
            command += ["--profile", "nats"]
        return run([*command, *args], env=self.env, check=check, timeout=900)

    def write_files(self) -> None:
        self.grpc_ports = (free_port(), free_port())
        self.web_port = free_port()
        values = {
            "POSTGRES_PASSWORD": secrets.token_urlsafe(16),
            "PARLOUR_WORKER_TOKEN": secrets.token_urlsafe(32),
            "PARLOUR_GRPC_PORT_1": str(self.grpc_ports[0]),
            "PARLOUR_GRPC_PORT_2": str(self.grpc_ports[1]),
            "PARLOUR_WEB_PORT": str(self.web_port),
            "PARLOUR_METRICS_PORT_1": str(free_port()),
            "PARLOUR_METRICS_PORT_2": str(free_port()),
            "PARLOUR_METRICS_PORT_GATEWAY": str(free_port()),
            "PARLOUR_WORKER_THINK_SECONDS": "0",
        }
        if self.profile == "nats":
            values["PARLOUR_NOTIFY"] = "nats://nats:4222"
        (self.scratch / ".env").write_text("".join(f"{k}={v}\n" for k, v in values.items()))
        # the official images' names, pointed at the stand-ins (nothing else changes)
        (self.scratch / "standins.yml").write_text(
            "services:\n"
            f"  postgres:\n    image: {STANDIN_IMAGES['postgres']}\n"
            f"  nats:\n    image: {STANDIN_IMAGES['nats']}\n"
        )
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PARLOUR_")}
        self.env["DOCKER_HOST"] = f"unix://{self.podman.socket}"
        self.env["COMPOSE_HTTP_TIMEOUT"] = "600"

    def container(self, service: str, index: int = 1) -> str:
        return f"{PROJECT}_{service}_{index}"

    def health(self, name: str) -> str:
        done = run(["podman", "inspect", "--format", "{{.State.Health.Status}}", name], check=False)
        return done.stdout.strip()

    def wait_healthy(self, names: Sequence[str]) -> None:
        deadline = time.monotonic() + HEALTHY_WITHIN
        while True:
            states = {name: self.health(name) for name in names}
            if all(state == "healthy" for state in states.values()):
                return
            if time.monotonic() > deadline:
                raise SystemExit(f"compose-test: not healthy in time: {states}")
            time.sleep(1)

    def serving(self) -> list[str]:
        names = [self.container("postgres"), self.container("game-1"), self.container("game-2")]
        names += [
            self.container("worker", 1),
            self.container("worker", 2),
            self.container("gateway"),
        ]
        if self.profile == "nats":
            names.append(self.container("nats"))
        return names


# --- playing -------------------------------------------------------------------------


@dataclass
class Ack:
    table_id: str
    request_id: str
    version: int


@dataclass
class Game:
    game: str
    via: str  # "grpc:game-1", "grpc:game-2" or "gateway"
    table_id: str = ""
    acks: list[Ack] = field(default_factory=list)
    finished: bool = False
    error: str = ""


def seat_setup(seats: int) -> list[tuple[str, str]]:
    return [("person", ""), *(("bot", "normal") for _ in range(seats - 1))]


async def play_grpc(
    game: Game, addresses: list[str], seats: int, options: dict[str, object]
) -> None:
    from parlour.client import ParlourClient, ParlourError, RetryPolicy

    rng = random.Random(f"{game.game}:{game.via}")
    retry = RetryPolicy(attempts=8, max_backoff=2.0)
    async with ParlourClient(addresses, retry=retry, timeout=10) as client:
        hosted = await client.host_table(
            game.game, seats, options=options, seat_setup=seat_setup(seats),
            host_player_name="Tester", host_takes_seat=True, host_seat=0,
        )  # fmt: skip
        game.table_id = hosted.table.table_id
        await client.start_table(game.table_id, hosted.host_token)
        seat = client.seat(game.table_id, hosted.seat, hosted.seat_token)
        pending: tuple[str, int, int] | None = None  # request id, legal action id, version
        while True:
            try:
                if pending is not None:
                    request_id, action_id, version = pending
                    answer = await seat.act(
                        action_id, expected_version=version, request_id=request_id
                    )
                    game.acks.append(Ack(game.table_id, request_id, answer.version))
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
                await asyncio.sleep(1.0)  # a replica or the database away: the same request again


async def play_gateway(game: Game, base: str, seats: int, options: dict[str, object]) -> None:
    import httpx

    rng = random.Random(f"{game.game}:{game.via}")
    kinds = [
        {"kind": "SEAT_KIND_PERSON"},
        *({"kind": "SEAT_KIND_BOT", "botLevel": "normal"} for _ in range(seats - 1)),
    ]
    async with httpx.AsyncClient(base_url=base, timeout=15) as http:

        async def call(method: str, body: dict[str, Any], **headers: str) -> httpx.Response:
            return await http.post(f"/api/{method}", json=body, headers=headers)

        hosted = await call(
            "LobbyService/HostTable",
            {
                "game": game.game,
                "seats": seats,
                "seatSetup": kinds,
                "options": {k: str(v) for k, v in options.items()},
                "hostPlayerName": "Tester",
                "hostTakesSeat": True,
                "hostSeat": 0,
            },
        )
        if hosted.status_code != 200:
            raise RuntimeError(f"HostTable: {hosted.status_code} {hosted.text}")
        body = hosted.json()
        game.table_id = body["table"]["tableId"]
        token = body["seatToken"]
        started = await call(
            "LobbyService/StartTable", {"tableId": game.table_id},
            **{"X-Parlour-Host-Token": body["hostToken"]},
        )  # fmt: skip
        if started.status_code != 200:
            raise RuntimeError(f"StartTable: {started.status_code} {started.text}")
        pending: dict[str, Any] | None = None
        headers = {"X-Parlour-Seat-Token": token}
        while True:
            try:
                if pending is not None:
                    answer = await call("PlayService/Act", pending, **headers)
                    if answer.status_code == 200:
                        version = int(answer.json()["version"])
                        game.acks.append(Ack(game.table_id, pending["requestId"], version))
                        pending = None
                        continue
                    if answer.status_code in (400, 409):
                        pending = None  # refused: nothing was applied
                    await asyncio.sleep(1.0)
                    continue
                got = await call(
                    "PlayService/GetView", {"tableId": game.table_id, "seat": 0}, **headers
                )
                if got.status_code != 200:
                    await asyncio.sleep(1.0)
                    continue
                view = got.json()
                if view["view"].get("isOver"):
                    game.finished = True
                    return
                legal = view["view"].get("legalActions") or []
                if 0 in view["view"].get("toAct", []) and legal:
                    pending = {
                        "tableId": game.table_id, "seat": 0, "expectedVersion": view["version"],
                        "requestId": str(uuid.uuid4()), "legalActionId": rng.choice(legal)["id"],
                    }  # fmt: skip
                else:
                    await asyncio.sleep(0.3)
            except httpx.HTTPError:
                await asyncio.sleep(1.0)  # the gateway's replica away: ask again


async def guarded(game: Game, play: Any) -> None:
    try:
        await play
    except Exception as error:  # recorded, reported, and the run fails
        game.error = f"{type(error).__name__}: {error}"


def podman(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run(["podman", *args], check=check, timeout=120)


async def play_through_failures(stack: Stack) -> list[Game]:
    """Every game, with a replica and a worker killed and postgres restarted mid-game."""
    replicas = [f"127.0.0.1:{port}" for port in stack.grpc_ports]
    games: list[Game] = []
    tasks = []
    for name, seats, options in GAMES:
        for index, first in enumerate(replicas, start=1):
            game = Game(name, f"grpc:game-{index}")
            # hosted on this replica; the client fails over to the other
            order = [first, *(a for a in replicas if a != first)]
            games.append(game)
            tasks.append(asyncio.create_task(guarded(game, play_grpc(game, order, seats, options))))
        game = Game(name, "gateway")
        games.append(game)
        base = f"http://127.0.0.1:{stack.web_port}"
        tasks.append(asyncio.create_task(guarded(game, play_gateway(game, base, seats, options))))

    async def until(check: Any, what: str, within: float) -> None:
        deadline = time.monotonic() + within
        while not check():
            if time.monotonic() > deadline:
                raise SystemExit(f"compose-test: {what} did not happen in time")
            await asyncio.sleep(0.5)

    def playing(at_least: int) -> bool:
        return all(g.finished or g.error or len(g.acks) >= at_least for g in games)

    await until(lambda: playing(2), "two moves in every game", GAMES_WITHIN)
    say("mid-game: killing game-1 and worker 1")
    await asyncio.to_thread(podman, "kill", stack.container("game-1"))
    await asyncio.to_thread(podman, "kill", stack.container("worker", 1))
    marks = {id(g): len(g.acks) for g in games}
    await until(
        lambda: all(g.finished or g.error or len(g.acks) > marks[id(g)] for g in games),
        "a move in every game after the kills",
        GAMES_WITHIN,
    )
    say("mid-game: restarting the postgres container")
    await asyncio.to_thread(podman, "restart", stack.container("postgres"))
    await asyncio.wait_for(asyncio.gather(*tasks), GAMES_WITHIN)
    return games


# --- checking ------------------------------------------------------------------------


def check_games(stack: Stack, games: list[Game], scratch: Path) -> tuple[list[str], int]:
    """Problems found (lost or doubled acknowledged moves, logs that do not replay) and
    how many games replayed with their digests and deals verified."""
    from parlour.replay.check import load_log, replay
    from parlour.service.domain.deals import DealChecker

    problems: list[str] = []
    replayed = 0
    serving = stack.container("game-2")  # never killed
    for game in games:
        where = f"{game.game} via {game.via} ({game.table_id or 'no table'})"
        if game.error or not game.finished:
            problems.append(f"{where}: did not finish: {game.error or 'unfinished'}")
            continue
        exported = podman("exec", serving, "parlour", "export", game.table_id).stdout
        path = scratch / f"{game.table_id}.jsonl"
        path.write_text(exported)
        # the export leaves out request ids: read them from the database itself
        query = (
            "SELECT request_id, seq FROM events WHERE request_id IS NOT NULL "
            f"AND game_id = '{game.table_id}'"  # a server-made id, not input
        )
        rows = podman(
            "exec", stack.container("postgres"),
            "psql", "-U", "parlour", "-d", "parlour", "-At", "-F", " ", "-c", query,
        ).stdout.split("\n")  # fmt: skip
        seqs: dict[str, list[int]] = {}
        for row in filter(None, rows):
            request_id, seq = row.split(" ")
            seqs.setdefault(request_id, []).append(int(seq))
        for ack in game.acks:
            found = seqs.get(ack.request_id, [])
            if len(found) != 1 or found[0] > ack.version:
                problems.append(f"{where}: acknowledged move {ack.request_id} at {found}")
        before = len(problems)
        events = load_log(str(path))
        deals = DealChecker()
        try:
            for _ in replay(events, deals=deals):
                pass
        except Exception as error:
            problems.append(f"{where}: does not replay here: {error}")
        if not deals.verified:
            problems.append(f"{where}: no deal verified")
        inside = podman("exec", serving, "parlour", "replay", game.table_id, check=False)
        if inside.returncode != 0 or "deal(s) verified" not in inside.stdout:
            problems.append(f"{where}: parlour replay in the image: {inside.stderr[-500:]}")
        replayed += len(problems) == before
    return problems, replayed


def one_profile(
    profile: str, scratch: Path, podman_service: Podman
) -> tuple[list[Game], list[str], dict[str, Any]]:
    stack = Stack(profile, scratch, podman_service)
    stack.write_files()
    checks = Healthchecks()
    checks.start()
    try:
        with phase(f"{profile}: up and healthy"):
            stack.compose("up", "-d", "--no-build")
            stack.wait_healthy(stack.serving())
        with phase(f"{profile}: games through the failures"):
            games = asyncio.run(play_through_failures(stack))
        states = {
            name: run(["podman", "inspect", "--format", "{{.State.Status}}", name]).stdout.strip()
            for name in (stack.container("game-1"), stack.container("worker", 1))
        }
        say(f"after the games, the killed containers: {states}")
        with phase(f"{profile}: check acknowledgements and replays"):
            problems, replayed = check_games(stack, games, scratch)
    finally:
        with phase(f"{profile}: down with volumes"):
            stack.compose("down", "-v", "--remove-orphans", check=False)
        checks.stop()
    left = podman(
        "volume", "ls", "--filter", f"label=com.docker.compose.project={PROJECT}", "-q"
    ).stdout
    if left.strip():
        problems.append(f"volumes left after down -v: {left.split()}")
    figures = {
        "games": len(games),
        "finished": sum(g.finished for g in games),
        "acknowledged_moves": sum(len(g.acks) for g in games),
        "lost_or_doubled": sum(": acknowledged move " in p for p in problems),
        "replayed_verified": replayed,
    }
    return games, problems, figures


def expert_decisions() -> tuple[dict[str, Any], dict[str, Any]]:
    script = (ROOT / "deploy" / "expert_decisions.py").read_text()
    inside = run(["podman", "run", "--rm", "-i", IMAGE, "python", "-"], input=script, timeout=900)
    here = run([sys.executable, str(ROOT / "deploy" / "expert_decisions.py")], timeout=900)
    return json.loads(inside.stdout), json.loads(here.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", action="append", choices=("postgres", "nats"))
    parser.add_argument("--no-expert", action="store_true", help="skip the decision-time figures")
    args = parser.parse_args(argv)
    profiles = args.profile or ["postgres", "nats"]
    started = time.monotonic()
    prerequisites()
    with phase("stand-in base images"):
        build_standins()
    with phase("project image"):
        size = build_image()
    say(f"image {IMAGE}: {size / 1e6:.0f} MB")
    scratch = Path(tempfile.mkdtemp(prefix="parlour-compose-"))
    service = Podman(scratch)
    problems: list[str] = []
    report: dict[str, Any] = {"image_bytes": size, "profiles": {}}
    try:
        service.start()
        for profile in profiles:
            _, found, figures = one_profile(profile, scratch, service)
            problems += [f"{profile}: {p}" for p in found]
            report["profiles"][profile] = figures
    finally:
        service.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    if not args.no_expert:
        with phase("expert decision time"):
            inside, here = expert_decisions()
        report["expert_in_image"], report["expert_here"] = inside, here
    say("phases: " + ", ".join(f"{name} {took:.1f} s" for name, took in PHASES))
    say(f"total {time.monotonic() - started:.1f} s; " + json.dumps(report))
    for problem in problems:
        say(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
