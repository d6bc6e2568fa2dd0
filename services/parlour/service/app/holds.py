"""A rematch's seats held for the ended table's people (issue 31, docs/home.md).

When a rematch is made (app/rematch.py), each person seat of the new table is
held for the account that sat there at the ended table, until that person
accepts (takes it with PlayAgain, or JoinTable as that account), declines
(DeclineRematch), or HOLD_SECONDS pass since the rematch was made. A held seat
is refused to anybody else with SEAT_HELD_FOR_REMATCH; a join that names no
seat skips it. A seat a person without an account held is not held (nothing
would say who they are: PlayAgain needs a session, which every browser has).

The holds are derived, never stored: the rematch's time (``rematches``), the
declines (``rematch_declines``) and the ended table's seats say them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from parlour.service.domain.errors import SeatHeldForRematch
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import HomeStore, TableRow

#: how long a rematch's seat waits for its old player at most
HOLD_SECONDS = 120


@dataclass(frozen=True)
class Hold:
    """A rematch seat held for the account of the ended table's same seat."""

    seat: int
    account_id: str
    until: datetime


async def seat_holds(
    home: HomeStore,
    table_id: str,
    get_table: Callable[[str], Awaitable[TableRow]],
    now: datetime,
    hold: timedelta = timedelta(seconds=HOLD_SECONDS),
) -> dict[int, Hold]:
    """The free seats of the table held now, by seat (none unless it is an open rematch
    made less than ``hold`` ago). One indexed query for a table that is no rematch."""
    made = await home.rematch_made_as(table_id)
    if made is None:
        return {}
    ended_id, made_at = made
    until = made_at + hold
    if now >= until:
        return {}
    table = await get_table(table_id)
    if table.status != TableStatus.OPEN:
        return {}
    ended = await get_table(ended_id)
    declined = await home.rematch_declines(ended_id)
    return {
        row.seat: Hold(row.seat, row.account_id, until)
        for row in ended.seat_rows
        if row.kind == SeatKind.PERSON
        and row.account_id
        and row.seat not in declined
        and row.seat < len(table.seat_rows)
        and not table.seat_rows[row.seat].occupied
    }


def seat_for_join(
    table: TableRow, holds: dict[int, Hold], wanted: int | None, account_id: str | None
) -> int | None:
    """The seat a join asks for once the holds are applied: ``wanted`` unless it is held
    for someone else (refused), or the lowest free seat open to the caller."""
    if not holds:
        return wanted
    others = {seat: hold for seat, hold in holds.items() if hold.account_id != account_id}
    if wanted is not None:
        if wanted in others:
            raise SeatHeldForRematch(
                f"seat {wanted} is held for its player from the last game until they accept "
                f"or decline the rematch (at most {HOLD_SECONDS} s after it was offered)"
            )
        return wanted
    free = [
        row.seat
        for row in table.seat_rows
        if row.kind == SeatKind.PERSON and not row.occupied and not row.code_hash
    ]
    open_to_me = [seat for seat in free if seat not in others]
    if open_to_me:
        return open_to_me[0]
    if free:
        raise SeatHeldForRematch(
            "every free seat of this rematch is held for its player from the last game "
            f"until they accept or decline (at most {HOLD_SECONDS} s after it was offered)"
        )
    return None
