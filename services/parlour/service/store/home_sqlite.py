"""The home store on the SQLite file of ``sqlite.SqliteEventStore`` (``store/home.py``):
its worker threads and its serialized writers (handed in by the event store)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.home import (
    HistoryRow,
    HomeStore,
    RatingRow,
    Rerate,
    ResultRow,
)
from parlour.service.store.schema import (
    accounts,
    plays,
    ratings,
    rematch_declines,
    rematches,
    results,
    seats,
    tables,
)
from parlour.service.store.values import SeatRow

Call = Callable[..., Awaitable[Any]]
Write = Callable[[], AbstractContextManager[sa.Connection]]

ENDED = (str(TableStatus.FINISHED), str(TableStatus.ABANDONED))


def _aware(moment: datetime) -> datetime:
    """SQLite hands timestamps back naive; everything the store writes is UTC."""
    return moment.replace(tzinfo=moment.tzinfo or UTC)


def result_row(row: Any) -> ResultRow:
    return ResultRow(
        row["table_id"],
        row["game"],
        row["ending"],
        _aware(row["ended_at"]),
        tuple(row["scores"]),
        tuple(row["winners"]),
        bool(row["rated"]),
    )


def rating_values(row: RatingRow) -> dict[str, Any]:
    return {
        "game": row.game,
        "subject": row.subject,
        "account_id": row.account_id,
        "bot": row.bot,
        "mu": row.mu,
        "sigma": row.sigma,
        "ordinal": row.ordinal,
        "games": row.games,
    }


def result_values(row: ResultRow) -> dict[str, Any]:
    return {
        "table_id": row.table_id,
        "game": row.game,
        "ending": row.ending,
        "ended_at": row.ended_at,
        "scores": list(row.scores),
        "winners": list(row.winners),
        "rated": row.rated,
    }


_NAMED = sa.select(
    ratings.c.game,
    ratings.c.subject,
    ratings.c.mu,
    ratings.c.sigma,
    ratings.c.games,
    accounts.c.name,
).select_from(ratings.outerjoin(accounts, accounts.c.account_id == ratings.c.account_id))


def _rating(row: Any) -> RatingRow:
    return RatingRow(
        row["game"], row["subject"], row["mu"], row["sigma"], row["games"], row["name"]
    )


class SqliteHome(HomeStore):
    """:class:`HomeStore` with the SQLite event store's ``call``, ``write`` and reader."""

    def __init__(self, call: Call, write: Write, reader: sa.Engine) -> None:
        self._call = call
        self._write = write
        self._reader = reader

    async def _rows(self, query: Any) -> list[Any]:
        def rows() -> list[Any]:
            with self._reader.connect() as conn:
                return list(conn.execute(query).mappings())

        return list(await self._call(rows))

    async def my_tables(
        self, account_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[HistoryRow]:
        query = (
            sa.select(tables)
            .join(plays, plays.c.table_id == tables.c.table_id)
            .where(plays.c.account_id == account_id)
            .order_by(plays.c.created_at.desc(), plays.c.table_id.desc())
            .limit(limit)
        )
        if after is not None:
            query = query.where(
                sa.or_(
                    plays.c.created_at < after[0],
                    sa.and_(plays.c.created_at == after[0], plays.c.table_id < after[1]),
                )
            )

        def read() -> list[HistoryRow]:
            with self._reader.connect() as conn:
                found = list(conn.execute(query).mappings())
                ids = [row["table_id"] for row in found]
                seat_rows: dict[str, list[SeatRow]] = {table_id: [] for table_id in ids}
                for row in conn.execute(
                    sa.select(seats).where(seats.c.table_id.in_(ids)).order_by(seats.c.seat)
                ).mappings():
                    seat_rows[row["table_id"]].append(
                        SeatRow(
                            row["seat"],
                            SeatKind(row["kind"]),
                            row["bot_level"],
                            row["player_name"],
                            None,
                            bool(row["occupied"]),
                            row["account_id"],
                        )
                    )
                ended = {
                    row["table_id"]: result_row(row)
                    for row in conn.execute(
                        sa.select(results).where(results.c.table_id.in_(ids))
                    ).mappings()
                }
            return [
                HistoryRow(
                    row["table_id"],
                    row["game"],
                    row["name"],
                    TableStatus(row["status"]),
                    _aware(row["created_at"]),
                    _aware(row["updated_at"]),
                    tuple(seat_rows[row["table_id"]]),
                    ended.get(row["table_id"]),
                )
                for row in found
            ]

        return list(await self._call(read))

    async def ended_tables(self) -> list[str]:
        query = sa.select(tables.c.table_id).where(tables.c.status.in_(ENDED))
        return [row["table_id"] for row in await self._rows(query)]

    async def record(self, result: ResultRow, subjects: Sequence[str], rerate: Rerate) -> bool:
        def write() -> bool:
            with self._write() as conn:  # BEGIN IMMEDIATE: the one writer
                taken = conn.execute(
                    sa.select(results.c.table_id).where(results.c.table_id == result.table_id)
                ).first()
                if taken is not None:
                    return False
                now = {
                    row["subject"]: _rating({**row, "name": None})
                    for row in conn.execute(
                        sa.select(ratings).where(
                            ratings.c.game == result.game, ratings.c.subject.in_(subjects)
                        )
                    ).mappings()
                }
                for subject in subjects:
                    now.setdefault(subject, RatingRow(result.game, subject))
                rows = rerate(now)
                conn.execute(results.insert(), result_values(result))
                for row in rows:
                    conn.execute(
                        ratings.delete().where(
                            ratings.c.game == row.game, ratings.c.subject == row.subject
                        )
                    )
                if rows:
                    conn.execute(ratings.insert(), [rating_values(row) for row in rows])
                return True

        return bool(await self._call(write))

    async def replace_all(
        self, results_: Sequence[ResultRow], ratings_: Sequence[RatingRow]
    ) -> None:
        def write() -> None:
            with self._write() as conn:
                conn.execute(results.delete())
                conn.execute(ratings.delete())
                if results_:
                    conn.execute(results.insert(), [result_values(row) for row in results_])
                if ratings_:
                    conn.execute(ratings.insert(), [rating_values(row) for row in ratings_])

        await self._call(write)

    async def ratings(self, game: str, subjects: Sequence[str]) -> dict[str, RatingRow]:
        query = _NAMED.where(ratings.c.game == game, ratings.c.subject.in_(list(subjects)))
        return {row["subject"]: _rating(row) for row in await self._rows(query)}

    async def all_ratings(self) -> list[RatingRow]:
        query = _NAMED.order_by(ratings.c.game, ratings.c.subject)
        return [_rating(row) for row in await self._rows(query)]

    async def rematch_of(self, table_id: str) -> str | None:
        query = sa.select(rematches.c.rematch_table_id).where(rematches.c.table_id == table_id)
        rows = await self._rows(query)
        return str(rows[0]["rematch_table_id"]) if rows else None

    async def rematch_made_as(self, rematch_table_id: str) -> tuple[str, datetime] | None:
        query = sa.select(rematches.c.table_id, rematches.c.created_at).where(
            rematches.c.rematch_table_id == rematch_table_id
        )
        rows = await self._rows(query)
        return (str(rows[0]["table_id"]), _aware(rows[0]["created_at"])) if rows else None

    async def decline_rematch(self, table_id: str, seat: int, now: datetime) -> None:
        def write() -> None:
            with self._write() as conn:
                conn.execute(
                    rematch_declines.insert().prefix_with("OR IGNORE"),
                    {"table_id": table_id, "seat": seat, "declined_at": now},
                )

        await self._call(write)

    async def rematch_declines(self, table_id: str) -> set[int]:
        query = sa.select(rematch_declines.c.seat).where(rematch_declines.c.table_id == table_id)
        return {int(row["seat"]) for row in await self._rows(query)}

    async def add_rematch(self, table_id: str, rematch_table_id: str, now: datetime) -> str:
        def write() -> str:
            with self._write() as conn:
                found = conn.execute(
                    sa.select(rematches.c.rematch_table_id).where(rematches.c.table_id == table_id)
                ).first()
                if found is not None:
                    return str(found[0])
                conn.execute(
                    rematches.insert(),
                    {"table_id": table_id, "rematch_table_id": rematch_table_id, "created_at": now},
                )
                return rematch_table_id

        return str(await self._call(write))

    async def leaderboard(
        self, game: str, *, include_bots: bool, offset: int, limit: int
    ) -> list[RatingRow]:
        query = _NAMED.where(ratings.c.game == game)
        if not include_bots:
            query = query.where(ratings.c.bot == sa.false())
        query = (
            query.order_by(ratings.c.ordinal.desc(), ratings.c.subject.desc())
            .offset(offset)
            .limit(limit)
        )
        return [_rating(row) for row in await self._rows(query)]
