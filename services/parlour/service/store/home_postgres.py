"""The home store on Postgres (``store/home.py``): the statements, sent on
``postgres.PostgresEventStore``'s pooled autocommit connections (its connection
maker is handed in; a result and its ratings go in one explicit transaction)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

import psycopg

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.home import (
    HistoryRow,
    HomeStore,
    RatingRow,
    Rerate,
    ResultRow,
)
from parlour.service.store.values import SeatRow

Connect = Callable[[], AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]]

ENDED = ["finished", "abandoned"]
_TABLE = "t.table_id, t.game, t.name, t.status, t.created_at, t.updated_at"
# ix_plays_account, backwards: the account's seats newest table first; each table by its key
MY_TABLES = f"""
SELECT {_TABLE} FROM plays p JOIN tables t ON t.table_id = p.table_id
WHERE p.account_id = %(account)s
  AND (%(after)s::timestamptz IS NULL
       OR (p.created_at, p.table_id) < (%(after)s::timestamptz, %(key)s::text))
ORDER BY p.created_at DESC, p.table_id DESC
LIMIT %(limit)s
"""
PAGE_SEATS = """
SELECT table_id, seat, kind, bot_level, player_name, occupied, account_id
FROM seats WHERE table_id = ANY(%s) ORDER BY table_id, seat
"""
_RESULT = "table_id, game, ending, ended_at, scores, winners, rated"
PAGE_RESULTS = f"SELECT {_RESULT} FROM results WHERE table_id = ANY(%s)"
ENDED_TABLES = "SELECT table_id FROM tables WHERE status = ANY(%s)"
INSERT_RESULT = f"""
INSERT INTO results ({_RESULT}) VALUES (%s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (table_id) DO NOTHING RETURNING table_id
"""
# every subject's row exists before it is locked (a first game on two replicas at once)
SEED_RATINGS = """
INSERT INTO ratings (game, subject, account_id, bot, mu, sigma, ordinal, games)
SELECT %(game)s, subject, CASE WHEN subject LIKE 'account:%%'
       THEN substr(subject, 9) END, subject LIKE 'bot:%%',
       %(mu)s, %(sigma)s, %(mu)s - 3 * %(sigma)s, 0
FROM unnest(%(subjects)s::text[]) AS subject
ON CONFLICT (game, subject) DO NOTHING
"""
LOCK_RATINGS = """
SELECT subject, mu, sigma, games FROM ratings
WHERE game = %s AND subject = ANY(%s) ORDER BY subject FOR UPDATE
"""
UPDATE_RATING = """
UPDATE ratings SET mu = %s, sigma = %s, ordinal = %s, games = %s
WHERE game = %s AND subject = %s
"""
INSERT_RATING = """
INSERT INTO ratings (game, subject, account_id, bot, mu, sigma, ordinal, games)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
"""
_NAMED = (
    "SELECT r.game, r.subject, r.mu, r.sigma, r.games, a.name FROM ratings r"
    " LEFT JOIN accounts a ON a.account_id = r.account_id"
)
RATINGS = f"{_NAMED} WHERE r.game = %s AND r.subject = ANY(%s)"
ALL_RATINGS = f"{_NAMED} ORDER BY r.game, r.subject"
# ix_ratings_board (people) / ix_ratings_game_ordinal (with the bot levels)
BOARD_PEOPLE = (
    f"{_NAMED} WHERE r.game = %s AND r.bot = false"
    " ORDER BY r.ordinal DESC, r.subject DESC OFFSET %s LIMIT %s"
)
BOARD_ALL = f"{_NAMED} WHERE r.game = %s ORDER BY r.ordinal DESC, r.subject DESC OFFSET %s LIMIT %s"


REMATCH_OF = "SELECT rematch_table_id FROM rematches WHERE table_id = %s"
REMATCH_MADE_AS = "SELECT table_id, created_at FROM rematches WHERE rematch_table_id = %s"
DECLINE_REMATCH = """
INSERT INTO rematch_declines (table_id, seat, declined_at) VALUES (%s, %s, %s)
ON CONFLICT (table_id, seat) DO NOTHING
"""
REMATCH_DECLINES = "SELECT seat FROM rematch_declines WHERE table_id = %s"
ADD_REMATCH = """
WITH made AS (
    INSERT INTO rematches (table_id, rematch_table_id, created_at) VALUES (%s, %s, %s)
    ON CONFLICT (table_id) DO NOTHING RETURNING rematch_table_id
)
SELECT rematch_table_id FROM made
UNION ALL SELECT rematch_table_id FROM rematches WHERE table_id = %s
LIMIT 1
"""


def _result(row: Sequence[Any]) -> ResultRow:
    table_id, game, ending, ended_at, scores, winners, rated = row
    return ResultRow(table_id, game, ending, ended_at, tuple(scores), tuple(winners), rated)


def _result_params(row: ResultRow) -> tuple[Any, ...]:
    return (
        row.table_id,
        row.game,
        row.ending,
        row.ended_at,
        json.dumps(list(row.scores)),
        json.dumps(list(row.winners)),
        row.rated,
    )


def _rating_params(row: RatingRow) -> tuple[Any, ...]:
    return (
        row.game,
        row.subject,
        row.account_id,
        row.bot,
        row.mu,
        row.sigma,
        row.ordinal,
        row.games,
    )


class PostgresHome(HomeStore):
    """:class:`HomeStore` on the Postgres event store's pooled connections."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect

    async def _all(self, statement: str, params: Any) -> list[Any]:
        async with self._connect() as conn:
            cursor = await conn.execute(statement, params, prepare=True)
            return list(await cursor.fetchall())

    async def _execute(self, statement: str, params: Any) -> None:
        async with self._connect() as conn:
            await conn.execute(statement, params, prepare=True)

    async def my_tables(
        self, account_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[HistoryRow]:
        params = {
            "account": account_id,
            "after": after[0] if after else None,
            "key": after[1] if after else "",
            "limit": limit,
        }
        async with self._connect() as conn:
            found = list(await (await conn.execute(MY_TABLES, params, prepare=True)).fetchall())
            ids = [row[0] for row in found]
            seat_rows: dict[str, list[SeatRow]] = {table_id: [] for table_id in ids}
            ended: dict[str, ResultRow] = {}
            if ids:
                cursor = await conn.execute(PAGE_SEATS, (ids,), prepare=True)
                for table_id, seat, kind, level, name, occupied, account in await cursor.fetchall():
                    seat_rows[table_id].append(
                        SeatRow(seat, SeatKind(kind), level, name, None, occupied, account)
                    )
                cursor = await conn.execute(PAGE_RESULTS, (ids,), prepare=True)
                ended = {row[0]: _result(row) for row in await cursor.fetchall()}
        return [
            HistoryRow(
                table_id,
                game,
                name,
                TableStatus(status),
                created,
                updated,
                tuple(seat_rows[table_id]),
                ended.get(table_id),
            )
            for table_id, game, name, status, created, updated in found
        ]

    async def ended_tables(self) -> list[str]:
        return [row[0] for row in await self._all(ENDED_TABLES, (ENDED,))]

    async def record(self, result: ResultRow, subjects: Sequence[str], rerate: Rerate) -> bool:
        async with self._connect() as conn, conn.transaction():
            cursor = await conn.execute(INSERT_RESULT, _result_params(result))
            if await cursor.fetchone() is None:
                return False
            if subjects:
                first = RatingRow(result.game, "")
                await conn.execute(
                    SEED_RATINGS,
                    {
                        "game": result.game,
                        "subjects": list(subjects),
                        "mu": first.mu,
                        "sigma": first.sigma,
                    },
                )
            cursor = await conn.execute(LOCK_RATINGS, (result.game, list(subjects)))
            now = {
                subject: RatingRow(result.game, subject, mu, sigma, games)
                for subject, mu, sigma, games in await cursor.fetchall()
            }
            for row in rerate(now):
                await conn.execute(
                    UPDATE_RATING,
                    (row.mu, row.sigma, row.ordinal, row.games, row.game, row.subject),
                )
            return True

    async def replace_all(self, results: Sequence[ResultRow], ratings: Sequence[RatingRow]) -> None:
        async with self._connect() as conn, conn.transaction():
            await conn.execute("DELETE FROM results")
            await conn.execute("DELETE FROM ratings")
            async with conn.cursor() as cursor:
                if results:
                    await cursor.executemany(
                        INSERT_RESULT.replace(" RETURNING table_id", ""),
                        [_result_params(row) for row in results],
                    )
                if ratings:
                    await cursor.executemany(
                        INSERT_RATING, [_rating_params(row) for row in ratings]
                    )

    async def ratings(self, game: str, subjects: Sequence[str]) -> dict[str, RatingRow]:
        rows = await self._all(RATINGS, (game, list(subjects)))
        return {row[1]: RatingRow(*row) for row in rows}

    async def all_ratings(self) -> list[RatingRow]:
        return [RatingRow(*row) for row in await self._all(ALL_RATINGS, ())]

    async def rematch_of(self, table_id: str) -> str | None:
        rows = await self._all(REMATCH_OF, (table_id,))
        return str(rows[0][0]) if rows else None

    async def rematch_made_as(self, rematch_table_id: str) -> tuple[str, datetime] | None:
        rows = await self._all(REMATCH_MADE_AS, (rematch_table_id,))
        return (str(rows[0][0]), rows[0][1]) if rows else None

    async def decline_rematch(self, table_id: str, seat: int, now: datetime) -> None:
        await self._execute(DECLINE_REMATCH, (table_id, seat, now))

    async def rematch_declines(self, table_id: str) -> set[int]:
        return {int(row[0]) for row in await self._all(REMATCH_DECLINES, (table_id,))}

    async def add_rematch(self, table_id: str, rematch_table_id: str, now: datetime) -> str:
        rows = await self._all(ADD_REMATCH, (table_id, rematch_table_id, now, table_id))
        return str(rows[0][0])

    async def leaderboard(
        self, game: str, *, include_bots: bool, offset: int, limit: int
    ) -> list[RatingRow]:
        statement = BOARD_ALL if include_bots else BOARD_PEOPLE
        return [RatingRow(*row) for row in await self._all(statement, (game, offset, limit))]
