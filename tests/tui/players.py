"""The other people at a table, played by the test through the client library."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import grpc

from parlour.client import ParlourError, Seat
from parlour.v1 import common_pb2

Choose = Callable[[Sequence[common_pb2.LegalAction]], common_pb2.LegalAction]


def first_listed(legal: Sequence[common_pb2.LegalAction]) -> common_pb2.LegalAction:
    return legal[0]


async def play_seats(seats: Sequence[Seat], choose: Choose = first_listed) -> None:
    """Act for every seat in ``seats`` whenever it is to act, until the game is over.

    Follows the table as a spectator and asks a seat for its own view only when
    the table waits for it.
    """
    by_number = {seat.seat: seat for seat in seats}
    client, table_id = seats[0].client, seats[0].table_id
    async for update in client.watch(table_id):
        for number in update.view.to_act:
            seat = by_number.get(number)
            if seat is None:
                continue
            try:
                current = await seat.view()
                if seat.seat in current.view.to_act:
                    legal = current.view.legal_actions
                    await seat.act(choose(legal).id, expected_version=current.version)
            except ParlourError as error:
                if error.code != grpc.StatusCode.ABORTED:  # the table moved on: look again
                    raise


@asynccontextmanager
async def others_playing(
    seats: Sequence[Seat], choose: Choose = first_listed
) -> AsyncIterator[asyncio.Task[None]]:
    """Play ``seats`` in the background for the duration of the block."""
    task = asyncio.create_task(play_seats(seats, choose))
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
