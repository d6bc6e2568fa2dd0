"""``parlour fork TABLE_ID --at SEQ``: play on from any point of a recorded game.

Creates a new table whose game is table TABLE_ID's game right after event SEQ
(see ``parlour.replay.fork``), prints its id, the host token and a token for every
person seat. Bots in the fork are played by the AI workers as usual.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from parlour.cli.options import database_url_argument
from parlour.replay.fork import Forked, ForkError, SeatKind, fork_game
from parlour.service.store.open import open_store


def _seat_kinds(text: str) -> list[SeatKind]:
    try:
        return [SeatKind.parse(word) for word in text.split(",")]
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table_id", metavar="TABLE_ID", help="the table to fork")
    parser.add_argument(
        "--at", type=int, required=True, metavar="SEQ", help="fork right after this event"
    )
    parser.add_argument(
        "--seat-kind",
        type=_seat_kinds,
        metavar="KINDS",
        help="who sits where, one per seat: e.g. person,bot,bot:hard,bot "
        "(default: as at the original table)",
    )
    database_url_argument(parser)


async def _fork(args: argparse.Namespace) -> Forked:
    store = open_store(args.database_url, connections=1)
    try:
        return await fork_game(store, args.table_id, args.at, args.seat_kind)
    finally:
        await store.close()


def run(args: argparse.Namespace) -> int:
    try:
        forked = asyncio.run(_fork(args))
    except ForkError as error:
        print(f"parlour fork: {error}", file=sys.stderr)
        return 1
    print(f"table {forked.table_id}: a fork of table {forked.source} after event {forked.at}")
    if forked.dealt_afresh:
        print("the next hand was dealt afresh")
    print(f"host token: {forked.host_token}")
    for seat, kind in enumerate(forked.seat_kinds):
        if seat in forked.seat_tokens:
            token = forked.seat_tokens[seat]
            print(
                f"seat {seat}: person, seat token {token} "
                f"(play it: parlour play --table {forked.table_id} --token {token})"
            )
        else:
            print(f"seat {seat}: bot" + (f" ({kind.bot_level})" if kind.bot_level else ""))
    return 0
