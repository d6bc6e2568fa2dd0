"""Opening a table given on the command line: ``parlour play --table ID --token TOKEN``.

The token is the only proof of a seat, and a fork or another device may
hand one over without its seat number, so the seat is found by asking the
server which seat the token opens. The seat is then kept in the seat book
like any other, so the lobby offers it again.
"""

from __future__ import annotations

import grpc

from parlour.client import ParlourError
from parlour.client.sync import SyncParlourClient

from .saved import SavedSeat, SeatBook


class OpenFailed(Exception):
    """The table or the token given on the command line does not open a seat."""


def open_seat(
    server: str,
    table_id: str,
    token: str,
    seat: int | None = None,
    credentials: grpc.ChannelCredentials | None = None,
) -> SavedSeat:
    """The seat ``token`` opens at ``table_id``."""
    book = SeatBook()
    client = SyncParlourClient(server, credentials=credentials)
    try:
        try:
            table = client.get_table(table_id)
        except ParlourError as error:
            raise OpenFailed(f"table {table_id}: {error.message}") from error
        candidates = [seat] if seat is not None else list(range(table.seat_count))
        for candidate in candidates:
            try:
                client.get_view(table_id, candidate, token)
            except ParlourError:
                continue
            saved = SavedSeat(server, table_id, candidate, token, table.game, table.name)
            book.remember(saved)
            return saved
        raise OpenFailed(f"the token opens no seat at table {table_id}")
    finally:
        client.close()
