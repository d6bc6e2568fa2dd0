"""``parlour serve``: run one game-service replica.

A thin command over the composition root (``parlour.service.bootstrap``):
its arguments become a :class:`~parlour.service.bootstrap.Settings`.
Migrates the database first (unless --no-migrate), then prints the address
it listens on (``parlour: serving on HOST:PORT``; with port 0 the port
chosen) and serves until SIGINT or SIGTERM, finishing calls in flight
before it stops.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import ipaddress
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from parlour.cli import options as ops
from parlour.cli.account_flags import account_settings, add_account_arguments
from parlour.cli.metrics_http import start_metrics
from parlour.cli.options import database_url_argument, safe_url
from parlour.replay.fork import fork_table
from parlour.service import bootstrap
from parlour.service.app import sweeper
from parlour.service.app.analysis import DEFAULT_ANALYSIS_LEASE_SECONDS
from parlour.service.app.bots import DEFAULT_LEASE_SECONDS
from parlour.service.grpc import rates
from parlour.service.notify import NOTIFY_ENV, NatsUnavailable, notify_setting
from parlour.service.store.protocol import CONNECTIONS_ENV, DEFAULT_CONNECTIONS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--address",
        default="127.0.0.1:50051",
        help="host:port to listen on; port 0 picks a free one (default: %(default)s)",
    )
    database_url_argument(parser)
    parser.add_argument(
        "--no-migrate", action="store_true", help="do not migrate the database on start"
    )
    ops.worker_token_arguments(
        parser, "the shared secret that lets AI workers act for bot seats (none: bots cannot act)"
    )
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=5.0,
        help="how long an AI worker holds a bot turn it claimed; a worker that dies "
        "mid-turn holds its table up this long (default: %(default)s)",
    )
    parser.add_argument(
        "--analysis-lease-seconds",
        type=float,
        default=DEFAULT_ANALYSIS_LEASE_SECONDS,
        help="how long an AI worker holds a game's analysis it claimed (each part it "
        "sends renews it); a worker that dies mid-analysis holds it up this long "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--db-connections",
        type=int,
        default=None,
        help="pooled database connections this replica holds at most, besides one LISTEN "
        f"connection on Postgres (default: ${CONNECTIONS_ENV}, else {DEFAULT_CONNECTIONS})",
    )
    parser.add_argument(
        "--notify",
        default=None,
        metavar="local|postgres|nats://HOST:PORT",
        help="how replicas wake each other's watchers and the AI workers: postgres "
        "(LISTEN/NOTIFY, the default on Postgres), nats://HOST:PORT (a NATS server; "
        "appends commit without pg_notify) or local (this process only, the default on "
        f"SQLite) (default: ${NOTIFY_ENV})",
    )
    parser.add_argument(
        "--catch-up-seconds",
        type=float,
        default=15.0,
        help="a Watch re-reads the store at least this often whatever it hears: the most "
        "a lost wake-up delays an update (default: %(default)s)",
    )
    parser.add_argument(
        "--event-loop",
        choices=("uvloop", "asyncio"),
        default=os.environ.get("PARLOUR_EVENT_LOOP", "uvloop"),
        help="the event loop: uvloop (less CPU per call; asyncio's where uvloop is not "
        "installed) or asyncio's own (default: $PARLOUR_EVENT_LOOP or %(default)s)",
    )
    parser.add_argument(
        "--sweep-seconds",
        type=float,
        default=None,
        help="how often this replica looks for turn clocks that ran out and tables to "
        f"expire (default: ${sweeper.SWEEP_SECONDS_ENV}, else {sweeper.DEFAULT_SWEEP_SECONDS:g})",
    )
    parser.add_argument(
        "--open-table-seconds",
        type=float,
        default=None,
        help="an open table with no person joining for this long expires; 0: never "
        f"(default: ${sweeper.OPEN_TABLE_SECONDS_ENV}, else "
        f"{sweeper.DEFAULT_OPEN_TABLE_SECONDS:g})",
    )
    parser.add_argument(
        "--abandon-seconds",
        type=float,
        default=None,
        help="a game with no person action for this long ends as abandoned; 0: never "
        f"(default: ${sweeper.ABANDON_SECONDS_ENV}, else {sweeper.DEFAULT_ABANDON_SECONDS:g})",
    )
    parser.add_argument(
        "--page-token-secret-file",
        metavar="FILE",
        default=None,
        help="the secret that signs ListTables page tokens, shared by every replica: read "
        "from FILE, else $PARLOUR_PAGE_TOKEN_SECRET_FILE, else $PARLOUR_PAGE_TOKEN_SECRET "
        "(default: derived from the worker token, else random at start)",
    )
    limits = parser.add_argument_group(
        "limits", "each caller's rates and caps, per replica (0: no limit); see the README"
    )
    for knob in rates.KNOBS:
        limits.add_argument(
            knob.flag,
            type=int,
            default=None,
            metavar="N",
            help=f"{_KNOB_HELP[knob.name]} (default: ${knob.env}, else {knob.default})",
        )
    limits.add_argument(
        "--trusted-proxies",
        default=os.environ.get("PARLOUR_TRUSTED_PROXIES", ""),
        metavar="NETWORKS",
        help="comma-separated networks of proxies (the gateway) whose calls are limited by "
        "the address they name in x-parlour-client-address, not their own "
        "(default: $PARLOUR_TRUSTED_PROXIES, else none)",
    )
    ops.tls_server_arguments(parser)
    ops.metrics_arguments(parser)
    ops.log_arguments(parser, debug_help="DEBUG also logs health checks")
    add_account_arguments(parser)


_KNOB_HELP = {
    "host_per_minute": "HostTable calls a minute per caller",
    "join_per_minute": "JoinTable calls a minute per caller",
    "act_per_second": "Act calls a second per caller (AI workers are exempt)",
    "view_per_second": "GetView calls a second per caller",
    "watch_per_minute": "Watch calls started a minute per caller",
    "watch_streams": "Watch streams one caller holds open at once",
    "spectators_per_table": "spectator Watch streams on one table at once",
    "sign_in_per_minute": "SignIn and ClaimName calls a minute per caller (argon2id hashes)",
    "devices_per_minute": "AuthenticateDevice calls a minute per caller (new guests)",
    "refusal_delay_ms": "milliseconds a refusal waits before it is answered (half or more of "
    "it, at random; at most the wait it names; N + 1 times as long while N of the caller's "
    "refusals pause, up to 10 s)",
    "chat_per_ten_seconds": "chat lines (Say) in 10 seconds per seat of a table",
    "analysis_per_minute": "RequestAnalysis calls a minute per caller",
}


def limit_settings(args: argparse.Namespace) -> tuple[rates.Rates, tuple[str, ...]]:
    """The rates and the trusted proxies from the flags and environment (ValueError
    naming the flag for a bad one)."""
    chosen = rates.rates_from(
        {knob.name: getattr(args, knob.name) for knob in rates.KNOBS}, dict(os.environ)
    )
    proxies = tuple(part.strip() for part in args.trusted_proxies.split(",") if part.strip())
    for network in proxies:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise ValueError(f"--trusted-proxies: {network!r} is not a network") from None
    return chosen, proxies


def bot_levels() -> dict[str, tuple[str, ...]]:
    """The bot levels to publish in the catalogue, if the AI package is installed."""
    try:
        from parlour.ai.registry import LEVELS
    except ImportError:
        return {}
    return dict(LEVELS)


#: The cyclic garbage collector's thresholds while serving (Python's default is 700,
#: 10, 10). Nearly everything a call makes is freed by its reference count, so the
#: collector's passes find little: in the watched shape (bench/service.py) they took
#: 8.5% of the replica's CPU with the defaults, a full pass 69 ms; 2.5% with these and
#: the start's objects frozen (issue 34).
COLLECTOR_THRESHOLDS = (10_000, 20, 20)


def settle_collector() -> None:
    """Once the replica is built and serving: what it made to start (modules, the
    catalogues, the registry) moves out of the collector's sight for good
    (``gc.freeze``), so a full pass walks only what serving made since, and the
    collector runs less often (:data:`COLLECTOR_THRESHOLDS`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def event_loop(name: str) -> Callable[[Coroutine[Any, Any, None]], None]:
    """The function that runs the server's coroutine on the chosen event loop."""
    if name == "uvloop":
        try:
            import uvloop
        except ImportError:  # not built for this platform: asyncio's loop serves as well
            return asyncio.run
        return uvloop.run
    return asyncio.run


async def _serve(
    settings: bootstrap.Settings, ready: Callable[[int], None], metrics_address: str | None
) -> None:
    """The replica, and its metrics endpoint on the same event loop (no thread per
    connection: ``metrics_http.py``)."""
    metrics = await start_metrics(metrics_address)
    try:
        await bootstrap.serve(settings, ready)
    finally:
        if metrics is not None:
            await metrics.close()


def run(args: argparse.Namespace) -> int:
    ops.setup_logging(args)
    credentials = ops.tls_server_credentials(args)
    token = ops.worker_token(args)
    page_secret = ops.secret("PARLOUR_PAGE_TOKEN_SECRET", file=args.page_token_secret_file)
    if page_secret is not None and len(page_secret) < ops.MIN_SECRET_LENGTH:
        print(
            f"parlour serve: the page-token secret must be at least {ops.MIN_SECRET_LENGTH} "
            "characters",
            file=sys.stderr,
        )
        return 2
    host = args.address.rsplit(":", 1)[0]

    def ready(port: int) -> None:
        settle_collector()
        security = "TLS" if credentials is not None else "plaintext"
        print(
            f"parlour: serving on {host}:{port} ({security}; {safe_url(args.database_url)})",
            flush=True,
        )

    host_only, _, port_text = args.address.rpartition(":")
    problem = ops.port_problem(host_only.strip("[]") or "0.0.0.0", int(port_text or 0))
    if problem is not None:
        print(
            f"parlour serve: cannot listen on {args.address} ({problem}); "
            "stop what uses it, or choose another address with --address HOST:PORT",
            file=sys.stderr,
            flush=True,
        )
        return 2
    if args.catch_up_seconds <= 0:
        print("parlour serve: --catch-up-seconds must be positive", file=sys.stderr)
        return 2
    try:
        limiting, proxies = limit_settings(args)
    except ValueError as problem:
        print(f"parlour serve: {problem}", file=sys.stderr)
        return 2
    notify = notify_setting(args.notify)
    if notify not in (None, "", "local", "postgres") and not notify.startswith(
        ("nats://", "tls://")
    ):
        print(
            f"parlour serve: --notify must be local, postgres or nats://HOST:PORT, not {notify!r}",
            file=sys.stderr,
        )
        return 2
    settings = bootstrap.Settings(
        address=args.address,
        database_url=args.database_url,
        migrate=not args.no_migrate,
        worker_token=token,
        bot_levels=bot_levels(),
        forker=fork_table,
        lease_seconds=args.lease_seconds or DEFAULT_LEASE_SECONDS,
        analysis_lease_seconds=args.analysis_lease_seconds or DEFAULT_ANALYSIS_LEASE_SECONDS,
        credentials=credentials,
        connections=args.db_connections,
        notify=notify,
        catch_up_seconds=args.catch_up_seconds,
        sweep=sweeper.SweepSettings.from_env(
            args.sweep_seconds, args.open_table_seconds, args.abandon_seconds
        ),
        page_secret=page_secret.encode() if page_secret else None,
        rates=limiting,
        trusted_proxies=proxies,
        **account_settings(args),
    )
    try:
        event_loop(args.event_loop)(_serve(settings, ready, args.metrics_address))
    except NatsUnavailable as problem:
        print(f"parlour serve: {problem}", file=sys.stderr, flush=True)
        return 2
    return 0
