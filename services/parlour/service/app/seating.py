"""The lobby's values and seat rules: who may sit where, who may act for a seat,
and the names shown.

Kept apart from the use cases (``lobby.py``, ``play.py``, ``duties.py``) so
they stay short; ``parlour.py`` re-exports :class:`Credentials` and
:class:`SeatChoice`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from parlour.engine.registry import GameInfo
from parlour.service.app import auth
from parlour.service.domain.errors import BadRequest, WrongTableState, WrongToken
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import SeatRow, TableRow

MAX_NAME = 40


@dataclass(frozen=True)
class Credentials:
    """The tokens a call carried in its metadata (None when absent)."""

    seat_token: str | None = None
    host_token: str | None = None
    worker_token: str | None = None
    worker_id: str | None = None  # the AI worker's name, to check its lease on a bot turn
    #: the caller's account, once the session in the call's metadata was checked
    #: (``Parlour.identify``); None without a session
    account_id: str | None = None
    #: the account's claimed name (None: a guest, or no session)
    account_name: str | None = None


@dataclass(frozen=True)
class SeatChoice:
    """The host's choice for one seat: a person or a bot of some level (a kind the
    request named that is neither stays a string, refused by :func:`seat_row`)."""

    kind: SeatKind | str = SeatKind.PERSON
    bot_level: str = ""
    #: a person's seat kept for an invited player (it gets a seat code)
    invite_only: bool = False


@dataclass(frozen=True)
class Hosted:
    """What hosting answers: the table, the host's token and the host's seat, if taken."""

    table: TableRow
    host_token: str
    seat: int | None
    seat_token: str
    #: seat -> the code of each invite-only seat (shown once)
    seat_codes: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Joined:
    """What joining answers: the seat taken, its token and the table after."""

    seat: int
    seat_token: str
    table: TableRow


def by_worker(credentials: Credentials) -> bool:
    """Whether the call is an AI worker's (its token, and no seat token)."""
    return bool(credentials.worker_token and not credentials.seat_token)


def check_seat(
    table: TableRow,
    seat: int,
    credentials: Credentials,
    worker_token_hash: str | None,
    away: frozenset[int] = frozenset(),
) -> SeatRow:
    """The seat's row, once ``credentials`` prove the caller may act for it (a worker
    acts for bot seats and for the seats of people who are away)."""
    if not 0 <= seat < table.seats:
        raise BadRequest(
            f"table {table.table_id} has seats 0 to {table.seats - 1}, not seat {seat}"
        )
    row = table.seat_rows[seat]
    if by_worker(credentials):
        if row.kind != SeatKind.BOT and seat not in away:
            raise WrongToken(
                f"a worker token acts only for bot seats; seat {seat} is a person's "
                "(send its seat token)"
            )
        auth.check_token(credentials.worker_token, worker_token_hash, "worker")
    elif not holds_seat(row, credentials):
        auth.check_token(credentials.seat_token, row.token_hash, f"seat {seat}")
    return row


def holds_seat(row: SeatRow, credentials: Credentials) -> bool:
    """Whether the call's session stands in for the seat's token: no seat token was sent
    and the seat was taken by the caller's account."""
    return bool(
        not credentials.seat_token
        and credentials.account_id
        and row.account_id == credentials.account_id
    )


def check_host(table: TableRow, credentials: Credentials) -> None:
    """The host token, or the session of the account that hosted the table."""
    if credentials.host_token or not (
        credentials.account_id and credentials.account_id == table.host_account_id
    ):
        auth.check_token(credentials.host_token, table.host_token_hash, "host")


def require_open(table: TableRow, doing: str) -> None:
    """Lobby changes are for open tables only."""
    if table.status != TableStatus.OPEN:
        raise WrongTableState(f"cannot {doing}: table {table.table_id} is {table.status}, not open")


def pick_seat(rows: list[SeatRow], wanted: int | None, seats: int) -> int:
    """The person seat to take: ``wanted`` if it is free, else the lowest free one."""
    if wanted is None:
        for row in rows:
            if row.kind == SeatKind.PERSON and not row.occupied:
                return row.seat
        raise WrongTableState("no free seat for a person at this table")
    if not 0 <= wanted < seats:
        raise BadRequest(f"the table has seats 0 to {seats - 1}, not seat {wanted}")
    row = rows[wanted]
    if row.kind != SeatKind.PERSON:
        raise WrongTableState(f"seat {wanted} is kept for a bot")
    if row.occupied:
        raise WrongTableState(f"seat {wanted} is taken by {row.player_name}")
    return wanted


def seat_row(seat: int, choice: SeatChoice) -> SeatRow:
    """The lobby row of a seat as the host set it up (a bot's seat is filled at once)."""
    if choice.kind == SeatKind.BOT:
        level = clean_name(choice.bot_level, f"seat {seat} bot_level", required=False)
        label = f"Bot {seat + 1}" + (f" ({level})" if level else "")
        return SeatRow(
            seat=seat, kind=SeatKind.BOT, bot_level=level or None, player_name=label, occupied=True
        )
    if choice.kind != SeatKind.PERSON:
        raise BadRequest(f"seat {seat}: kind must be person or bot, not {choice.kind!r}")
    return SeatRow(seat=seat, kind=SeatKind.PERSON)


def clean_name(name: str, field: str, *, required: bool) -> str:
    """A name with its whitespace tidied, refused if missing (when required) or too long."""
    cleaned = " ".join(name.split())
    if required and not cleaned:
        raise BadRequest(f"{field} is required")
    if len(cleaned) > MAX_NAME:
        raise BadRequest(f"{field} is longer than {MAX_NAME} characters")
    return cleaned


def default_name(host: str, info: GameInfo) -> str:
    """The default table name: "Ada's Wizard table" ("Wizard table" without a host name)."""
    return f"{host}'s {info.name} table" if host else f"{info.name} table"
