"""Who may sit and watch: the host's moderation and the per-account caps (issue 30).

* Invite-only seats: the host asks for them (``SeatChoice.invite_only``);
  each gets a code (128 random bits) that only the invitation carries; the
  seat row and TableHosted keep its SHA-256. JoinTable takes such a seat
  only with its code; a seat without one is open to anyone.
* Removing a person before the start (:meth:`Moderation.remove_from_seat`):
  the seat reopens (``SeatRemoved``), the account may not sit at the table
  again; a person without an account cannot be told apart from a stranger,
  so from then on the table seats only signed-in callers.
* Spectators: the table option ``spectators`` (``domain/table_options.py``).
* Caps: a signed-in caller may host at most ``max_open_tables`` open tables
  and sit at ``max_open_seats`` open tables (store counts; a race of two
  requests from one account may pass the cap by one: the count and the
  write are not one transaction), and hold one seat per table.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

from parlour.service.app import auth
from parlour.service.app.accounts import name_key
from parlour.service.app.seating import Credentials, check_host, pick_seat, require_open
from parlour.service.app.tables import Tables, Unit
from parlour.service.domain.errors import (
    AccountCapReached,
    BadRequest,
    NameOwned,
    NoSpectators,
    OnlyInvitedSeatsFree,
    RemovedByHost,
    SeatNeedsCode,
    SignedInOnly,
    WrongSeatCode,
    WrongTableState,
)
from parlour.service.domain.events import SeatRemoved
from parlour.service.domain.fold import Folded
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.domain.table_options import spectators_allowed
from parlour.service.store.protocol import AccountStore, SeatRow, TableRow

#: the per-account caps unless the server sets others
DEFAULT_MAX_OPEN_TABLES = 5
DEFAULT_MAX_OPEN_SEATS = 10


def new_seat_code() -> str:
    """A fresh invite-only seat's code (128 random bits)."""
    return secrets.token_urlsafe(16)


def pick_for_join(rows: list[SeatRow], wanted: int | None, seats: int, code: str) -> int:
    """The seat a join takes: the code's seat (``wanted`` must agree), else ``wanted`` or
    the lowest free seat open to anyone."""
    if len(code) > 64:
        raise BadRequest(f"a seat code has at most 64 characters, not {len(code)}")
    if code:
        given = auth.token_hash(code)
        matches = [
            row.seat for row in rows if row.code_hash and hmac.compare_digest(row.code_hash, given)
        ]
        if not matches:
            raise WrongSeatCode("that seat code opens no seat at this table")
        seat = matches[0]
        if wanted is not None and wanted != seat:
            raise WrongSeatCode(f"that seat code is for seat {seat}, not seat {wanted}")
        return pick_seat(rows, seat, seats)
    if wanted is None:
        open_rows = [row for row in rows if not row.code_hash]
        if not any(r.kind == SeatKind.PERSON and not r.occupied for r in open_rows) and any(
            r.kind == SeatKind.PERSON and not r.occupied for r in rows
        ):
            raise OnlyInvitedSeatsFree(
                "no free seat open to anyone: the free ones are kept for invited players"
            )
        return pick_seat(open_rows, None, seats)
    taken = pick_seat(rows, wanted, seats)
    if rows[taken].code_hash:
        raise SeatNeedsCode(f"seat {taken} is kept for an invited player; it needs its seat code")
    return taken


def check_may_sit(folded: Folded, table: TableRow, credentials: Credentials) -> None:
    """Refuse a caller the host removed, an anonymous caller where the table seats only
    signed-in ones, and a second seat for one account."""
    account = credentials.account_id
    if account is not None and account in folded.barred_accounts:
        raise RemovedByHost(
            f"the host removed you from table {table.table_id}; you may not sit there again"
        )
    if account is None and folded.anonymous_barred:
        raise SignedInOnly(
            f"table {table.table_id} seats only signed-in players since its host removed "
            "one without an account (AccountService.AuthenticateDevice)"
        )
    if account is not None:
        for row in table.seat_rows:
            if row.account_id == account:
                raise WrongTableState(f"you already hold seat {row.seat} at this table")


def check_spectator(table: TableRow) -> None:
    """Refuse a view without a seat at a table closed to spectators."""
    if not spectators_allowed(table.options):
        raise NoSpectators(f"table {table.table_id} allows no spectators; ask for a seat's view")


async def check_seat_name(store: AccountStore, name: str, credentials: Credentials) -> None:
    """Refuse a seat name that is another account's claimed name (no one passes for Ada
    but Ada's account; a signed-in account's seat shows its own name anyway)."""
    if credentials.account_name is not None:
        return
    owner = await store.find_name(name_key(name))
    if owner is not None and owner.account_id != credentials.account_id:
        raise NameOwned(f"the name {name!r} belongs to a signed-in player; choose another")


@dataclass(frozen=True)
class AccountCaps:
    """The per-account caps, counted in the store (see the module doc)."""

    store: AccountStore
    max_open_tables: int = DEFAULT_MAX_OPEN_TABLES
    max_open_seats: int = DEFAULT_MAX_OPEN_SEATS

    async def check_hosting(self, account_id: str | None, *, takes_seat: bool) -> None:
        """Refuse one more open table (and seat) for the account at its caps."""
        if account_id is None:
            return
        hosted = await self.store.count_hosted(account_id, TableStatus.OPEN)
        if hosted >= self.max_open_tables:
            raise AccountCapReached(
                f"this account hosts {hosted} open tables, the most it may "
                f"(max_open_tables_per_account = {self.max_open_tables}); start or "
                "leave one first"
            )
        if takes_seat:
            await self.check_seating(account_id)

    async def check_seating(self, account_id: str | None) -> None:
        """Refuse a seat at one more open table for the account at its cap."""
        if account_id is None:
            return
        seated = await self.store.count_seated(account_id, TableStatus.OPEN)
        if seated >= self.max_open_seats:
            raise AccountCapReached(
                f"this account sits at {seated} open tables, the most it may "
                f"(max_open_seats_per_account = {self.max_open_seats}); leave one first"
            )


class Moderation:
    """The host's say over who sits at the table."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def remove_from_seat(self, table_id: str, seat: int, credentials: Credentials) -> None:
        """Free ``seat`` before the start and bar its person from the table."""

        async def remove(unit: Unit) -> None:
            table = await self.tables.get_table(table_id)
            check_host(table, credentials)
            require_open(table, "remove a player")
            if not 0 <= seat < table.seats:
                raise BadRequest(
                    f"table {table_id} has seats 0 to {table.seats - 1}, not seat {seat}"
                )
            row = table.seat_rows[seat]
            if row.kind != SeatKind.PERSON or not row.occupied:
                raise WrongTableState(f"seat {seat} holds no person to remove")
            await unit.commit(
                [SeatRemoved(seat, row.account_id).new()],
                applied=False,
                seat_updates=[row.freed()],
            )

        await self.tables.run(
            table_id, remove, lost="the table changed while removing a player; try again"
        )
