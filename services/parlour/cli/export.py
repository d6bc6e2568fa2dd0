"""``parlour export TABLE_ID``: write a table's event log as JSON lines.

One event per line, in order, exactly as stored (see ``parlour.replay.check`` for
the format); ``parlour replay --file`` rebuilds the game from it on any
machine.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from parlour.cli.options import database_url_argument
from parlour.replay.check import read_log, write_log


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table_id", metavar="TABLE_ID", help="the table whose log to export")
    database_url_argument(parser)
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE instead of standard output"
    )


def run(args: argparse.Namespace) -> int:
    try:
        events = asyncio.run(read_log(args.database_url, args.table_id))
        if args.output:
            with open(args.output, "w", encoding="utf-8") as out:
                count = write_log(events, out)
        else:
            count = write_log(events, sys.stdout)
    except LookupError as missing:
        print(f"parlour export: {missing.args[0]}", file=sys.stderr)
        return 1
    where = args.output or "standard output"
    print(f"parlour: exported {count} events of table {args.table_id} to {where}", file=sys.stderr)
    return 0
