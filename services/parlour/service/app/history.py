"""A player's history (issue 31): the tables an account sat at, newest first, in pages.

Open, playing and ended tables alike, each with its seats, and once it ended
its result (``results``, written by the rating projection) and how it ended.
Page tokens are the lobby's (``paging.Pager``: keyset on created_at, table
id, signed), scoped to the account, so a token is no use to anyone else.
"""

from __future__ import annotations

from dataclasses import dataclass

from parlour.service.app import paging
from parlour.service.domain.statuses import TableStatus
from parlour.service.store.protocol import HistoryRow, HomeStore


@dataclass(frozen=True)
class GameEntry:
    """One table of a player's history, as the caller's seat sees it."""

    row: HistoryRow
    my_seat: int

    @property
    def ending(self) -> str:
        """ "finished", "abandoned", "expired", or "" while open or playing."""
        if self.row.result is not None:
            return self.row.result.ending
        if self.row.status == TableStatus.EXPIRED:
            return "expired"
        if self.row.status in (TableStatus.FINISHED, TableStatus.ABANDONED):
            return str(self.row.status)  # ended, not yet projected
        return ""

    @property
    def won(self) -> bool:
        result = self.row.result
        return result is not None and self.my_seat in result.winners


class History:
    """ListMyGames over the home store."""

    def __init__(self, home: HomeStore, pager: paging.Pager) -> None:
        self.home = home
        self.pager = pager

    async def my_games(
        self, account_id: str, page_size: int = 0, page_token: str = ""
    ) -> tuple[list[GameEntry], str]:
        """A page of the account's tables, newest first, and the next page's token."""
        size = paging.page_size(page_size)
        scope = f"history:{account_id}"
        after = self.pager.decode(page_token, scope)
        rows = await self.home.my_tables(
            account_id, size + 1, (after.created_at, after.key) if after else None
        )
        entries = [
            GameEntry(row, next(seat.seat for seat in row.seats if seat.account_id == account_id))
            for row in rows[:size]
        ]
        if len(rows) <= size:
            return entries, ""
        last = rows[size - 1]
        return entries, self.pager.encode(paging.Cursor(last.created_at, last.table_id), scope)
