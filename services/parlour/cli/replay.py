"""``parlour replay``: rebuild a game from its log and tell it hand by hand.

``parlour replay TABLE_ID`` reads the log from the database, ``parlour replay
--file LOG.jsonl`` from an exported file. Every stored digest is checked; the
first event that does not replay stops it with a message naming the event
(exit status 1). ``--seat N`` tells only what seat N could see, ``--step``
waits for Enter after each event (when standard input is a terminal), and
``--json-summary`` prints one JSON line per log instead of the story (the
recomputed digest of every event, hand scores, final scores), for tests and
for comparing machines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence

from parlour.cli.options import database_url_argument
from parlour.replay.check import ReplayError, load_log, read_log, replay, summarize
from parlour.replay.narrate import Narrator
from parlour.service.domain.deals import DealChecker
from parlour.service.store.protocol import StoredEvent


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table_id", metavar="TABLE_ID", nargs="?", help="the table to replay")
    parser.add_argument(
        "--file",
        metavar="LOG.jsonl",
        action="append",
        default=[],
        help="replay an exported log instead (may be given more than once)",
    )
    database_url_argument(parser)
    parser.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="show only what seat N could see at the time; seats count from 1, as at "
        "the table (--seat 1 is the first seat)",
    )
    parser.add_argument(
        "--step", action="store_true", help="wait for Enter after each event (on a terminal)"
    )
    parser.add_argument(
        "--json-summary",
        action="store_true",
        help="print one JSON line per log (digests, scores) instead of the story",
    )


def run(args: argparse.Namespace) -> int:
    try:
        return _replay(args)
    except BrokenPipeError:
        # the reader went away (``parlour replay ... | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _replay(args: argparse.Namespace) -> int:
    if bool(args.table_id) == bool(args.file):
        print("parlour replay: give a TABLE_ID or --file LOG.jsonl (not both)", file=sys.stderr)
        return 2
    if args.json_summary and args.seat is not None:
        print("parlour replay: --json-summary is for the whole table", file=sys.stderr)
        return 2
    if args.seat is not None and args.seat < 1:
        print(
            f"parlour replay: --seat counts from 1, as at the table (1 is the first seat), "
            f"not {args.seat}",
            file=sys.stderr,
        )
        return 2
    seat = None if args.seat is None else args.seat - 1  # the log counts seats from 0
    failed = False
    for source, events in _logs(args):
        try:
            if args.json_summary:
                print(json.dumps({"source": source, **summarize(events)}), flush=True)
            else:
                _tell(events, seat, args.step)
        except ReplayError as error:
            failed = True
            if args.json_summary:
                record = {"source": source, "error": str(error), "seq": error.seq}
                print(json.dumps({**record, "type": error.type}), flush=True)
            print(f"parlour replay: {source}: {error}", file=sys.stderr)
        except _Stop:
            break
    return 1 if failed else 0


def _logs(args: argparse.Namespace) -> list[tuple[str, list[StoredEvent]]]:
    if args.file:
        try:
            return [(path, load_log(path)) for path in args.file]
        except (OSError, ValueError) as error:
            raise SystemExit(f"parlour replay: {error}") from None
    try:
        return [(args.table_id, asyncio.run(read_log(args.database_url, args.table_id)))]
    except LookupError as missing:  # no such table, or no database at all
        raise SystemExit(f"parlour replay: {missing.args[0]}") from None


class _Stop(Exception):
    """The person stepping through asked to stop."""


def _tell(events: Sequence[StoredEvent], seat: int | None, step: bool) -> None:
    narrator = Narrator(seat)
    interactive = step and sys.stdin.isatty()
    deals = DealChecker()
    for replayed in replay(events, deals=deals):
        seats = int(replayed.setup.get("seats", 0))
        if seat is not None and seats and not 0 <= seat < seats:
            raise SystemExit(f"parlour replay: the table has seats 1 to {seats}, not {seat + 1}")
        for line in narrator.lines(replayed):
            print(line)
        sys.stdout.flush()
        if interactive and input("").strip().lower() in ("q", "quit"):
            raise _Stop
    print(_deals_line(deals))


def _deals_line(deals: DealChecker) -> str:
    """What was verified of the deals (printed once the whole log replayed)."""
    parts = []
    if deals.verified:
        checked = "its commitment"
        if deals.entropy:
            checked += " and its derivation from the server seed and players' contributions"
        parts.append(f"{deals.verified} deal(s) verified: {checked}, and every card in play")
    if deals.uncommitted:
        parts.append(f"{deals.uncommitted} deal(s) written before deals were committed")
    return "Deals: " + ("; ".join(parts) if parts else "none")
