"""``parlour gateway``: serve the REST/JSON gateway and the browser client.

One HTTP process (uvicorn) in front of a game service: it serves the browser
client's files and turns its REST/JSON calls into the service's gRPC calls
(``parlour.gateway``); it prints the URL to open. TLS to the service, metrics
and logging are the shared options (``parlour.cli.options``).
"""

from __future__ import annotations

import argparse
import os

import uvicorn

from parlour.cli import options as ops
from parlour.gateway.app import create_app
from parlour.gateway.observe import ObservingMiddleware


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get("PARLOUR_SERVER") or "127.0.0.1:50051",
        help="game service address (default: $PARLOUR_SERVER or %(default)s)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8080, help="HTTP port (default: %(default)s)")
    ops.tls_client_arguments(parser)
    ops.metrics_arguments(parser)
    ops.log_arguments(parser, debug_help="DEBUG logs more")


def run(args: argparse.Namespace) -> int:
    ops.setup_logging(args)
    app = ObservingMiddleware(create_app(args.server, ops.tls_client_credentials(args)))
    ops.start_metrics(args.metrics_address)
    print(
        f"parlour: browser client on http://{args.host}:{args.port}/ -> {args.server}", flush=True
    )
    # log_config=None: uvicorn's own records go through the handler set up above
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", log_config=None)
    return 0
