"""The analysis store's contract (``store/analyses.py``) on memory, SQLite and Postgres:
one job per table however often it is asked for, the oldest free job claimed first and
never by two workers at once, a lapsed lease claimable again, saves heard only from the
job's holder, a job whose leases keep lapsing failed; and migration 0007 adds the table
to a database whose tables come through intact."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
import sqlalchemy as sa
from alembic import command

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.analyses import DONE, FAILED, QUEUED, RUNNING, AnalysisUpdate
from parlour.service.store.open import alembic_config, open_store, upgrade_head
from parlour.service.store.protocol import EventStore, NewEvent, SeatRow, TableRow, utcnow
from parlour.service.store.urls import normalize_url

NOW = utcnow().replace(microsecond=0)


def table(table_id: str, game: str = "hearts") -> TableRow:
    return TableRow(
        table_id=table_id,
        game=game,
        seats=2,
        options={},
        status=TableStatus.FINISHED,
        host_token_hash="ab" * 32,
        version=0,
        name=f"table {table_id}",
        created_at=NOW,
        updated_at=NOW,
        seat_rows=(
            SeatRow(0, SeatKind.PERSON, None, "Ada", "cd" * 32, True, None),
            SeatRow(1, SeatKind.BOT, "basic", None, None, True, None),
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
        for table_id, game in (("t1", "hearts"), ("t2", "wizard"), ("t3", "hearts")):
            await opened.create_table(table(table_id, game), [NewEvent("TableHosted", {})])
        yield opened
    finally:
        await opened.close()


async def test_a_request_queues_one_job_however_often_it_is_made(store: EventStore) -> None:
    first, created = await store.analyses.request("t1", "hearts", NOW)
    again, created_again = await store.analyses.request("t1", "hearts", NOW + timedelta(1))
    assert created and not created_again
    assert first.state == again.state == QUEUED and again.requested_at == NOW
    assert await store.analyses.get("t1") == first
    assert await store.analyses.get("t2") is None


async def test_the_oldest_free_job_is_claimed_once_and_again_after_its_lease(
    store: EventStore,
) -> None:
    analyses = store.analyses
    await analyses.request("t2", "wizard", NOW)
    await analyses.request("t1", "hearts", NOW + timedelta(seconds=1))
    until = NOW + timedelta(seconds=60)
    got = await analyses.claim("w1", [], NOW, until, 3)
    assert got is not None and (got.table_id, got.state, got.worker_id) == ("t2", RUNNING, "w1")
    assert got.attempts == 1 and got.lease_expires_at == until
    only_hearts = await analyses.claim("w2", ["hearts"], NOW, until, 3)
    assert only_hearts is not None and only_hearts.table_id == "t1"
    assert await analyses.claim("w3", [], NOW, until, 3) is None  # both leased
    lapsed = await analyses.claim("w3", [], until, until + timedelta(seconds=60), 3)
    assert lapsed is not None and (lapsed.table_id, lapsed.worker_id) == ("t2", "w3")
    assert lapsed.attempts == 2


async def test_two_workers_claiming_at_once_never_share_a_job(store: EventStore) -> None:
    await store.analyses.request("t1", "hearts", NOW)
    until = NOW + timedelta(seconds=60)
    got = await asyncio.gather(
        *(store.analyses.claim(f"w{n}", [], NOW, until, 3) for n in range(4))
    )
    assert [row.worker_id for row in got if row is not None] in (["w0"], ["w1"], ["w2"], ["w3"])


async def test_only_the_holder_saves_and_a_done_job_is_not_written_again(
    store: EventStore,
) -> None:
    analyses = store.analyses
    await analyses.request("t1", "hearts", NOW)
    await analyses.claim("w1", [], NOW, NOW + timedelta(seconds=60), 3)
    part = AnalysisUpdate(RUNNING, {"judged": [{"seq": 5}]}, NOW + timedelta(seconds=120))
    assert await analyses.save("t1", "w2", part) is None
    renewed = await analyses.save("t1", "w1", part)
    assert renewed is not None and renewed.result == {"judged": [{"seq": 5}]}
    assert renewed.lease_expires_at == NOW + timedelta(seconds=120)
    done = AnalysisUpdate(DONE, {"decisions": [], "summaries": []}, None, finished_at=NOW)
    stored = await analyses.save("t1", "w1", done)
    assert stored is not None and stored.state == DONE and stored.finished_at == NOW
    assert await analyses.save("t1", "w1", done) is None
    assert (await analyses.get("t1")) == stored


async def test_a_job_whose_leases_keep_lapsing_fails(store: EventStore) -> None:
    analyses = store.analyses
    await analyses.request("t1", "hearts", NOW)
    moment = NOW
    for attempt in range(2):
        got = await analyses.claim(f"w{attempt}", [], moment, moment + timedelta(seconds=1), 2)
        assert got is not None and got.attempts == attempt + 1
        moment += timedelta(seconds=2)
    assert await analyses.claim("w9", [], moment, moment + timedelta(seconds=1), 2) is None
    failed = await analyses.get("t1")
    assert failed is not None and failed.state == FAILED
    assert failed.error == "no worker finished the analysis within 2 leases"
    # asked again, a failed job is queued afresh (the only way a request makes a second)
    later = moment + timedelta(seconds=5)
    again, created = await analyses.request("t1", "hearts", later)
    assert created and again.state == QUEUED and again.requested_at == later
    assert again.attempts == 0 and again.error is None and again.worker_id is None
    got = await analyses.claim("w9", [], later, later + timedelta(seconds=1), 2)
    assert got is not None and got.attempts == 1


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
async def test_migration_0007_adds_analyses_and_keeps_the_tables_there_are(
    backend: str, request: pytest.FixtureRequest
) -> None:
    url = str(request.getfixturevalue(f"{backend}_url"))
    command.upgrade(alembic_config(url), "0006")
    engine = sa.create_engine(normalize_url(url), poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO tables (table_id, game, seats, options, status, host_token_hash,"
                " version, name, created_at, updated_at) VALUES ('old', 'hearts', 2, '{}',"
                " 'finished', 'hh', 1, 'Old', :now, :now)"
            ),
            {"now": NOW},
        )
        conn.execute(
            sa.text(
                "INSERT INTO events (game_id, seq, type, schema_version, payload, digest,"
                " request_id, created_at) VALUES ('old', 1, 'TableHosted', 1, '{}', '',"
                " NULL, :now)"
            ),
            {"now": NOW},
        )
    engine.dispose()
    upgrade_head(url)
    store = open_store(url)
    try:
        assert (await store.get_table("old")).name == "Old"
        assert len(await store.read("old")) == 1
        row, created = await store.analyses.request("old", "hearts", NOW)
        assert created and row.state == QUEUED
    finally:
        await store.close()
