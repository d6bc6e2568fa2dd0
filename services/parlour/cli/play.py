"""``parlour play``: play in the terminal, against a game service.

Runs the Textual client (``parlour.tui``): the lobby, the tables and the bots.
With ``--table`` and ``--token`` it opens that seat at once (a fork's seat, or
one taken on another device). It trusts a CA with ``--tls-ca`` but offers no
client certificate, so it has its own flag rather than the shared TLS options.
"""

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
    parser.add_argument(
        "--table",
        metavar="ID",
        help="open your seat at this table at once (needs --token)",
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        help="a seat token for --table (from `parlour fork`, or a seat taken on another device)",
    )
    parser.add_argument(
        "--lang",
        choices=("en", "pl"),
        default=None,
        help="the client's language: en (English) or pl (polski) (default: from the "
        "system's locale, LC_ALL / LC_MESSAGES / LANG; F2 switches it while playing)",
    )
    parser.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="the seat the token is for, counting from 1 as at the table (default: found "
        "by asking the server)",
    )


def run(args: argparse.Namespace) -> int:
    from parlour.tui.app import ParlourApp  # Textual loads only when the client runs
    from parlour.tui.opening import OpenFailed, open_seat

    credentials = None
    if args.tls_ca is not None:
        from parlour.client import tls_credentials

        credentials = tls_credentials(None if args.tls_ca == "system" else args.tls_ca)
    seat = None
    if bool(args.token) != bool(args.table):
        print("parlour play: --table and --token go together", flush=True)
        return 2
    if args.seat is not None and args.seat < 1:
        print(f"parlour play: --seat counts from 1, as at the table, not {args.seat}", flush=True)
        return 2
    if args.table:
        number = None if args.seat is None else args.seat - 1  # the contract counts from 0
        try:
            seat = open_seat(args.server, args.table, args.token, number, credentials)
        except OpenFailed as failed:
            print(f"parlour play: {failed}", flush=True)
            return 2
    ParlourApp(args.server, credentials=credentials, open_seat=seat, language=args.lang).run()
    return 0
