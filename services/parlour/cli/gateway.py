"""``parlour gateway``: serve the REST/JSON gateway and the browser client.

One HTTP process (uvicorn) in front of a game service: it serves the browser
client's files and turns its REST/JSON calls into the service's gRPC calls
(``parlour.gateway``); it prints the URL to open. TLS to the service, metrics
and logging are the shared options (``parlour.cli.options``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys

import uvicorn

from parlour.cli import options as ops
from parlour.cli.metrics_http import start_metrics
from parlour.gateway.app import create_app
from parlour.gateway.http import HttpLimits, server_config
from parlour.gateway.observe import ObservingMiddleware


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get("PARLOUR_SERVER") or "127.0.0.1:50051",
        help="game service address (default: $PARLOUR_SERVER or %(default)s)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8080, help="HTTP port (default: %(default)s)")
    limits = parser.add_argument_group("connection limits")
    limits.add_argument(
        "--header-seconds",
        type=float,
        default=None,
        help="seconds a client has to send a request head, from connecting or from the last "
        "answer (default: $PARLOUR_GATEWAY_HEADER_SECONDS, else 10)",
    )
    limits.add_argument(
        "--keep-alive-seconds",
        type=float,
        default=None,
        help="seconds an idle keep-alive connection is kept "
        "(default: $PARLOUR_GATEWAY_KEEP_ALIVE_SECONDS, else 5)",
    )
    limits.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="connections open at once; more are closed, requests past it answered 503 "
        "(default: $PARLOUR_GATEWAY_MAX_CONNECTIONS, else 1000)",
    )
    ops.tls_client_arguments(parser)
    ops.metrics_arguments(parser)
    ops.log_arguments(parser, debug_help="DEBUG logs more")


def run(args: argparse.Namespace) -> int:
    ops.setup_logging(args)
    app = ObservingMiddleware(create_app(args.server, ops.tls_client_credentials(args)))
    limits = HttpLimits.from_env(args.header_seconds, args.keep_alive_seconds, args.max_connections)
    # log_config=None: uvicorn's own records go through the handler set up above
    config = server_config(app, args.host, args.port, limits, log_level="warning", log_config=None)
    # bound before the line is printed, so the line is true when read: with --port 0 it
    # names the port the system chose (a test or a supervisor reads it from there)
    try:
        listener = config.bind_socket()  # on failure uvicorn logs the OS's reason and exits 3
    except SystemExit:
        print(f"parlour: the gateway cannot listen on {args.host}:{args.port}", file=sys.stderr)
        raise
    port = listener.getsockname()[1]
    print(f"parlour: browser client on http://{args.host}:{port}/ -> {args.server}", flush=True)
    asyncio.run(_serve(uvicorn.Server(config), listener, args.metrics_address))
    return 0


async def _serve(
    server: uvicorn.Server, listener: socket.socket, metrics_address: str | None
) -> None:
    """The HTTP server on ``listener``, and the metrics endpoint on the same event loop."""
    metrics = await start_metrics(metrics_address)
    try:
        await server.serve(sockets=[listener])
    finally:
        if metrics is not None:
            await metrics.close()
