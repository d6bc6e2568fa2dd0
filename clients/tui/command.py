"""``parlour play``: the terminal client."""

from __future__ import annotations

import argparse
import os

DEFAULT_SERVER = "127.0.0.1:50051"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get("PARLOUR_SERVER") or DEFAULT_SERVER,
        metavar="ADDRESS",
        help="host:port of a game service (default: $PARLOUR_SERVER or %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    from .app import ParlourApp  # Textual loads only when the client runs

    ParlourApp(args.server).run()
    return 0
