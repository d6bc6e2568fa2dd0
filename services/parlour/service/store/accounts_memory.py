"""The account store in this process's memory (beside ``memory.MemoryEventStore``).

Plain dictionaries under the memory store's one lock, with the SQL stores'
semantics (the contract test runs on all three): a device, a name key and a
token digest are unique; a revoked or expired session is not live.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from parlour.service.domain.statuses import TableStatus
from parlour.service.store.accounts import (
    AccountRow,
    AccountStore,
    AlreadyNamed,
    HeldSeat,
    NameTaken,
    SessionRow,
)
from parlour.service.store.values import SeatRow, TableRow


@dataclass
class AccountMemory:
    """What a memory store holds of accounts; the replicas of one memory share it."""

    accounts: dict[str, AccountRow] = field(default_factory=dict)
    #: name key -> account id
    names: dict[str, str] = field(default_factory=dict)
    #: device digest -> account id
    devices: dict[str, str] = field(default_factory=dict)
    sessions: dict[str, SessionRow] = field(default_factory=dict)
    #: token digest -> session id
    tokens: dict[str, str] = field(default_factory=dict)


class MemoryAccounts(AccountStore):
    """:class:`AccountStore` over a memory store's dictionaries."""

    def __init__(
        self,
        lock: threading.Lock,
        memory: AccountMemory,
        tables: dict[str, TableRow],
        seats: dict[str, dict[int, SeatRow]],
    ) -> None:
        self._lock = lock
        self._memory = memory
        self._tables = tables
        self._seats = seats

    async def device_account(self, device_hash: str) -> AccountRow | None:
        with self._lock:
            account_id = self._memory.devices.get(device_hash)
            return None if account_id is None else self._memory.accounts[account_id]

    async def create_guest(self, account: AccountRow, device_hash: str) -> AccountRow:
        with self._lock:
            found = self._memory.devices.get(device_hash)
            if found is not None:
                return self._memory.accounts[found]
            self._memory.accounts[account.account_id] = account
            self._memory.devices[device_hash] = account.account_id
            return account

    async def bind_device(self, device_hash: str, account_id: str, now: datetime) -> None:
        with self._lock:
            self._memory.devices[device_hash] = account_id

    async def get_account(self, account_id: str) -> AccountRow | None:
        with self._lock:
            return self._memory.accounts.get(account_id)

    async def find_name(self, name_key: str) -> AccountRow | None:
        with self._lock:
            account_id = self._memory.names.get(name_key)
            return None if account_id is None else self._memory.accounts[account_id]

    async def claim_name(
        self, account_id: str, name: str, name_key: str, password_hash: str
    ) -> AccountRow:
        with self._lock:
            account = self._memory.accounts[account_id]
            if account.name_key is not None:
                raise AlreadyNamed(f"account {account_id} already has a name")
            if name_key in self._memory.names:
                raise NameTaken(name)
            named = replace(account, name=name, name_key=name_key, password_hash=password_hash)
            self._memory.accounts[account_id] = named
            self._memory.names[name_key] = account_id
            return named

    async def add_session(self, session: SessionRow, token_hash: str) -> None:
        with self._lock:
            self._memory.sessions[session.session_id] = session
            self._memory.tokens[token_hash] = session.session_id

    async def live_session(self, token_hash: str, now: datetime) -> SessionRow | None:
        with self._lock:
            session_id = self._memory.tokens.get(token_hash)
            session = None if session_id is None else self._memory.sessions[session_id]
        return session if session is not None and _live(session, now) else None

    async def revoke_session(self, account_id: str, session_id: str, now: datetime) -> bool:
        with self._lock:
            session = self._memory.sessions.get(session_id)
            if session is None or session.account_id != account_id or not _live(session, now):
                return False
            self._memory.sessions[session_id] = replace(session, revoked_at=now)
            device = session.device_hash
            if device is not None and self._memory.devices.get(device) == account_id:
                del self._memory.devices[device]
            return True

    async def live_sessions(self, account_id: str, now: datetime) -> list[SessionRow]:
        with self._lock:
            found = [
                session
                for session in self._memory.sessions.values()
                if session.account_id == account_id and _live(session, now)
            ]
        found.sort(key=lambda session: session.session_id)
        found.sort(key=lambda session: session.created_at, reverse=True)
        return found

    async def count_hosted(self, account_id: str, status: TableStatus) -> int:
        with self._lock:
            return sum(
                1
                for table in self._tables.values()
                if table.host_account_id == account_id and table.status == status
            )

    async def count_seated(self, account_id: str, status: TableStatus) -> int:
        with self._lock:
            return sum(
                1
                for table_id, table in self._tables.items()
                if table.status == status
                and any(row.account_id == account_id for row in self._seats[table_id].values())
            )

    async def held_seats(
        self, account_id: str, statuses: Sequence[TableStatus], limit: int = 100
    ) -> list[HeldSeat]:
        with self._lock:
            held = [
                HeldSeat(
                    table_id,
                    table.game,
                    table.name,
                    row.seat,
                    table.status,
                    table.host_account_id == account_id,
                    table.created_at,
                )
                for table_id, table in self._tables.items()
                if table.status in statuses
                for row in self._seats[table_id].values()
                if row.account_id == account_id
            ]
        held.sort(key=lambda seat: (seat.table_id, seat.seat))
        held.sort(key=lambda seat: seat.created_at, reverse=True)
        return held[:limit]


def _live(session: SessionRow, now: datetime) -> bool:
    return session.revoked_at is None and session.expires_at > now
