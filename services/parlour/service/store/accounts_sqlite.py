"""The account store on the SQLite file of ``sqlite.SqliteEventStore``: its connections,
its worker threads and its serialized writers (handed in by the event store)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from parlour.service.domain.statuses import TableStatus
from parlour.service.store.accounts import (
    AccountRow,
    AccountStore,
    AlreadyNamed,
    HeldSeat,
    NameTaken,
    SessionRow,
)
from parlour.service.store.schema import accounts, devices, seats, sessions, tables
from parlour.service.store.values import utcnow

Call = Callable[..., Awaitable[Any]]
Write = Callable[[], AbstractContextManager[sa.Connection]]


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands timestamps back naive; everything the store writes is UTC."""
    return None if moment is None else moment.replace(tzinfo=moment.tzinfo or UTC)


class SqliteAccounts(AccountStore):
    """:class:`AccountStore` with the SQLite event store's ``call``, ``write`` and reader."""

    def __init__(self, call: Call, write: Write, reader: sa.Engine) -> None:
        self._call = call
        self._write = write
        self._reader = reader

    async def _rows(self, query: Any) -> list[Any]:
        def rows() -> list[Any]:
            with self._reader.connect() as conn:
                return list(conn.execute(query).mappings())

        return list(await self._call(rows))

    async def _one_account(self, query: Any) -> AccountRow | None:
        rows = await self._rows(query)
        return _account(rows[0]) if rows else None

    async def device_account(self, device_hash: str) -> AccountRow | None:
        query = (
            sa.select(accounts)
            .join(devices, devices.c.account_id == accounts.c.account_id)
            .where(devices.c.device_hash == device_hash)
        )
        return await self._one_account(query)

    async def create_guest(self, account: AccountRow, device_hash: str) -> AccountRow:
        def create() -> bool:
            try:
                with self._write() as conn:
                    conn.execute(accounts.insert(), vars(account))
                    conn.execute(
                        devices.insert(),
                        {
                            "device_hash": device_hash,
                            "account_id": account.account_id,
                            "created_at": account.created_at,
                        },
                    )
                return True
            except sa_exc.IntegrityError:
                return False

        if await self._call(create):
            return account
        found = await self.device_account(device_hash)
        assert found is not None, "a device clash without the device"
        return found

    async def bind_device(self, device_hash: str, account_id: str, now: datetime) -> None:
        def bind() -> None:
            with self._write() as conn:
                conn.execute(devices.delete().where(devices.c.device_hash == device_hash))
                conn.execute(
                    devices.insert(),
                    {"device_hash": device_hash, "account_id": account_id, "created_at": now},
                )

        await self._call(bind)

    async def get_account(self, account_id: str) -> AccountRow | None:
        return await self._one_account(
            sa.select(accounts).where(accounts.c.account_id == account_id)
        )

    async def find_name(self, name_key: str) -> AccountRow | None:
        return await self._one_account(sa.select(accounts).where(accounts.c.name_key == name_key))

    async def claim_name(
        self, account_id: str, name: str, name_key: str, password_hash: str
    ) -> AccountRow:
        update = (
            accounts.update()
            .where(accounts.c.account_id == account_id, accounts.c.name_key.is_(None))
            .values(name=name, name_key=name_key, password_hash=password_hash)
        )

        def claim() -> int:
            try:
                with self._write() as conn:
                    return int(conn.execute(update).rowcount)
            except sa_exc.IntegrityError as error:
                raise NameTaken(name) from error

        if await self._call(claim) != 1:
            raise AlreadyNamed(f"account {account_id} already has a name")
        named = await self.get_account(account_id)
        assert named is not None
        return named

    async def add_session(self, session: SessionRow, token_hash: str) -> None:
        def add() -> None:
            with self._write() as conn:
                conn.execute(sessions.insert(), {**vars(session), "token_hash": token_hash})

        await self._call(add)

    async def live_session(self, token_hash: str, now: datetime) -> SessionRow | None:
        query = sa.select(sessions).where(
            sessions.c.token_hash == token_hash,
            sessions.c.revoked_at.is_(None),
            sessions.c.expires_at > now,
        )
        rows = await self._rows(query)
        return _session(rows[0]) if rows else None

    async def revoke_session(self, account_id: str, session_id: str, now: datetime) -> bool:
        update = (
            sessions.update()
            .where(
                sessions.c.session_id == session_id,
                sessions.c.account_id == account_id,
                sessions.c.revoked_at.is_(None),
                sessions.c.expires_at > now,
            )
            .values(revoked_at=now)
        )

        def revoke() -> bool:
            with self._write() as conn:
                device = conn.execute(
                    sa.select(sessions.c.device_hash).where(sessions.c.session_id == session_id)
                ).scalar()
                if not conn.execute(update).rowcount:
                    return False
                if device is not None:
                    conn.execute(
                        devices.delete().where(
                            devices.c.device_hash == device, devices.c.account_id == account_id
                        )
                    )
                return True

        return bool(await self._call(revoke))

    async def live_sessions(self, account_id: str, now: datetime) -> list[SessionRow]:
        query = (
            sa.select(sessions)
            .where(
                sessions.c.account_id == account_id,
                sessions.c.revoked_at.is_(None),
                sessions.c.expires_at > now,
            )
            .order_by(sessions.c.created_at.desc(), sessions.c.session_id)
        )
        return [_session(row) for row in await self._rows(query)]

    async def count_hosted(self, account_id: str, status: TableStatus) -> int:
        query = sa.select(sa.func.count()).where(
            tables.c.host_account_id == account_id, tables.c.status == str(status)
        )
        return await self._count(query)

    async def _count(self, query: Any) -> int:
        def count() -> int:
            with self._reader.connect() as conn:
                return int(conn.execute(query).scalar_one())

        return int(await self._call(count))

    async def count_seated(self, account_id: str, status: TableStatus) -> int:
        query = (
            sa.select(sa.func.count(sa.distinct(seats.c.table_id)))
            .join(tables, tables.c.table_id == seats.c.table_id)
            .where(seats.c.account_id == account_id, tables.c.status == str(status))
        )
        return await self._count(query)

    async def held_seats(
        self, account_id: str, statuses: Sequence[TableStatus], limit: int = 100
    ) -> list[HeldSeat]:
        query = (
            sa.select(
                tables.c.table_id,
                tables.c.game,
                tables.c.name,
                seats.c.seat,
                tables.c.status,
                tables.c.host_account_id,
                tables.c.created_at,
            )
            .join(tables, tables.c.table_id == seats.c.table_id)
            .where(
                seats.c.account_id == account_id,
                tables.c.status.in_([str(status) for status in statuses]),
            )
            .order_by(tables.c.created_at.desc(), tables.c.table_id, seats.c.seat)
            .limit(limit)
        )
        return [
            HeldSeat(
                row["table_id"],
                row["game"],
                row["name"],
                row["seat"],
                TableStatus(row["status"]),
                row["host_account_id"] == account_id,
                _aware(row["created_at"]) or utcnow(),
            )
            for row in await self._rows(query)
        ]


def _account(row: Any) -> AccountRow:
    return AccountRow(**{**row, "created_at": _aware(row["created_at"])})


def _session(row: Any) -> SessionRow:
    fields = {key: value for key, value in row.items() if key != "token_hash"}
    for name in ("created_at", "expires_at", "revoked_at"):
        fields[name] = _aware(fields[name])
    return SessionRow(**fields)
