"""``parlour export GAME_ID``: write a table's event log as JSON lines.

One event per line, in order, exactly as stored (see ``parlour.replay`` for
the format); ``parlour replay --file`` rebuilds the game from it on any
machine.
"""

from __future__ import annotations

import argparse
import sys

from parlour.migrate import database_url_argument
from parlour.replay import export_game
from parlour.service.store import EventStore


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game_id", metavar="GAME_ID", help="the table whose log to export")
    database_url_argument(parser)
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE instead of standard output"
    )


def run(args: argparse.Namespace) -> int:
    store = EventStore(args.database_url)
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8") as out:
                count = export_game(store, args.game_id, out)
        else:
            count = export_game(store, args.game_id, sys.stdout)
    except LookupError as missing:
        print(f"parlour export: {missing.args[0]}", file=sys.stderr)
        return 1
    finally:
        store.close()
    where = args.output or "standard output"
    print(f"parlour: exported {count} events of table {args.game_id} to {where}", file=sys.stderr)
    return 0
