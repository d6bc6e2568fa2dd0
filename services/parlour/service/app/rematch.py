"""Rematch (issue 31): "play again" after a game ended, at the same seats with the same
options, each person accepting or not, the bots coming along.

The first person of the ended table to ask hosts the new table (through the
lobby, as any host: same game, seat count, options and name; the bots at
their seats with their levels; the asker in their own seat) and it is
recorded as the ended table's rematch (``rematches``: the first recorded
wins a race between replicas). Each other person accepts with the same call
and takes their own seat there; one who never asks leaves it free. Once
every person's seat is taken, the new table starts by itself (the hosting
account's session is the host's credential). Each person's seat is held for
them (app/holds.py) until they accept, decline (:meth:`Rematches.decline`)
or the hold times out; then it is an ordinary free seat (docs/home.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from parlour.service.app.holds import Hold, seat_holds
from parlour.service.app.lobby import Lobby
from parlour.service.app.seating import Credentials, SeatChoice
from parlour.service.domain.errors import Barred, NotSignedIn, WrongTableState
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import HomeStore, TableRow, utcnow

ENDED = (TableStatus.FINISHED, TableStatus.ABANDONED)


@dataclass(frozen=True)
class RematchState:
    """An ended table, its rematch table (None: nobody asked) and the caller's seat."""

    ended: TableRow
    rematch: TableRow | None
    my_seat: int | None
    #: the rematch's free seats held for their old players now, and the declined seats
    holds: dict[int, Hold] = field(default_factory=dict)
    declined: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Again:
    """What PlayAgain answers: the rematch, the caller's seat and tokens."""

    state: RematchState
    seat: int
    seat_token: str = ""
    host_token: str = ""


class Rematches:
    """PlayAgain and GetRematch over the lobby and the home store."""

    def __init__(self, lobby: Lobby, home: HomeStore) -> None:
        self.lobby = lobby
        self.home = home
        self._lock = asyncio.Lock()

    async def state(self, table_id: str, account_id: str | None = None) -> RematchState:
        ended = await self.lobby.get_table(table_id)
        made = await self.home.rematch_of(table_id)
        rematch = await self.lobby.get_table(made) if made else None
        mine = [row.seat for row in ended.seat_rows if account_id and row.account_id == account_id]
        if rematch is None:
            return RematchState(ended, None, mine[0] if mine else None)
        holds = await seat_holds(
            self.home, rematch.table_id, self.lobby.get_table, utcnow(), self.lobby.rematch_hold
        )
        declined = frozenset(await self.home.rematch_declines(table_id))
        return RematchState(ended, rematch, mine[0] if mine else None, holds, declined)

    async def decline(self, table_id: str, credentials: Credentials) -> RematchState:
        """The caller will not play the rematch: their seat is no longer held for them
        (anyone may take it). Refused before a rematch was offered, or once the caller
        took their seat there."""
        account = credentials.account_id
        if account is None:
            raise NotSignedIn("declining a rematch needs a session: sign in (or as a guest) first")
        async with self._lock:
            now = await self.state(table_id, account)
            if now.my_seat is None:
                raise Barred("only the people who played at the table can decline its rematch")
            rematch = now.rematch
            if rematch is None:
                raise WrongTableState("no rematch was offered for this table to decline")
            if rematch.seat_rows[now.my_seat].account_id == account:
                raise WrongTableState(
                    "you took your seat at the rematch already: leave it there instead"
                )
            if rematch.status != TableStatus.OPEN:
                raise WrongTableState("the rematch has started already", status=str(rematch.status))
            await self.home.decline_rematch(table_id, now.my_seat, utcnow())
            return await self.state(table_id, account)

    async def play_again(self, table_id: str, credentials: Credentials) -> Again:
        account = credentials.account_id
        if account is None:
            raise NotSignedIn("play again needs a session: sign in (or as a guest) first")
        async with self._lock:
            now = await self.state(table_id, account)
            ended = now.ended
            if ended.status not in ENDED:
                raise WrongTableState(
                    "a rematch is offered once the game has ended", status=str(ended.status)
                )
            if now.my_seat is None:
                raise Barred("only the people who played at the table can play it again")
            seat = now.my_seat
            mine = ended.seat_rows[seat]
            again = await self._take(now, seat, mine.player_name or "", credentials)
        started = await self._start_when_full(again.state.rematch)
        if started is not None:
            again = replace(again, state=replace(again.state, rematch=started))
        return again

    async def _take(
        self, now: RematchState, seat: int, name: str, credentials: Credentials
    ) -> Again:
        ended, rematch = now.ended, now.rematch
        if rematch is None:
            setup = [
                SeatChoice(SeatKind.BOT, row.bot_level or "")
                if row.kind == SeatKind.BOT
                else SeatChoice()
                for row in ended.seat_rows
            ]
            hosted = await self.lobby.host_table(
                ended.game,
                ended.seats,
                ended.options,
                setup,
                name=ended.name,
                host_player_name=name,
                host_takes_seat=True,
                host_seat=seat,
                credentials=credentials,
            )
            recorded = await self.home.add_rematch(ended.table_id, hosted.table.table_id, utcnow())
            if recorded == hosted.table.table_id:
                state = replace(now, rematch=hosted.table)
                return Again(state, seat, hosted.seat_token, hosted.host_token)
            rematch = await self.lobby.get_table(recorded)  # another replica's came first
        held = rematch.seat_rows[seat]
        if held.account_id == credentials.account_id:  # accepted already: the session plays it
            return Again(replace(now, rematch=rematch), seat)
        if rematch.status != TableStatus.OPEN:
            raise WrongTableState("the rematch has started already", status=str(rematch.status))
        joined = await self.lobby.join(rematch.table_id, name, seat, credentials=credentials)
        return Again(replace(now, rematch=joined.table), seat, joined.seat_token)

    async def _start_when_full(self, rematch: TableRow | None) -> TableRow | None:
        """Start the rematch once every seat is taken (as the account that hosted it)."""
        if rematch is None or rematch.status != TableStatus.OPEN:
            return None
        fresh = await self.lobby.get_table(rematch.table_id)
        if fresh.status != TableStatus.OPEN or not all(row.occupied for row in fresh.seat_rows):
            return None
        try:
            return await self.lobby.start(
                fresh.table_id, Credentials(account_id=fresh.host_account_id)
            )
        except WrongTableState:  # started by a racing acceptance meanwhile
            return await self.lobby.get_table(fresh.table_id)
