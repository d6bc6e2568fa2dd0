"""``parlour demo`` (what ``make run`` runs): Parlour on one machine.

Starts, as separate processes, a game service on the embedded SQLite file, one
AI worker for the bot seats and the REST/JSON gateway with the browser
client, then prints the exact command to play in a terminal. With ``--play``
it also runs the terminal client in the foreground and stops everything when
you quit it. Ctrl-C stops every process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from parlour.cli import options as ops


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--address", default="127.0.0.1:50051", help="game service address")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("PARLOUR_DATABASE_URL", "sqlite:///parlour.sqlite3"),
        help="database (default: $PARLOUR_DATABASE_URL or the embedded SQLite file)",
    )
    parser.add_argument("--web-port", type=int, default=8080, help="browser client port")
    parser.add_argument("--workers", type=int, default=1, help="AI worker processes")
    parser.add_argument("--play", action="store_true", help="also open the terminal client")
    parser.add_argument(
        "--think-seconds",
        type=float,
        default=0.8,
        help="the bots' pause before each move, so people can follow them (default: %(default)s)",
    )


class StartFailed(Exception):
    """A process of the demo did not come up; the message says which and why."""


def _serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            # grpcio-health-checking's stubs do not declare the stub's methods
            reply = health_pb2_grpc.HealthStub(channel).Check(  # type: ignore[attr-defined]
                health_pb2.HealthCheckRequest(), timeout=1
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
        return True
    return False


def _wait_until(
    ready: Callable[[], bool], child: subprocess.Popen[bytes], what: str, log: Path
) -> None:
    """Return once ``ready()``; StartFailed (with the end of its log) if ``child`` exits first."""
    deadline = time.monotonic() + 30
    while not ready():
        if child.poll() is not None:
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            said = "\n    ".join(tail) or "(nothing)"
            raise StartFailed(
                f"{what} exited with code {child.returncode}; its log ({log}) ends:\n    {said}"
            )
        if time.monotonic() > deadline:
            raise StartFailed(f"{what} did not start within 30 s; see {log}")
        time.sleep(0.2)


def check_ports(args: argparse.Namespace) -> list[str]:
    """One line per port the demo needs that is not free, naming the flag that moves it."""
    host, _, port = args.address.rpartition(":")
    wanted = [
        (host or "127.0.0.1", int(port), f"--address {host or '127.0.0.1'}:PORT"),
        ("127.0.0.1", args.web_port, "--web-port PORT"),
    ]
    problems = []
    for where, number, flag in wanted:
        problem = ops.port_problem(where.strip("[]"), number)
        if problem is not None:
            problems.append(
                f"parlour demo: cannot listen on {where}:{number} ({problem}); "
                f"stop what uses it, or choose another port with {flag}"
            )
    return problems


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    # SIGTERM (and SIGINT, even where a shell started us with it ignored) stop everything
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    problems = check_ports(args)
    if problems:
        print("\n".join(problems), file=sys.stderr, flush=True)
        return 2
    parlour = [sys.executable, "-m", "parlour.cli"]
    # secrets (and a URL that may hold a password) go to the children by environment, not argv
    env = dict(
        os.environ,
        PARLOUR_WORKER_TOKEN=secrets.token_urlsafe(24),
        PARLOUR_DATABASE_URL=args.database_url,
    )
    host = args.address.rpartition(":")[0]
    logs = Path("build")
    logs.mkdir(exist_ok=True)
    children: dict[str, subprocess.Popen[bytes]] = {}

    def start(name: str, *command: str) -> None:
        log = (logs / f"{name}.log").open("ab")
        children[name] = subprocess.Popen(
            [*parlour, *command], env=env, stdout=log, stderr=subprocess.STDOUT
        )

    try:
        start("serve", "serve", "--address", args.address)
        _wait_until(
            lambda: _serving(args.address),
            children["serve"],
            f"the game service ({args.address})",
            logs / "serve.log",
        )
        for n in range(args.workers):
            start(
                f"worker-{n}",
                "worker",
                "--server",
                args.address,
                "--think-seconds",
                str(args.think_seconds),
            )
        start("gateway", "gateway", "--server", args.address, "--port", str(args.web_port))
        _wait_until(
            lambda: _listening(args.web_port),
            children["gateway"],
            f"the browser gateway (port {args.web_port})",
            logs / "gateway.log",
        )
        print(
            f"Parlour is running (logs in {logs}/):\n"
            f"  game service  {args.address}  ({ops.safe_url(args.database_url)})\n"
            f"  AI workers    {args.workers}\n"
            f"  browser       http://{host or '127.0.0.1'}:{args.web_port}/\n"
            f"Play in a terminal with:\n"
            f"  .venv/bin/parlour play --server {args.address}\n"
            "Ctrl-C stops everything.",
            flush=True,
        )
        if args.play:
            subprocess.run([*parlour, "play", "--server", args.address], env=env, check=False)
        else:
            while all(child.poll() is None for child in children.values()):
                time.sleep(0.5)
            stopped = [name for name, child in children.items() if child.poll() is not None]
            print(f"parlour demo: {', '.join(stopped)} stopped; see {logs}/")
            return 1
    except StartFailed as failed:
        print(f"parlour demo: {failed}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        pass
    finally:
        for child in children.values():
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)
        for child in children.values():
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
    return 0
