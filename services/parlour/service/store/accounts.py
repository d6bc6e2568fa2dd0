"""The account store: accounts, their devices and sessions, and the seats they hold.

Each event store carries one (``EventStore.accounts``), on the same database
and connections: ``accounts_memory.py``, ``accounts_sqlite.py``,
``accounts_postgres.py``; the same contract test runs against all three
(``tests/service/test_account_store.py``). Secrets are never stored: a
device secret and a session token are kept as their SHA-256 digests, a
password as its argon2id hash (``app/accounts.py`` makes them).

Also here are the per-account counts the caps of a public server need (open
tables an account hosts, open tables it sits at) and the seats an account
holds, read from the lobby projections by ``ix_tables_host_account`` and
``ix_seats_account``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from parlour.service.domain.statuses import TableStatus
from parlour.service.store.values import StoreError


@dataclass(frozen=True)
class AccountRow:
    """An account: a guest until it has a name (and a password)."""

    account_id: str
    created_at: datetime
    name: str | None = None
    #: the name's NFKC casefold: what uniqueness is decided on
    name_key: str | None = None
    password_hash: str | None = None


@dataclass(frozen=True)
class SessionRow:
    """A session of an account (its token only as a digest, kept by the store)."""

    session_id: str
    account_id: str
    method: str  # "device" or "password"
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None = None
    #: the digest of the device that opened it (every device session, and a password
    #: session given a device secret); None for a session from no device
    device_hash: str | None = None


@dataclass(frozen=True)
class HeldSeat:
    """A seat an account holds at a table."""

    table_id: str
    game: str
    table_name: str
    seat: int
    status: TableStatus
    host: bool
    created_at: datetime


class NameTaken(StoreError):
    """Another account has this name (compared by its casefold)."""


class AlreadyNamed(StoreError):
    """The account has a name already."""


class AccountStore(ABC):
    """Accounts, devices, sessions and the per-account counts (see the module doc)."""

    @abstractmethod
    async def device_account(self, device_hash: str) -> AccountRow | None:
        """The account the device belongs to, or None for a device never seen."""

    @abstractmethod
    async def create_guest(self, account: AccountRow, device_hash: str) -> AccountRow:
        """Make ``account`` and bind the device to it, in one transaction; if the device
        was bound meanwhile (a race), nothing is made and its account is answered."""

    @abstractmethod
    async def bind_device(self, device_hash: str, account_id: str, now: datetime) -> None:
        """Make (or move) the device sign in to ``account_id`` from now on."""

    @abstractmethod
    async def get_account(self, account_id: str) -> AccountRow | None:
        """The account, or None."""

    @abstractmethod
    async def find_name(self, name_key: str) -> AccountRow | None:
        """The account with this name key, or None."""

    @abstractmethod
    async def claim_name(
        self, account_id: str, name: str, name_key: str, password_hash: str
    ) -> AccountRow:
        """Name a guest account; :class:`NameTaken` if another has the name,
        :class:`AlreadyNamed` if this one has one already (nothing written)."""

    @abstractmethod
    async def add_session(self, session: SessionRow, token_hash: str) -> None:
        """Record a new session under the digest of its token."""

    @abstractmethod
    async def live_session(self, token_hash: str, now: datetime) -> SessionRow | None:
        """The session with this token digest if it is neither expired nor revoked."""

    @abstractmethod
    async def revoke_session(self, account_id: str, session_id: str, now: datetime) -> bool:
        """Revoke one live session of the account and, in the same transaction, unbind
        the device that opened it from the account (its next AuthenticateDevice is a new
        guest: a revoked device cannot sign itself back in); False if the account has no
        live session with that id (nothing changed)."""

    @abstractmethod
    async def live_sessions(self, account_id: str, now: datetime) -> list[SessionRow]:
        """The account's live sessions, newest first."""

    @abstractmethod
    async def count_hosted(self, account_id: str, status: TableStatus) -> int:
        """How many tables with ``status`` the account hosts."""

    @abstractmethod
    async def count_seated(self, account_id: str, status: TableStatus) -> int:
        """At how many tables with ``status`` the account holds a seat."""

    @abstractmethod
    async def held_seats(
        self, account_id: str, statuses: Sequence[TableStatus], limit: int = 100
    ) -> list[HeldSeat]:
        """The account's seats at tables with one of ``statuses``, newest table first."""
