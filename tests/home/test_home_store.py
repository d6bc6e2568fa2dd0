"""The home store's contract (``store/home.py``) on memory, SQLite and Postgres: the
account's tables newest first by keyset, a seat given up leaves them, a table rated once,
a rebuild's replacement, the leaderboard's order; and migration 0004 fills ``plays``
from the seats a database already had."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
import sqlalchemy as sa
from alembic import command

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.home import RatingRow, ResultRow
from parlour.service.store.open import alembic_config, open_store, upgrade_head
from parlour.service.store.protocol import EventStore, NewEvent, SeatRow, TableRow, utcnow
from parlour.service.store.urls import normalize_url

HOSTED = NewEvent("TableHosted", {"game": "crazy8s", "seats": 2})
BEGAN = utcnow().replace(microsecond=0)


def table(table_id: str, minutes: int, account: str | None, other: str | None = None) -> TableRow:
    return TableRow(
        table_id=table_id,
        game="crazy8s",
        seats=2,
        options={},
        status=TableStatus.OPEN,
        host_token_hash="ab" * 32,
        version=0,
        name=f"table {table_id}",
        created_at=BEGAN + timedelta(minutes=minutes),
        updated_at=BEGAN + timedelta(minutes=minutes),
        seat_rows=(
            SeatRow(0, SeatKind.PERSON, None, "Ada", "cd" * 32, account is not None, account),
            SeatRow(1, SeatKind.PERSON, None, "Bea", None, other is not None, other),
        ),
    )


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    if request.param == "memory":
        url = "memory://"
    else:
        url = str(request.getfixturevalue(f"{request.param}_url"))
        upgrade_head(url)
    opened = open_store(url)
    try:
        yield opened
    finally:
        await opened.close()


async def test_my_tables_newest_first_by_keyset_and_a_seat_given_up_leaves(
    store: EventStore,
) -> None:
    # two tables made in the same minute: ties go by table id, descending
    for table_id, minutes in (("a", 1), ("b", 2), ("c", 2), ("d", 3)):
        await store.create_table(table(table_id, minutes, "ada", "bea"), [HOSTED])
    await store.create_table(table("x", 4, "cyd"), [HOSTED])
    first = await store.home.my_tables("ada", 2)
    assert [row.table_id for row in first] == ["d", "c"]
    after = (first[-1].created_at, first[-1].table_id)
    assert [row.table_id for row in await store.home.my_tables("ada", 5, after)] == ["b", "a"]
    assert [seat.account_id for seat in first[0].seats] == ["ada", "bea"]
    assert first[0].result is None
    # Bea leaves table c (her seat freed), then takes seat 1 of x
    await store.append(
        "c", 1, [NewEvent("SeatLeft", {"seat": 1})], seat_updates=[SeatRow(1, SeatKind.PERSON)]
    )
    await store.append(
        "x",
        1,
        [NewEvent("SeatTaken", {"seat": 1})],
        seat_updates=[SeatRow(1, SeatKind.PERSON, None, "Bea", "ef" * 32, True, "bea")],
    )
    assert [row.table_id for row in await store.home.my_tables("bea", 10)] == ["x", "d", "b", "a"]
    assert await store.home.my_tables("nobody", 10) == []


async def test_a_table_is_rated_once_and_a_rebuild_replaces_everything(
    store: EventStore,
) -> None:
    await store.create_table(table("t1", 1, "ada", "bea"), [HOSTED])
    result = ResultRow("t1", "crazy8s", "finished", BEGAN, (0, 20), (0,))
    seen: list[dict[str, RatingRow]] = []

    def rerate(now: dict[str, RatingRow]) -> list[RatingRow]:  # type: ignore[type-arg]
        seen.append(dict(now))
        return [
            RatingRow("crazy8s", s, now[s].mu + 1, now[s].sigma - 1, now[s].games + 1)
            for s in sorted(now)
        ]

    subjects = ["account:ada", "account:bea"]
    assert await store.home.record(result, subjects, rerate)
    assert not await store.home.record(result, subjects, rerate)  # once
    assert len(seen) == 1 and {row.games for row in seen[0].values()} == {0}
    rows = await store.home.ratings("crazy8s", subjects)
    assert {(row.mu, row.games) for row in rows.values()} == {(26.0, 1)}
    (history,) = await store.home.my_tables("ada", 5)
    assert history.result is not None and history.result.scores == (0, 20)
    assert history.result.winners == (0,) and history.result.ending == "finished"

    board = [
        RatingRow("crazy8s", "account:p1", 30, 2),  # ordinal 24
        RatingRow("crazy8s", "account:p2", 30, 2),  # a tie: subject descending
        RatingRow("crazy8s", "account:p3", 40, 2),
        RatingRow("crazy8s", "bot:crazy8s:expert", 50, 1),
        RatingRow("hearts", "account:p1", 99, 1),
    ]
    await store.home.replace_all([], board)
    people = await store.home.leaderboard("crazy8s", include_bots=False, offset=0, limit=10)
    assert [row.subject for row in people] == ["account:p3", "account:p2", "account:p1"]
    everyone = await store.home.leaderboard("crazy8s", include_bots=True, offset=1, limit=2)
    assert [row.subject for row in everyone] == ["account:p3", "account:p2"]
    assert await store.home.ratings("crazy8s", subjects) == {}
    (history,) = await store.home.my_tables("ada", 5)
    assert history.result is None
    assert [(r.game, r.subject) for r in await store.home.all_ratings()] == sorted(
        (r.game, r.subject) for r in board
    )


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
async def test_the_migration_fills_plays_from_the_seats_there_are(
    backend: str, request: pytest.FixtureRequest
) -> None:
    url = str(request.getfixturevalue(f"{backend}_url"))
    command.upgrade(alembic_config(url), "0003")
    engine = sa.create_engine(normalize_url(url), poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO tables (table_id, game, seats, options, status, host_token_hash,"
                " version, name, created_at, updated_at) VALUES ('old', 'crazy8s', 2, '{}',"
                " 'finished', 'hh', 9, 'Old', :now, :now)"
            ),
            {"now": BEGAN},
        )
        conn.execute(
            sa.text(
                "INSERT INTO seats (table_id, seat, kind, occupied, account_id) VALUES"
                " ('old', 0, 'person', true, 'ada'), ('old', 1, 'bot', true, NULL)"
            )
        )
    engine.dispose()
    upgrade_head(url)
    store = open_store(url)
    try:
        (row,) = await store.home.my_tables("ada", 5)
        assert row.table_id == "old" and row.status == TableStatus.FINISHED
    finally:
        await store.close()
