"""A seat's view of a table (:class:`SeatView`), and the checks every reader makes.

A :class:`SeatView` is what the use cases answer and the gRPC edge turns
into a ``View`` message: the engine's view for a seat (or a spectator) at a
version, with the turn clock's and the ending's facts beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from parlour.engine.base import GameState
from parlour.engine.view import View
from parlour.service.domain.errors import AheadOfTable, TableNotFound, WrongTableState, shorten
from parlour.service.domain.fold import ChatEntry, Folded
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import StoredEvent, TableRow


@dataclass(frozen=True)
class SeatView:
    """A seat's (or spectator's) view of a table at ``version``.

    ``view`` is None while the table is open (the lobby has no engine state).
    ``events`` are those since the caller's last version (Watch only).
    """

    version: int
    table: TableRow
    view: View | None
    events: tuple[StoredEvent, ...] = ()
    duplicate: bool = False
    #: person seats being played by a bot (their clock ran out)
    away: frozenset[int] = frozenset()
    #: seat -> when its turn clock runs out (seats to act, with a clock, not away)
    deadlines: Mapping[int, datetime] = field(default_factory=dict)
    #: "abandoned" or "expired" when the table ended without finishing its game
    ended: str = ""
    #: the bot level that plays for an away seat
    away_bot_level: str = ""
    #: the table's latest chat lines, and whether its seats may chat now (issue 32)
    chat: tuple[ChatEntry, ...] = ()
    chat_on: bool = False
    #: the version of the table's last move or game event (chat after it moves
    #: ``version`` on, not the turn)
    moved_at: int = 0
    #: the spectator's view at the same version, when it was built beside ``view``
    #: (:func:`shared_view`): every seat's answer shares its public part, which holds
    #: no hidden card, and lays only the seat's own fields beside it
    public: View | None = None

    def with_events(self, events: tuple[StoredEvent, ...]) -> SeatView:
        """This view with ``events`` (``dataclasses.replace`` walks every field: this is
        on every watcher's path)."""
        copied = object.__new__(SeatView)
        copied.__dict__.update(self.__dict__)
        copied.__dict__["events"] = events
        return copied


def lobby_view(table: TableRow) -> SeatView:
    """The view of a table that has no game (open, or expired while open)."""
    if table.status == TableStatus.EXPIRED:
        return SeatView(table.version, table, None, ended="expired")
    return SeatView(table.version, table, None)


def seat_view(folded: Folded, table: TableRow, view: View, public: View | None = None) -> SeatView:
    """The view at the fold's version, with the clock's and the ending's facts (and the
    spectator's view at that version, ``public``, if it was built)."""
    clock = folded.clock
    deadlines: dict[int, datetime] = {}
    if clock.on:
        for seat in clock.since:
            if seat < len(table.seat_rows) and table.seat_rows[seat].kind == SeatKind.BOT:
                continue  # a bot has no clock
            deadline = clock.deadline(seat)
            if deadline is not None and not folded.ended and not view.is_over:
                deadlines[seat] = deadline
    return SeatView(
        folded.version,
        table,
        view,
        away=frozenset(clock.away),
        deadlines=deadlines,
        ended=folded.ended,
        away_bot_level=clock.away_bot_level if clock.away else "",
        chat=tuple(folded.chat),
        chat_on=folded.chat_on and not folded.ended and not view.is_over,
        moved_at=folded.moved_at,
        public=public,
    )


def shared_view(
    folded: Folded, table: TableRow, seat: int | None, *, watched: bool = True
) -> SeatView:
    """:func:`seat_view` of ``seat`` (None: a spectator) at the fold's version, built
    once per seat and version and shared by every reader of it (Watch streams,
    GetView, the Act answer): a fan-out builds a view per seat, not per watcher.
    Keyed by the seat itself, so a seat's view never reaches another seat.

    On a ``watched`` table (its streams will each want their seat's view) it also
    carries the spectator's view at the same version (``public``), built once for
    all: each seat's engine view is made from it with only the seat's own fields
    built anew (``GameState.seat_view``), and the part every seat's answer shares
    is serialized from it once. A table nobody watches here has one reader a
    version, and its view is built whole."""
    derived = folded.derived_now()
    key = ("view", seat)
    found: SeatView | None = derived.get(key)
    if found is None:
        state = started(folded, table.table_id)
        if seat is None:
            spectator = state.view(None)
            found = seat_view(folded, table, spectator, spectator)
        elif watched:  # the seat's own fields on the spectator's view (GameState.seat_view)
            public = shared_view(folded, table, None).view
            assert public is not None
            found = seat_view(folded, table, state.seat_view(seat, public), public)
        else:
            found = seat_view(folded, table, state.view(seat))
        derived[key] = found
    return found


def started(folded: Folded, table_id: str) -> GameState:
    """The game's state, refused while there is no table or no game yet."""
    if folded.version == 0:
        raise TableNotFound(f"no table {shorten(table_id)}")
    if folded.state is None:
        raise WrongTableState(f"the game at table {table_id} has not started")
    return folded.state


def check_reached(
    table_id: str, latest: int, asked: int | None, field: str = "min_version"
) -> None:
    """Refuse a version (``field`` of the request) that the table has not reached."""
    if asked is not None and asked > latest:
        raise AheadOfTable(
            f"{field} {asked} is ahead of table {table_id}, which is at version {latest}; "
            "name a version you received (or 0)"
        )
