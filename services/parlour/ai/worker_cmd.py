"""``parlour worker``: play the bot seats of one or more game-service replicas.

    parlour worker --server game-1:50051 --server game-2:50051 --worker-token T

The token is the one the servers were started with (``parlour serve
--worker-token``; both default to $PARLOUR_WORKER_TOKEN). Runs until SIGINT
or SIGTERM, finishing the turns in hand, then prints what it played. Exits 2
when the servers refuse the worker (wrong token, no BotService).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import secrets
import signal
import socket

from parlour.ai.worker import Tally, Worker, WorkerConfig, WorkerRefused, parse_servers


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a game service's host:port; repeat (or separate with commas) to fail over "
        "between replicas (default: 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--worker-token",
        default=os.environ.get("PARLOUR_WORKER_TOKEN") or None,
        help="the servers' worker token (default: $PARLOUR_WORKER_TOKEN)",
    )
    parser.add_argument(
        "--worker-id",
        default=f"{socket.gethostname()}-{os.getpid()}",
        help="this worker's name in the servers' leases and in its log (default: HOST-PID)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=1,
        help="bot turns played at once, each in its own slot (default: %(default)s)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="processes that run the bots' decisions, off the network loop: the worker's "
        "CPU budget (0: a thread of the worker's own process; default: %(default)s)",
    )
    parser.add_argument(
        "--expert-budget",
        type=int,
        default=None,
        metavar="PLAYS",
        help="the expert level's thinking budget, simulated card plays per decision "
        "(default: each game's own)",
    )
    parser.add_argument(
        "--think-seconds",
        type=float,
        default=0.0,
        help="pause before each move so people can follow the bots (default: %(default)s)",
    )
    parser.add_argument(
        "--wait-seconds",
        type=float,
        default=20.0,
        help="how long one claim waits on the server for a turn (default: %(default)s)",
    )
    parser.add_argument(
        "--game",
        action="append",
        default=[],
        help="only play this game's bots (repeatable; default: every game)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the bots' random choices (default: a fresh one, logged)",
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="DEBUG also logs every claim (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=max(logging.INFO, getattr(logging, args.log_level)),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    # DEBUG is for the worker's own claims, not for grpc's internals
    logging.getLogger("parlour").setLevel(getattr(logging, args.log_level))
    if not args.worker_token:
        print("parlour worker: give --worker-token (or set PARLOUR_WORKER_TOKEN)", flush=True)
        return 2
    if args.concurrency < 1:
        print("parlour worker: --concurrency must be at least 1", flush=True)
        return 2
    if args.processes < 0 or (args.expert_budget is not None and args.expert_budget < 1):
        print("parlour worker: --processes must be 0 or more, --expert-budget 1 or more")
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    config = WorkerConfig(
        servers=parse_servers(args.server or ["127.0.0.1:50051"]),
        worker_token=args.worker_token,
        worker_id=args.worker_id,
        concurrency=args.concurrency,
        wait_seconds=args.wait_seconds,
        think_seconds=args.think_seconds,
        seed=seed,
        games=tuple(args.game),
        processes=args.processes,
        expert_budget=args.expert_budget,
    )
    print(
        f"parlour worker {config.worker_id}: playing bots on {', '.join(config.servers)} "
        f"(concurrency {config.concurrency}, {config.processes} decision processes, "
        f"seed {seed})",
        flush=True,
    )
    worker = Worker(config)
    try:
        tally = asyncio.run(_run(worker))
    except WorkerRefused as refused:
        print(f"parlour worker {config.worker_id}: {refused}", flush=True)
        return 2
    print(
        f"parlour worker {config.worker_id}: stopped after playing {tally.played} turns "
        f"({tally.rate():.1f} per second; {tally.dropped} dropped, {tally.retries} retries)",
        flush=True,
    )
    return 0


async def _run(worker: Worker) -> Tally:
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, worker.stop)
    return await worker.run()
