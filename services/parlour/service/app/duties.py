"""The turn clock's and the expiry's use cases: what the sweeper fires, and the
person taking their seat back.

* :meth:`Duties.time_out`: a person's clock ran out; a bot plays the seat (SeatAway);
* :meth:`Duties.return_to_seat`: the person takes it back (SeatReturned);
* :meth:`Duties.expire`: an open table nobody started ends (TableExpired);
* :meth:`Duties.abandon`: a game nobody plays ends (GameAbandoned).

The sweeper's events are appended at the version it saw, so of several
replicas sweeping the same deadline one writes and the others lose the race
quietly (False, no error).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from parlour.service.app.seating import Credentials, by_worker, check_seat
from parlour.service.app.tables import Tables, Unit, turn_rows
from parlour.service.app.views import SeatView, seat_view, started
from parlour.service.domain.errors import WrongTableState, WrongToken
from parlour.service.domain.events import GameAbandoned, SeatAway, SeatReturned, TableExpired
from parlour.service.domain.statuses import TableStatus
from parlour.service.store.protocol import ConcurrencyConflict, utcnow


class Duties:
    """Turn clocks that ran out, seats taken back, tables that expire or are abandoned."""

    def __init__(self, tables: Tables, *, worker_token_hash: str | None) -> None:
        self.tables = tables
        self._worker_token_hash = worker_token_hash

    async def time_out(self, table_id: str, seat: int, version: int) -> bool:
        """A person's clock ran out at ``version``: a bot plays the seat from now (SeatAway).

        Checked against the log (the deadline is recomputed from it); appended at
        ``version``, so of several replicas sweeping the same deadline one writes.
        True if this call wrote the event.
        """
        table = await self.tables.row(table_id)

        async def go_away(unit: Unit) -> bool:
            folded = unit.folded
            deadline = folded.clock.deadline(seat)
            now = utcnow()
            if (
                folded.version != version
                or folded.ended
                or folded.state is None
                or folded.state.is_over
                or deadline is None
                or deadline > now
            ):
                return False
            unit.changing().clock.went_away(seat)
            level = folded.clock.away_bot_level
            await unit.commit(
                [SeatAway(seat, level).new()],
                applied=True,
                turns=turn_rows(folded, table),
                now=now,
            )
            return True

        return await self._quietly(table_id, go_away)

    async def return_to_seat(self, table_id: str, seat: int, credentials: Credentials) -> SeatView:
        """The person takes back a seat a bot played while they were away (SeatReturned)."""
        table = await self.tables.row(table_id)
        check_seat(table, seat, credentials, self._worker_token_hash)
        if by_worker(credentials):
            raise WrongToken("only the seat's own token takes a seat back")

        async def come_back(unit: Unit) -> SeatView:
            folded = unit.folded
            state = started(folded, table_id)
            if seat not in folded.clock.away:
                return seat_view(folded, table, state.view(seat))
            if folded.ended or state.is_over:
                raise WrongTableState(f"the game at table {table_id} is over")
            now = utcnow()
            unit.changing().clock.came_back(seat, now)
            await unit.commit(
                [SeatReturned(seat).new()],
                applied=True,
                turns=turn_rows(folded, table),
                person_active_at=now,
                now=now,
            )
            return seat_view(folded, table, state.view(seat))

        return await self.tables.run(table_id, come_back, lost="the table moved on; try again")

    async def expire(self, table_id: str, before: datetime) -> bool:
        """End an open table whose last person activity was before ``before`` (TableExpired)."""

        async def end(unit: Unit) -> bool:
            table = await unit.row()
            if table.status != TableStatus.OPEN:
                return False
            if table.person_active_at is None or table.person_active_at >= before:
                return False  # (a table without people never expires)
            await unit.commit(
                [TableExpired().new()],
                applied=False,
                table_status=TableStatus.EXPIRED,
                turns=[],
            )
            return True

        return await self._quietly(table_id, end, folded=False)

    async def abandon(self, table_id: str, before: datetime) -> bool:
        """End a playing table no person moved since ``before``: GameAbandoned, with the
        scores as they stand and no winner; the bots' turns go with it."""
        table = await self.tables.get_table(table_id)
        if table.status != TableStatus.PLAYING:
            return False
        if table.person_active_at is None or table.person_active_at >= before:
            return False

        async def end(unit: Unit) -> bool:
            folded = unit.folded
            state = started(folded, table_id)
            if folded.ended or state.is_over or folded.version != table.version:
                return False
            # Ahead of the commit, as a move is: the commit's ended hooks (ratings)
            # await, and a view read meanwhile must already show the end.
            unit.changing().ended = "abandoned"
            await unit.commit(
                [GameAbandoned(tuple(state.scores())).new()],
                applied=True,
                table_status=TableStatus.ABANDONED,
                turns=[],
                now=utcnow(),
            )
            return True

        return await self._quietly(table_id, end)

    async def _quietly(
        self, table_id: str, body: Callable[[Unit], Awaitable[bool]], *, folded: bool = True
    ) -> bool:
        """``body`` in a unit of work (``folded``: see ``Tables.unit``); a lost race
        (another replica's sweeper, a move) is no error: False."""
        try:
            async with self.tables.unit(table_id, folded=folded) as unit:
                return await body(unit)
        except ConcurrencyConflict:
            return False
