"""``parlour gateway``: serve the REST/JSON gateway and the browser client."""

from __future__ import annotations

import argparse

import uvicorn

from parlour.gateway.app import create_app


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", default="127.0.0.1:50051", help="game service address (default: %(default)s)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8080, help="HTTP port (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    print(
        f"parlour: browser client on http://{args.host}:{args.port}/ -> {args.server}", flush=True
    )
    uvicorn.run(create_app(args.server), host=args.host, port=args.port, log_level="warning")
    return 0
