"""The account store's contract (``store/accounts.py``), run on every backend, and the
migration that brought it: a database written at the schema before it migrates
forward with its tables and seats intact.

Accounts, devices, sessions (their digests only), the seat's account and code,
the table's host account, and the per-account counts the caps use.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta

import pytest
import sqlalchemy as sa
from alembic import command

from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.accounts import AccountRow, AlreadyNamed, NameTaken, SessionRow
from parlour.service.store.memory import MemoryEventStore
from parlour.service.store.open import alembic_config, open_store, upgrade_head
from parlour.service.store.protocol import EventStore, NewEvent, SeatRow, TableRow, utcnow
from parlour.service.store.urls import normalize_url

HOSTED = NewEvent("TableHosted", {"game": "wizard", "seats": 3})


def account(account_id: str = "acc1") -> AccountRow:
    return AccountRow(account_id, utcnow().replace(microsecond=0))


def session(session_id: str, account_id: str = "acc1", *, hours: float = 1) -> SessionRow:
    now = utcnow().replace(microsecond=0)
    return SessionRow(session_id, account_id, "device", now, now + timedelta(hours=hours))


def table(table_id: str, *, host: str | None = None, seated: str | None = None) -> TableRow:
    return TableRow(
        table_id=table_id,
        game="wizard",
        seats=3,
        options={},
        status=TableStatus.OPEN,
        host_token_hash="ab" * 32,
        version=0,
        name=f"table {table_id}",
        host_account_id=host,
        seat_rows=(
            SeatRow(0, SeatKind.PERSON, None, "Ada", "cd" * 32, True, seated),
            SeatRow(1, SeatKind.PERSON, code_hash="ef" * 32),
            SeatRow(2, SeatKind.BOT, "easy", "Bot 3", None, True),
        ),
    )


class AccountContract:
    """What every backend's account store must do (a case gives ``store``)."""

    async def test_a_guest_is_made_once_per_device(self, store: EventStore) -> None:
        accounts = store.accounts
        assert await accounts.device_account("d1") is None
        made = await accounts.create_guest(account("acc1"), "d1")
        assert made == account("acc1") or made.account_id == "acc1"
        again = await accounts.create_guest(account("acc2"), "d1")
        assert again.account_id == "acc1"  # the device was bound: nothing new
        assert await accounts.get_account("acc2") is None
        found = await accounts.device_account("d1")
        assert found is not None and found.account_id == "acc1" and found.name is None
        assert found.created_at.tzinfo is not None

    async def test_two_racing_first_sign_ins_of_a_device_end_on_one_account(
        self, store: EventStore
    ) -> None:
        made = await asyncio.gather(
            *(store.accounts.create_guest(account(f"acc{n}"), "d1") for n in range(4))
        )
        assert len({row.account_id for row in made}) == 1

    async def test_a_device_can_be_moved_to_another_account(self, store: EventStore) -> None:
        await store.accounts.create_guest(account("acc1"), "d1")
        await store.accounts.create_guest(account("acc2"), "d2")
        await store.accounts.bind_device("d1", "acc2", utcnow())
        await store.accounts.bind_device("d3", "acc2", utcnow())
        for device in ("d1", "d2", "d3"):
            found = await store.accounts.device_account(device)
            assert found is not None and found.account_id == "acc2"

    async def test_a_name_is_claimed_once_and_unique_by_its_key(self, store: EventStore) -> None:
        accounts = store.accounts
        await accounts.create_guest(account("acc1"), "d1")
        await accounts.create_guest(account("acc2"), "d2")
        named = await accounts.claim_name("acc1", "Ada", "ada", "$argon2id$x")
        assert (named.name, named.name_key, named.password_hash) == ("Ada", "ada", "$argon2id$x")
        with pytest.raises(NameTaken):
            await accounts.claim_name("acc2", "ADA", "ada", "$argon2id$y")
        with pytest.raises(AlreadyNamed):
            await accounts.claim_name("acc1", "Bea", "bea", "$argon2id$z")
        found = await accounts.find_name("ada")
        assert found is not None and found.account_id == "acc1"
        assert await accounts.find_name("bea") is None
        other = await accounts.get_account("acc2")
        assert other is not None and other.name is None

    async def test_sessions_are_found_by_token_digest_while_live(self, store: EventStore) -> None:
        accounts = store.accounts
        await accounts.create_guest(account("acc1"), "d1")
        now = utcnow()
        await accounts.add_session(session("s1"), "h1")
        await accounts.add_session(session("s2", hours=-1), "h2")  # expired
        await accounts.add_session(session("s3"), "h3")
        live = await accounts.live_session("h1", now)
        assert live is not None and live.session_id == "s1" and live.revoked_at is None
        assert await accounts.live_session("h2", now) is None
        assert await accounts.live_session("nobody", now) is None
        assert {s.session_id for s in await accounts.live_sessions("acc1", now)} == {"s1", "s3"}
        assert not await accounts.revoke_session("acc2", "s1", now)  # not that account's
        assert await accounts.revoke_session("acc1", "s1", now)
        assert not await accounts.revoke_session("acc1", "s1", now)  # revoked already
        assert not await accounts.revoke_session("acc1", "s2", now)  # expired
        assert await accounts.live_session("h1", now) is None
        assert [s.session_id for s in await accounts.live_sessions("acc1", now)] == ["s3"]

    async def test_revoking_a_session_unbinds_the_device_that_opened_it(
        self, store: EventStore
    ) -> None:
        accounts = store.accounts
        await accounts.create_guest(account("acc1"), "d1")
        await accounts.create_guest(account("acc2"), "d2")
        now = utcnow()
        await accounts.add_session(replace(session("s1"), device_hash="d1"), "h1")
        await accounts.add_session(session("s2"), "h2")  # from no device
        await accounts.add_session(replace(session("s3"), device_hash="d2"), "h3")
        stored = await accounts.live_session("h1", now)
        assert stored is not None and stored.device_hash == "d1"
        assert not await accounts.revoke_session("acc2", "s1", now)  # not acc2's session
        bound = await accounts.device_account("d1")
        assert bound is not None and bound.account_id == "acc1"
        assert await accounts.revoke_session("acc1", "s1", now)
        assert await accounts.device_account("d1") is None  # its next sign-in: a new guest
        assert await accounts.revoke_session("acc1", "s2", now)
        # s3 names d2, but d2 signs in to acc2: revoking acc1's session leaves it there
        assert await accounts.revoke_session("acc1", "s3", now)
        moved = await accounts.device_account("d2")
        assert moved is not None and moved.account_id == "acc2"

    async def test_seats_and_tables_keep_their_accounts_and_codes(self, store: EventStore) -> None:
        await store.create_table(table("t1", host="acc1", seated="acc1"), [HOSTED])
        row = await store.get_table("t1")
        assert row.host_account_id == "acc1"
        assert row.seat_rows[0].account_id == "acc1"
        assert row.seat_rows[1].code_hash == "ef" * 32 and row.seat_rows[1].account_id is None
        taken = replace(row.seat_rows[1], player_name="Bea", occupied=True, account_id="acc2")
        await store.append("t1", 1, [NewEvent("SeatTaken", {"seat": 1})], seat_updates=[taken])
        after = await store.get_table("t1")
        assert after.seat_rows[1] == taken
        await store.append(
            "t1", 2, [NewEvent("SeatLeft", {"seat": 1})], seat_updates=[taken.freed()]
        )
        freed = (await store.get_table("t1")).seat_rows[1]
        assert (freed.account_id, freed.occupied, freed.code_hash) == (None, False, "ef" * 32)

    async def test_the_caps_count_open_tables_hosted_and_sat_at(self, store: EventStore) -> None:
        accounts = store.accounts
        await store.create_table(table("t1", host="acc1", seated="acc1"), [HOSTED])
        await store.create_table(table("t2", host="acc1", seated="acc2"), [HOSTED])
        await store.create_table(table("t3", host=None, seated="acc1"), [HOSTED])
        assert await accounts.count_hosted("acc1", TableStatus.OPEN) == 2
        assert await accounts.count_seated("acc1", TableStatus.OPEN) == 2
        assert await accounts.count_seated("acc2", TableStatus.OPEN) == 1
        await store.append("t1", 1, [NewEvent("GameStarted", {})], table_status=TableStatus.PLAYING)
        assert await accounts.count_hosted("acc1", TableStatus.OPEN) == 1
        assert await accounts.count_seated("acc1", TableStatus.OPEN) == 1
        assert await accounts.count_hosted("nobody", TableStatus.OPEN) == 0
        held = await accounts.held_seats("acc1", (TableStatus.OPEN, TableStatus.PLAYING))
        assert {(seat.table_id, seat.seat, seat.host) for seat in held} == {
            ("t1", 0, True),
            ("t3", 0, False),
        }
        assert {seat.status for seat in held} == {TableStatus.OPEN, TableStatus.PLAYING}
        assert await accounts.held_seats("acc1", (TableStatus.FINISHED,)) == []


class TestMemoryAccounts(AccountContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[EventStore]:
        yield open_store("memory://")

    async def test_replicas_of_a_memory_share_its_accounts(self, store: EventStore) -> None:
        assert isinstance(store, MemoryEventStore)
        await store.accounts.create_guest(account("acc1"), "d1")
        found = await store.replica().accounts.device_account("d1")
        assert found is not None and found.account_id == "acc1"


class DatabaseAccounts(AccountContract):
    @pytest.fixture
    def url(self) -> str:
        raise NotImplementedError

    @pytest.fixture
    async def store(self, url: str) -> AsyncIterator[EventStore]:
        upgrade_head(url)
        store = open_store(url, connections=4)
        yield store
        await store.close()

    async def test_a_database_at_the_previous_schema_migrates_with_its_tables(
        self, url: str
    ) -> None:
        """Tables and seats written at revision 0002 (as the store before accounts wrote
        them: these columns only) come through the migration intact, with no accounts."""
        command.upgrade(alembic_config(url), "0002")
        engine = sa.create_engine(normalize_url(url), poolclass=sa.pool.NullPool)
        now = utcnow()
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO tables (table_id, game, seats, options, status,"
                    " host_token_hash, version, name, created_at, updated_at, person_active_at)"
                    " VALUES ('old', 'hearts', 4, '{\"rounds\": 3}', 'playing', 'hh', 2,"
                    " 'Old table', :now, :now, :now)"
                ),
                {"now": now},
            )
            for seat in range(4):
                conn.execute(
                    sa.text(
                        "INSERT INTO seats (table_id, seat, kind, bot_level, player_name,"
                        " token_hash, occupied) VALUES ('old', :seat, :kind, NULL, :name,"
                        " :token, :occupied)"
                    ),
                    {
                        "seat": seat,
                        "kind": "bot" if seat == 3 else "person",
                        "name": f"P{seat}",
                        "token": None if seat == 3 else f"t{seat}",
                        "occupied": True,
                    },
                )
            conn.execute(
                sa.text(
                    "INSERT INTO events (game_id, seq, type, schema_version, payload, digest,"
                    " request_id, created_at) VALUES ('old', 1, 'TableHosted', 1,"
                    ' \'{"game": "hearts", "seats": 4}\', \'\', NULL, :now),'
                    " ('old', 2, 'GameStarted', 1, '{}', '', NULL, :now)"
                ),
                {"now": now},
            )
        engine.dispose()
        upgrade_head(url)
        store = open_store(url, connections=2)
        try:
            row = await store.get_table("old")
            assert (row.game, row.status, row.version, row.name) == (
                "hearts",
                TableStatus.PLAYING,
                2,
                "Old table",
            )
            assert row.options == {"rounds": 3} and row.host_account_id is None
            assert [seat.player_name for seat in row.seat_rows] == ["P0", "P1", "P2", "P3"]
            assert [seat.token_hash for seat in row.seat_rows] == ["t0", "t1", "t2", None]
            assert all(seat.account_id is None and seat.code_hash is None for seat in row.seat_rows)
            assert [event.type for event in await store.read("old")] == [
                "TableHosted",
                "GameStarted",
            ]
            assert await store.accounts.count_seated("anyone", TableStatus.PLAYING) == 0
        finally:
            await store.close()

    async def test_sessions_from_before_devices_were_kept_migrate_and_stay_live(
        self, url: str
    ) -> None:
        """An account, its device and a session written at revision 0003 come through the
        migration that adds ``sessions.device_hash``: the session still signs in, names
        no device, and revoking it leaves the device bound (as it did then)."""
        command.upgrade(alembic_config(url), "0003")
        engine = sa.create_engine(normalize_url(url), poolclass=sa.pool.NullPool)
        now = utcnow()
        with engine.begin() as conn:
            conn.execute(
                sa.text("INSERT INTO accounts (account_id, created_at) VALUES ('a0', :now)"),
                {"now": now},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO devices (device_hash, account_id, created_at)"
                    " VALUES ('d0', 'a0', :now)"
                ),
                {"now": now},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO sessions (session_id, token_hash, account_id, method,"
                    " created_at, expires_at) VALUES ('s0', 'h0', 'a0', 'device', :now, :end)"
                ),
                {"now": now, "end": now + timedelta(days=1)},
            )
        engine.dispose()
        upgrade_head(url)
        store = open_store(url, connections=2)
        try:
            live = await store.accounts.live_session("h0", utcnow())
            assert live is not None and live.account_id == "a0" and live.device_hash is None
            assert await store.accounts.revoke_session("a0", "s0", utcnow())
            bound = await store.accounts.device_account("d0")
            assert bound is not None and bound.account_id == "a0"
        finally:
            await store.close()


class TestSQLiteAccounts(DatabaseAccounts):
    @pytest.fixture
    def url(self, sqlite_url: str) -> str:
        return sqlite_url


@pytest.mark.postgres
class TestPostgresAccounts(DatabaseAccounts):
    @pytest.fixture
    def url(self, postgres_url: str) -> str:
        return postgres_url
