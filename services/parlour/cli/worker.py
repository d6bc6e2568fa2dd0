"""``parlour worker``: play the bot seats of one or more game-service replicas.

    PARLOUR_WORKER_TOKEN=T parlour worker --server game-1:50051 --server game-2:50051

The token is the one the servers were started with ($PARLOUR_WORKER_TOKEN, or a
file: ``--worker-token-file``/$PARLOUR_WORKER_TOKEN_FILE). Runs until SIGINT
or SIGTERM, finishing the turns in hand, then prints what it played. Exits 2
when the servers refuse the worker (wrong token, no BotService).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import signal
import socket
from collections.abc import Iterator

from prometheus_client import REGISTRY
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from parlour.ai.worker import Tally, Worker, WorkerConfig, WorkerRefused, parse_servers
from parlour.cli import options as ops


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a game service's host:port; repeat (or separate with commas) to fail over "
        "between replicas (default: 127.0.0.1:50051)",
    )
    ops.worker_token_arguments(parser, "the servers' worker token")
    ops.tls_client_arguments(parser)
    ops.metrics_arguments(parser)
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
        "--no-analysis",
        action="store_true",
        help="do not judge finished games' analyses (by default one more slot claims them "
        "and judges them in the decision processes)",
    )
    parser.add_argument(
        "--analysis-budget",
        type=int,
        default=None,
        metavar="PLAYOUTS",
        help="play-outs per candidate move when judging an analysis (default: each game's own)",
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
    ops.log_arguments(parser, debug_help="DEBUG also logs every claim and move")


def run(args: argparse.Namespace) -> int:
    ops.setup_logging(args)
    token = ops.worker_token(args)
    if not token:
        print(
            "parlour worker: set PARLOUR_WORKER_TOKEN (or PARLOUR_WORKER_TOKEN_FILE, "
            "or give --worker-token-file)",
            flush=True,
        )
        return 2
    if args.concurrency < 1:
        print("parlour worker: --concurrency must be at least 1", flush=True)
        return 2
    if args.processes < 0 or (args.expert_budget is not None and args.expert_budget < 1):
        print("parlour worker: --processes must be 0 or more, --expert-budget 1 or more")
        return 2
    if args.analysis_budget is not None and args.analysis_budget < 1:
        print("parlour worker: --analysis-budget must be 1 or more")
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    config = WorkerConfig(
        servers=parse_servers(args.server or ["127.0.0.1:50051"]),
        worker_token=token,
        credentials=ops.tls_client_credentials(args),
        worker_id=args.worker_id,
        concurrency=args.concurrency,
        wait_seconds=args.wait_seconds,
        think_seconds=args.think_seconds,
        seed=seed,
        games=tuple(args.game),
        processes=args.processes,
        expert_budget=args.expert_budget,
        analysis=not args.no_analysis,
        analysis_budget=args.analysis_budget,
    )
    print(
        f"parlour worker {config.worker_id}: playing bots on {', '.join(config.servers)} "
        f"(concurrency {config.concurrency}, {config.processes} decision processes, "
        f"seed {seed}; {'judging analyses' if config.analysis else 'no analyses'})",
        flush=True,
    )
    worker = Worker(config)
    if args.metrics_address:
        REGISTRY.register(WorkerCollector(worker))
        ops.start_metrics(args.metrics_address)
    try:
        tally = asyncio.run(_run(worker))
    except WorkerRefused as refused:
        print(f"parlour worker {config.worker_id}: {refused}", flush=True)
        return 2
    print(
        f"parlour worker {config.worker_id}: stopped after playing {tally.played} turns "
        f"({tally.rate():.1f} per second; {tally.dropped} dropped, {tally.retries} retries) "
        f"and judging {tally.analysed} analyses",
        flush=True,
    )
    return 0


async def _run(worker: Worker) -> Tally:
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, worker.stop)
    return await worker.run()


class WorkerCollector(Collector):
    """The worker's tally as Prometheus counters, read at every scrape."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    def collect(self) -> Iterator[CounterMetricFamily]:
        tally = self.worker.tally
        for name, value, text in (
            ("parlour_worker_turns_played", tally.played, "bot turns played"),
            ("parlour_worker_turns_dropped", tally.dropped, "claimed turns gone before the move"),
            ("parlour_worker_retries", tally.retries, "failed claims or moves retried"),
            ("parlour_worker_analyses", tally.analysed, "analyses judged and submitted"),
        ):
            yield CounterMetricFamily(name, text, value=value)
