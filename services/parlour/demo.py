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
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


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


def _wait_serving(address: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                # grpcio-health-checking's stubs do not declare the stub's methods
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)  # type: ignore[attr-defined]
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"parlour demo: the game service at {address} did not start")
            time.sleep(0.2)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    # SIGTERM (and SIGINT, even where a shell started us with it ignored) stop everything
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    parlour = [sys.executable, "-m", "parlour.cli"]
    env = dict(os.environ, PARLOUR_WORKER_TOKEN=secrets.token_urlsafe(24))
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
        start("serve", "serve", "--address", args.address, "--database-url", args.database_url)
        _wait_serving(args.address)
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
        print(
            f"Parlour is running (logs in {logs}/):\n"
            f"  game service  {args.address}  ({args.database_url})\n"
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
