"""The home store in a memory store's dictionaries (``store/home.py``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from parlour.service.domain.statuses import TableStatus
from parlour.service.store.accounts_memory import AccountMemory
from parlour.service.store.home import (
    HistoryRow,
    HomeStore,
    RatingRow,
    Rerate,
    ResultRow,
    board_sort_key,
)
from parlour.service.store.values import SeatRow, TableRow

ENDED = (TableStatus.FINISHED, TableStatus.ABANDONED)


@dataclass
class HomeMemory:
    """The results and ratings a memory store holds (shared by its replicas)."""

    results: dict[str, ResultRow] = field(default_factory=dict)
    ratings: dict[tuple[str, str], RatingRow] = field(default_factory=dict)
    rematches: dict[str, str] = field(default_factory=dict)
    rematch_times: dict[str, datetime] = field(default_factory=dict)
    declines: dict[str, set[int]] = field(default_factory=dict)


class MemoryHome(HomeStore):
    """:class:`HomeStore` over a memory store's dictionaries, under its lock."""

    def __init__(
        self,
        lock: threading.Lock,
        home: HomeMemory,
        tables: dict[str, TableRow],
        seats: dict[str, dict[int, SeatRow]],
        accounts: AccountMemory,
    ) -> None:
        self._lock = lock
        self._home = home
        self._tables = tables
        self._seats = seats
        self._accounts = accounts

    async def my_tables(
        self, account_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[HistoryRow]:
        with self._lock:
            found = []
            for table_id, table in self._tables.items():
                seats = self._seats.get(table_id, {})
                if not any(row.account_id == account_id for row in seats.values()):
                    continue
                if after is not None and not (
                    table.created_at < after[0]
                    or (table.created_at == after[0] and table_id < after[1])
                ):
                    continue
                found.append(
                    HistoryRow(
                        table_id,
                        table.game,
                        table.name,
                        table.status,
                        table.created_at,
                        table.updated_at,
                        tuple(seats[seat] for seat in sorted(seats)),
                        self._home.results.get(table_id),
                    )
                )
        found.sort(key=lambda row: (row.created_at, row.table_id), reverse=True)
        return found[:limit]

    async def ended_tables(self) -> list[str]:
        with self._lock:
            return [table_id for table_id, table in self._tables.items() if table.status in ENDED]

    async def record(self, result: ResultRow, subjects: Sequence[str], rerate: Rerate) -> bool:
        with self._lock:
            if result.table_id in self._home.results:
                return False
            now = {
                subject: self._home.ratings.get(
                    (result.game, subject), RatingRow(result.game, subject)
                )
                for subject in subjects
            }
            rows = rerate(now)
            self._home.results[result.table_id] = result
            for row in rows:
                self._home.ratings[(row.game, row.subject)] = replace(row, name=None)
            return True

    async def replace_all(self, results: Sequence[ResultRow], ratings: Sequence[RatingRow]) -> None:
        with self._lock:
            self._home.results = {row.table_id: row for row in results}
            self._home.ratings = {
                (row.game, row.subject): replace(row, name=None) for row in ratings
            }

    def _named(self, row: RatingRow) -> RatingRow:
        account_id = row.account_id
        account = self._accounts.accounts.get(account_id) if account_id else None
        return replace(row, name=account.name if account else None)

    async def ratings(self, game: str, subjects: Sequence[str]) -> dict[str, RatingRow]:
        with self._lock:
            return {
                subject: self._named(self._home.ratings[(game, subject)])
                for subject in subjects
                if (game, subject) in self._home.ratings
            }

    async def all_ratings(self) -> list[RatingRow]:
        with self._lock:
            return [self._home.ratings[key] for key in sorted(self._home.ratings)]

    async def rematch_of(self, table_id: str) -> str | None:
        with self._lock:
            return self._home.rematches.get(table_id)

    async def add_rematch(self, table_id: str, rematch_table_id: str, now: datetime) -> str:
        with self._lock:
            self._home.rematch_times.setdefault(table_id, now)
            return self._home.rematches.setdefault(table_id, rematch_table_id)

    async def rematch_made_as(self, rematch_table_id: str) -> tuple[str, datetime] | None:
        with self._lock:
            for ended, made in self._home.rematches.items():
                if made == rematch_table_id:
                    return ended, self._home.rematch_times[ended]
            return None

    async def decline_rematch(self, table_id: str, seat: int, now: datetime) -> None:
        with self._lock:
            self._home.declines.setdefault(table_id, set()).add(seat)

    async def rematch_declines(self, table_id: str) -> set[int]:
        with self._lock:
            return set(self._home.declines.get(table_id, set()))

    async def leaderboard(
        self, game: str, *, include_bots: bool, offset: int, limit: int
    ) -> list[RatingRow]:
        with self._lock:
            rows = [
                self._named(row)
                for (row_game, _), row in self._home.ratings.items()
                if row_game == game and (include_bots or not row.bot)
            ]
        rows.sort(key=board_sort_key, reverse=True)
        return rows[offset : offset + limit]
