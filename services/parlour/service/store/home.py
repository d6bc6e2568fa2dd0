"""The home store (issue 31): a player's tables, the results of ended games, ratings.

Each event store carries one (``EventStore.home``) on the same database:
``home_memory.py``, ``home_sqlite.py``, ``home_postgres.py``; one contract
test runs against all three (``tests/home/test_home_store.py``).

* History reads ``plays`` (an account's seats with their tables' created_at,
  kept by triggers on ``seats``: migration 0004) through ``ix_plays_account``
  backwards, then the page's ``tables``, ``seats`` and ``results`` by key.
* ``results`` (one row per ended table: how it ended, scores, winners) and
  ``ratings`` (one row per game and subject: mu, sigma, ordinal, games) are the
  rating projection (``app/ratings.py`` derives both from the event log). A
  result and the ratings it moves are written in one transaction, with the
  rows of its subjects locked (Postgres ``FOR UPDATE``, SQLite's one writer),
  so two games ending at once on two replicas never lose an update, and a
  table is never rated twice (``results``' primary key).
* The leaderboard reads ``ix_ratings_board`` (game, bot, ordinal, subject)
  for people and ``ix_ratings_game_ordinal`` (game, ordinal, subject) with the
  bot levels, each scanned backwards: best ordinal first, ties by subject
  descending.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from parlour.service.domain.statuses import TableStatus
from parlour.service.store.values import SeatRow

#: how a table ended, as ``results.ending`` stores it
FINISHED = "finished"
ABANDONED = "abandoned"

#: OpenSkill's default prior (Plackett-Luce): mu 25, sigma 25/3
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0


@dataclass(frozen=True)
class ResultRow:
    """How an ended table ended: ``ending`` is FINISHED or ABANDONED."""

    table_id: str
    game: str
    ending: str
    ended_at: datetime
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    #: whether the game moved ratings (see docs/ratings.md)
    rated: bool = True


@dataclass(frozen=True)
class RatingRow:
    """One subject's rating in one game: "account:<id>" or "bot:<game>:<level>"."""

    game: str
    subject: str
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    games: int = 0
    #: the account's name (read only; None for a guest or a bot level)
    name: str | None = None

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma, as OpenSkill's ``ordinal()``."""
        return self.mu - 3.0 * self.sigma

    @property
    def bot(self) -> bool:
        return self.subject.startswith("bot:")

    @property
    def account_id(self) -> str | None:
        return self.subject.removeprefix("account:") if not self.bot else None


@dataclass(frozen=True)
class HistoryRow:
    """One table an account sat at, with its seats and its result once it ended."""

    table_id: str
    game: str
    name: str
    status: TableStatus
    created_at: datetime
    updated_at: datetime
    seats: tuple[SeatRow, ...]
    result: ResultRow | None = None


#: (the subjects' ratings as they are now, missing ones at the prior) -> the new rows
Rerate = Callable[[Mapping[str, RatingRow]], Sequence[RatingRow]]


def subject_of_account(account_id: str) -> str:
    return f"account:{account_id}"


def subject_of_bot(game: str, level: str) -> str:
    return f"bot:{game}:{level}"


class HomeStore(ABC):
    """History, results and ratings (see the module doc)."""

    @abstractmethod
    async def my_tables(
        self, account_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[HistoryRow]:
        """The tables the account holds a seat at, newest first (ties: table id
        descending), strictly after the cursor ``after`` (created_at, table_id)."""

    @abstractmethod
    async def ended_tables(self) -> list[str]:
        """The ids of every finished or abandoned table (for a rebuild)."""

    @abstractmethod
    async def record(self, result: ResultRow, subjects: Sequence[str], rerate: Rerate) -> bool:
        """Write ``result`` and the rows ``rerate`` makes of the ``subjects``' current
        ratings, in one transaction; False (nothing written) if the table has a result."""

    @abstractmethod
    async def replace_all(self, results: Sequence[ResultRow], ratings: Sequence[RatingRow]) -> None:
        """Replace every result and rating (a rebuild), in one transaction."""

    @abstractmethod
    async def ratings(self, game: str, subjects: Sequence[str]) -> dict[str, RatingRow]:
        """The subjects' ratings in ``game`` that exist (with names)."""

    @abstractmethod
    async def all_ratings(self) -> list[RatingRow]:
        """Every rating, by (game, subject)."""

    @abstractmethod
    async def rematch_of(self, table_id: str) -> str | None:
        """The ended table's rematch table, if one was made."""

    @abstractmethod
    async def rematch_made_as(self, rematch_table_id: str) -> tuple[str, datetime] | None:
        """(the ended table, when its rematch was made) if this table is a rematch."""

    @abstractmethod
    async def decline_rematch(self, table_id: str, seat: int, now: datetime) -> None:
        """Record that the person of the ended table's ``seat`` will not play again."""

    @abstractmethod
    async def rematch_declines(self, table_id: str) -> set[int]:
        """The ended table's seats whose people declined its rematch."""

    @abstractmethod
    async def add_rematch(self, table_id: str, rematch_table_id: str, now: datetime) -> str:
        """Record the rematch; if another was recorded first, that one's id."""

    @abstractmethod
    async def leaderboard(
        self, game: str, *, include_bots: bool, offset: int, limit: int
    ) -> list[RatingRow]:
        """``game``'s ratings, best ordinal first (ties: subject descending)."""


def board_sort_key(row: RatingRow) -> tuple[float, str]:
    """Sorted with ``reverse=True``: best ordinal first, ties by subject descending."""
    return (row.ordinal, row.subject)
