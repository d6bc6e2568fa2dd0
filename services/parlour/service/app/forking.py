"""Play on from here: ForkTable's application layer.

The fork itself (a new table whose log starts with the source's game events
up to the chosen one) is ``parlour.replay.fork``, the same code as
``parlour fork``; the service may not import that package, so ``parlour
serve`` passes it in (``ports.Forker``, ``Parlour(forker=...)``). Here are the
rules of who may fork what, checked before anything is written:

* whoever may read the replay may fork it (``replay_log.check_may_read``:
  the table's spectator setting);
* only a finished game: while it is on, a fork would copy every hidden hand
  into a table where the forker could sit anywhere;
* a position with something left to play: after the first deal, before the end;
* the caller takes one seat (by default the one its account held, else the
  first person seat); every other seat is a bot, since a table in play takes
  no one new: the source's bots keep their levels, its people are played by
  the table's away level (the default level if it has none).
"""

from __future__ import annotations

from dataclasses import dataclass

from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.app.replay_log import check_may_read
from parlour.service.domain.errors import BadRequest, TableNotFound, WrongTableState
from parlour.service.domain.fold import fold
from parlour.service.domain.statuses import EventType, SeatKind
from parlour.service.store.protocol import TableRow


class ForkNotFinished(WrongTableState):
    """The source's game is still on."""

    REASON = "FORK_NOT_FINISHED"


class ForkNothingToPlay(WrongTableState):
    """The position is before the first deal or after the end."""

    REASON = "FORK_NOTHING_TO_PLAY"


class ForkNoSuchEvent(TableNotFound):
    """The source has no event ``at``."""

    REASON = "FORK_NO_SUCH_EVENT"


class ForkUnavailable(WrongTableState):
    """This server was started without the fork (a test's bare service)."""

    REASON = "REFUSED"


@dataclass(frozen=True)
class Fork:
    """What ForkTable answers: the new table, the host token, the caller's seat and token."""

    table: TableRow
    host_token: str
    seat: int
    seat_token: str
    source: str
    at: int
    dealt_afresh: bool


def pick_seat(table: TableRow, seat: int | None, credentials: Credentials) -> int:
    """The seat the forker plays: ``seat``, else its account's, else the first person's."""
    if seat is not None:
        if not 0 <= seat < table.seats:
            raise BadRequest(
                f"table {table.table_id} has seats 0 to {table.seats - 1}, not seat {seat}",
            )
        return seat
    rows = table.seat_rows
    if credentials.account_id:
        for row in rows:
            if row.account_id == credentials.account_id:
                return row.seat
    return next((row.seat for row in rows if row.kind == SeatKind.PERSON), 0)


async def fork_table(
    app: Parlour, table_id: str, at: int, seat: int | None, credentials: Credentials
) -> Fork:
    """Fork table ``table_id``'s finished game after event ``at``; the caller plays ``seat``."""
    if not table_id:
        raise BadRequest("table_id is required")
    table = await app.get_table(table_id)
    check_may_read(table, None, credentials)
    events = await app.store.read(table_id)
    if not any(
        event.type in (EventType.GAME_FINISHED, EventType.GAME_ABANDONED) for event in events
    ):
        raise ForkNotFinished(
            f"the game at table {table_id} is still on: only a finished game may be forked"
        )
    last = events[-1].seq if events else 0
    if not 1 <= at <= last:
        raise ForkNoSuchEvent(
            f"table {table_id} has events 1 to {last}, not event {at}", at=at, last=last
        )
    folded = fold(events[:at])
    if folded.state is None or folded.state.is_over or folded.ended:
        raise ForkNothingToPlay(
            f"nothing is left to play at event {at} of table {table_id}: "
            "fork a position after the first deal and before the end",
            at=at,
        )
    mine = pick_seat(table, seat, credentials)
    level = folded.clock.away_bot_level or ""
    kinds = [
        (str(SeatKind.PERSON), "")
        if number == mine
        else (str(SeatKind.BOT), (row.bot_level or "") if row.kind == SeatKind.BOT else level)
        for number, row in enumerate(table.seat_rows)
    ]
    source_row = table.seat_rows[mine]
    held = bool(credentials.account_id) and source_row.account_id == credentials.account_id
    name = credentials.account_name or (source_row.player_name if held else None)
    accounts = {mine: credentials.account_id} if credentials.account_id else {}
    names = {mine: name} if name else {}
    if app.forker is None:
        raise ForkUnavailable("this server cannot fork tables (started without the fork)")
    forked = await app.forker(app.store, table_id, at, kinds, accounts, names)
    new_table = await app.get_table(forked.table_id)
    return Fork(
        new_table,
        forked.host_token,
        mine,
        forked.seat_tokens[mine],
        table_id,
        at,
        forked.dealt_afresh,
    )
