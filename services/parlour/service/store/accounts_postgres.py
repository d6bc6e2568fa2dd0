"""The account store on Postgres: the statements, sent on ``postgres.PostgresEventStore``'s
pooled autocommit connections (its ``fetch`` is handed in)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

import psycopg

from parlour.service.domain.statuses import TableStatus
from parlour.service.store.accounts import (
    AccountRow,
    AccountStore,
    AlreadyNamed,
    HeldSeat,
    NameTaken,
    SessionRow,
)

#: (statement, params, one=) -> the row (one) or the rows
Fetch = Callable[..., Awaitable[Any]]

_ACCOUNT = "a.account_id, a.created_at, a.name, a.name_key, a.password_hash"
DEVICE_ACCOUNT = (
    f"SELECT {_ACCOUNT} FROM accounts a JOIN devices d ON d.account_id = a.account_id"
    " WHERE d.device_hash = %s"
)
GET_ACCOUNT = f"SELECT {_ACCOUNT} FROM accounts a WHERE a.account_id = %s"
FIND_NAME = f"SELECT {_ACCOUNT} FROM accounts a WHERE a.name_key = %s"
# The guest and its device in one statement: nothing is made when the device is bound
# (and a racing bind fails the whole statement on the device's key).
CREATE_GUEST = """
WITH made AS (
    INSERT INTO accounts (account_id, created_at)
    SELECT %(account_id)s, %(created_at)s
    WHERE NOT EXISTS (SELECT 1 FROM devices WHERE device_hash = %(device_hash)s)
    RETURNING account_id
)
INSERT INTO devices (device_hash, account_id, created_at)
SELECT %(device_hash)s, made.account_id, %(created_at)s FROM made
RETURNING account_id
"""
BIND_DEVICE = """
INSERT INTO devices (device_hash, account_id, created_at) VALUES (%s, %s, %s)
ON CONFLICT (device_hash) DO UPDATE SET account_id = excluded.account_id
"""
CLAIM_NAME = """
UPDATE accounts SET name = %s, name_key = %s, password_hash = %s
WHERE account_id = %s AND name_key IS NULL
RETURNING account_id, created_at, name, name_key, password_hash
"""
ADD_SESSION = """
INSERT INTO sessions
    (session_id, token_hash, account_id, method, created_at, expires_at, device_hash)
VALUES (%s, %s, %s, %s, %s, %s, %s)
"""
_SESSION = "session_id, account_id, method, created_at, expires_at, revoked_at, device_hash"
LIVE_SESSION = (
    f"SELECT {_SESSION} FROM sessions"
    " WHERE token_hash = %s AND revoked_at IS NULL AND expires_at > %s"
)
LIVE_SESSIONS = (
    f"SELECT {_SESSION} FROM sessions"
    " WHERE account_id = %s AND revoked_at IS NULL AND expires_at > %s"
    " ORDER BY created_at DESC, session_id"
)
# the session revoked and the device that opened it unbound, in one statement
REVOKE_SESSION = """
WITH revoked AS (
    UPDATE sessions SET revoked_at = %(now)s
    WHERE session_id = %(session_id)s AND account_id = %(account_id)s
        AND revoked_at IS NULL AND expires_at > %(now)s
    RETURNING session_id, device_hash
), unbound AS (
    DELETE FROM devices d USING revoked r
    WHERE d.device_hash = r.device_hash AND d.account_id = %(account_id)s
    RETURNING d.device_hash
)
SELECT session_id FROM revoked
"""
COUNT_HOSTED = "SELECT count(*) FROM tables WHERE host_account_id = %s AND status = %s"
COUNT_SEATED = """
SELECT count(DISTINCT s.table_id) FROM seats s JOIN tables t ON t.table_id = s.table_id
WHERE s.account_id = %s AND t.status = %s
"""
HELD_SEATS = """
SELECT t.table_id, t.game, t.name, s.seat, t.status, t.host_account_id, t.created_at
FROM seats s JOIN tables t ON t.table_id = s.table_id
WHERE s.account_id = %s AND t.status = ANY(%s::text[])
ORDER BY t.created_at DESC, t.table_id, s.seat LIMIT %s
"""


class PostgresAccounts(AccountStore):
    """:class:`AccountStore` over the Postgres event store's ``fetch``."""

    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch

    async def _account(self, statement: str, key: str) -> AccountRow | None:
        row = await self._fetch(statement, (key,), one=True)
        return None if row is None else AccountRow(*row)

    async def device_account(self, device_hash: str) -> AccountRow | None:
        return await self._account(DEVICE_ACCOUNT, device_hash)

    async def create_guest(self, account: AccountRow, device_hash: str) -> AccountRow:
        params = {
            "account_id": account.account_id,
            "created_at": account.created_at,
            "device_hash": device_hash,
        }
        # one statement: a device bound meanwhile rolls the account back with it
        try:
            made = await self._fetch(CREATE_GUEST, params, one=True)
        except psycopg.IntegrityError:
            made = None
        if made is not None:
            return account
        found = await self.device_account(device_hash)
        assert found is not None, "a device clash without the device"
        return found

    async def bind_device(self, device_hash: str, account_id: str, now: datetime) -> None:
        await self._fetch(BIND_DEVICE, (device_hash, account_id, now), none=True)

    async def get_account(self, account_id: str) -> AccountRow | None:
        return await self._account(GET_ACCOUNT, account_id)

    async def find_name(self, name_key: str) -> AccountRow | None:
        return await self._account(FIND_NAME, name_key)

    async def claim_name(
        self, account_id: str, name: str, name_key: str, password_hash: str
    ) -> AccountRow:
        try:
            row = await self._fetch(
                CLAIM_NAME, (name, name_key, password_hash, account_id), one=True
            )
        except psycopg.errors.UniqueViolation as error:
            raise NameTaken(name) from error
        if row is None:
            raise AlreadyNamed(f"account {account_id} already has a name")
        return AccountRow(*row)

    async def add_session(self, session: SessionRow, token_hash: str) -> None:
        params = (
            session.session_id,
            token_hash,
            session.account_id,
            session.method,
            session.created_at,
            session.expires_at,
            session.device_hash,
        )
        await self._fetch(ADD_SESSION, params, none=True)

    async def live_session(self, token_hash: str, now: datetime) -> SessionRow | None:
        row = await self._fetch(LIVE_SESSION, (token_hash, now), one=True)
        return None if row is None else SessionRow(*row)

    async def revoke_session(self, account_id: str, session_id: str, now: datetime) -> bool:
        params = {"now": now, "session_id": session_id, "account_id": account_id}
        row = await self._fetch(REVOKE_SESSION, params, one=True)
        return row is not None

    async def live_sessions(self, account_id: str, now: datetime) -> list[SessionRow]:
        return [SessionRow(*row) for row in await self._fetch(LIVE_SESSIONS, (account_id, now))]

    async def count_hosted(self, account_id: str, status: TableStatus) -> int:
        return int((await self._fetch(COUNT_HOSTED, (account_id, str(status)), one=True))[0])

    async def count_seated(self, account_id: str, status: TableStatus) -> int:
        return int((await self._fetch(COUNT_SEATED, (account_id, str(status)), one=True))[0])

    async def held_seats(
        self, account_id: str, statuses: Sequence[TableStatus], limit: int = 100
    ) -> list[HeldSeat]:
        params = (account_id, [str(status) for status in statuses], limit)
        return [
            HeldSeat(table_id, game, name, seat, TableStatus(status), host == account_id, made)
            for table_id, game, name, seat, status, host, made in await self._fetch(
                HELD_SEATS, params
            )
        ]
