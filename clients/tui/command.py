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
    parser.add_argument(
        "--tls-ca",
        metavar="FILE",
        default=os.environ.get("PARLOUR_TLS_CA") or None,
        help="connect with TLS, trusting the CA certificate in FILE ('system': the "
        "system's roots) (default: $PARLOUR_TLS_CA; none: plaintext)",
    )


def run(args: argparse.Namespace) -> int:
    from .app import ParlourApp  # Textual loads only when the client runs

    credentials = None
    if args.tls_ca is not None:
        from parlour.client import tls_credentials

        credentials = tls_credentials(None if args.tls_ca == "system" else args.tls_ca)
    ParlourApp(args.server, credentials=credentials).run()
    return 0
