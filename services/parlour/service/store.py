"""The event store: an append-only log of each game's events plus the lobby projections.

A stored event is (game_id, seq, type, payload). The primary key on
(game_id, seq) is the optimistic-concurrency check: a writer appends at
``expected_seq + 1``, and of two writers that read the same version only one
can insert that row; the other gets :class:`ConcurrencyConflict` and nothing
of its append is written. Driver errors are translated into this module's
exceptions at this boundary (``raise ... from``), so callers never see
SQLAlchemy or psycopg types.

Postgres (``postgresql+psycopg://``) is the deployment backend; an SQLite file
is the embedded default. On SQLite writers are serialized (a process-wide lock
per database file plus ``BEGIN IMMEDIATE`` and a busy timeout across
processes), so a lost race still ends in the primary-key check, never in
"database is locked". On Postgres the append also sends
``NOTIFY parlour_events, '<game_id>:<seq>'`` so other replicas wake their
waiters (see ``notify.py``).

All methods are synchronous and thread-safe; the gRPC layer calls them from
worker threads, except on Postgres for the statements every move makes (the
append, the read of new events, the table): ``append_async``, ``read_async``
and ``get_table_async`` send those from the event loop itself, in one
statement each, through psycopg without SQLAlchemy (see ``store_pg.py``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NoReturn

import psycopg
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite

from parlour.service.store_pg import AsyncPostgresHotPath, PostgresHotPath, VersionMoved
from parlour.service.store_schema import bot_leases, events, seats, tables

log = logging.getLogger(__name__)

#: the repository's migrations, beside the (editable-installed) package
MIGRATIONS_DIR = Path(__file__).resolve().parents[3] / "migrations"
NOTIFY_CHANNEL = "parlour_events"
SQLITE_BUSY_TIMEOUT_MS = 10_000


def utcnow() -> datetime:
    return datetime.now(UTC)


# --- values --------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended; the store gives it its seq."""

    type: str
    payload: dict[str, Any]
    digest: str = ""
    schema_version: int = 1


@dataclass(frozen=True)
class StoredEvent:
    """An event as recorded in a game's log."""

    game_id: str
    seq: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    digest: str
    request_id: str | None
    created_at: datetime


@dataclass(frozen=True)
class SeatRow:
    """One seat of a table as the lobby sees it."""

    seat: int
    kind: str  # 'person' or 'bot'
    bot_level: str | None = None
    player_name: str | None = None
    token_hash: str | None = None  # sha256 hex of the seat token
    occupied: bool = False


@dataclass(frozen=True)
class TableRow:
    """A table in the lobby: the projection of its events."""

    table_id: str
    game: str
    seats: int
    options: dict[str, Any]
    status: str  # 'open', 'playing' or 'finished'
    host_token_hash: str
    version: int  # seq of the table's last event
    name: str
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    seat_rows: tuple[SeatRow, ...] = ()


@dataclass(frozen=True)
class Lease:
    """One worker's claim on a bot seat's turn at ``version``, until ``expires_at``."""

    table_id: str
    seat: int
    worker_id: str
    version: int
    expires_at: datetime


class StoreError(Exception):
    """Base of the store's own errors."""


class ConcurrencyConflict(StoreError):
    """Another writer took the (game_id, seq) this append expected to be free."""


class DuplicateRequest(StoreError):
    """The request_id was already used for this game; ``first_seq`` is what it produced."""

    def __init__(self, game_id: str, request_id: str, first_seq: int) -> None:
        super().__init__(f"request {request_id!r} already produced event {first_seq} of {game_id}")
        self.game_id = game_id
        self.request_id = request_id
        self.first_seq = first_seq


class UnknownTable(StoreError):
    """No table has this id."""


class _VersionMoved(Exception):
    """The guarded version bump matched no row (rolls the transaction back)."""


# --- pre-built statements (compiled once per dialect by SQLAlchemy's cache) ----------------

_INSERT_EVENT = events.insert()
_READ_AFTER = (
    sa.select(events)
    .where(events.c.game_id == sa.bindparam("g"), events.c.seq > sa.bindparam("after"))
    .order_by(events.c.seq)
)
_READ_RANGE = _READ_AFTER.where(events.c.seq <= sa.bindparam("upto"))
_LAST_SEQ = sa.select(sa.func.coalesce(sa.func.max(events.c.seq), 0)).where(
    events.c.game_id == sa.bindparam("g")
)
_FIND_REQUEST = sa.select(events.c.seq).where(
    events.c.game_id == sa.bindparam("g"), events.c.request_id == sa.bindparam("r")
)
# The version bump doubles as a second guard: it only matches when the table
# is still at expected_seq, so an append cannot leave a gap in the log either.
_BUMP_VERSION = (
    tables.update()
    .where(tables.c.table_id == sa.bindparam("g"), tables.c.version == sa.bindparam("expected"))
    .values(
        version=sa.bindparam("new_version"),
        updated_at=sa.bindparam("now"),
        status=sa.func.coalesce(sa.bindparam("new_status", type_=sa.Text), tables.c.status),
    )
)
# On Postgres the NOTIFY rides on the same statement (no extra round trip); it
# is delivered only if the transaction commits.
_BUMP_VERSION_AND_NOTIFY = _BUMP_VERSION.returning(
    sa.func.pg_notify(
        NOTIFY_CHANNEL,
        sa.cast(sa.bindparam("g"), sa.Text) + ":" + sa.cast(sa.bindparam("new_version"), sa.Text),
    )
)
_TOUCH_TABLE = (
    tables.update()
    .where(tables.c.table_id == sa.bindparam("g"))
    .values(updated_at=sa.bindparam("now"))
)
_TABLE_EXISTS = sa.select(tables.c.table_id).where(tables.c.table_id == sa.bindparam("g"))
_RELEASE_LEASE = bot_leases.delete().where(
    bot_leases.c.table_id == sa.bindparam("t"), bot_leases.c.seat == sa.bindparam("s")
)

_SQLITE_WRITE_LOCKS: dict[str, threading.Lock] = {}
_SQLITE_WRITE_LOCKS_GUARD = threading.Lock()


def _sqlite_write_lock(key: str) -> threading.Lock:
    with _SQLITE_WRITE_LOCKS_GUARD:
        return _SQLITE_WRITE_LOCKS.setdefault(key, threading.Lock())


def normalize_url(url: str) -> sa.URL:
    """Parse a database URL; a bare ``postgresql://`` means psycopg 3."""
    parsed = sa.make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back naive; everything the store writes is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# --- the store -----------------------------------------------------------------------------


class EventStore:
    """Games' event logs and the lobby projections over one database."""

    def __init__(self, url: str, *, pool_size: int = 10, echo: bool = False) -> None:
        parsed = normalize_url(url)
        self.url: str = parsed.render_as_string(hide_password=False)
        self.is_postgres: bool = parsed.get_backend_name() == "postgresql"
        self._listeners: list[Callable[[str, int], None]] = []
        if self.is_postgres:
            self._engine = sa.create_engine(
                parsed, pool_size=pool_size, max_overflow=2 * pool_size, echo=echo
            )
            self._writer = self._engine
            # single-statement reads skip the BEGIN and ROLLBACK round trips
            self._reader = self._engine.execution_options(isolation_level="AUTOCOMMIT")
            self._write_lock: threading.Lock | None = None
            self._upsert: Any = postgresql.insert
            self._bump: sa.Update = _BUMP_VERSION_AND_NOTIFY
            # the append and read of every move skip SQLAlchemy (see store_pg.py)
            libpq = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
            self._hot: PostgresHotPath | None = PostgresHotPath(libpq, pool_size, NOTIFY_CHANNEL)
            self._hot_async: AsyncPostgresHotPath | None = AsyncPostgresHotPath(
                libpq, pool_size, NOTIFY_CHANNEL
            )
        else:
            self._engine = self._sqlite_engine(parsed, pool_size, echo)
            # every write transaction starts with BEGIN IMMEDIATE (see _sqlite_engine)
            self._writer = self._engine.execution_options(parlour_write=True)
            self._reader = self._engine.execution_options(parlour_autocommit=True)
            self._write_lock = _sqlite_write_lock(str(Path(parsed.database or "").resolve()))
            self._upsert = sqlite.insert
            self._bump = _BUMP_VERSION
            self._hot = None
            self._hot_async = None
        self._upsert_seat = self._build_seat_upsert()
        self._claim_lease = self._build_lease_claim()

    @staticmethod
    def _sqlite_engine(url: sa.URL, pool_size: int, echo: bool) -> sa.Engine:
        if (url.database or ":memory:") == ":memory:":
            raise ValueError("an in-memory SQLite database cannot be shared; use a file")
        engine = sa.create_engine(
            url,
            pool_size=pool_size,
            max_overflow=2 * pool_size,
            echo=echo,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        )

        @sa.event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            # Take transaction control away from the sqlite3 module so that
            # BEGIN is ours (IMMEDIATE for writes, see _on_begin).
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # NORMAL is durable against crashes of the process in WAL mode;
            # only a power cut can lose the last commits.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @sa.event.listens_for(engine, "begin")
        def _on_begin(connection: sa.Connection) -> None:
            # A write that started DEFERRED could fail with SQLITE_BUSY when it
            # upgrades its lock; IMMEDIATE takes the write lock up front.
            options = connection.get_execution_options()
            if options.get("parlour_autocommit"):
                return  # a lone SELECT needs no transaction around it
            connection.exec_driver_sql(
                "BEGIN IMMEDIATE" if options.get("parlour_write") else "BEGIN"
            )

        return engine

    def _build_seat_upsert(self) -> Any:
        stmt = self._upsert(seats)
        return stmt.on_conflict_do_update(
            index_elements=[seats.c.table_id, seats.c.seat],
            set_={
                name: stmt.excluded[name]
                for name in ("kind", "bot_level", "player_name", "token_hash", "occupied")
            },
        )

    def _build_lease_claim(self) -> Any:
        stmt = self._upsert(bot_leases)
        # Take the lease when nobody holds it, it has expired, we hold it
        # (renewal), or it was for an earlier version (that turn is over).
        return stmt.on_conflict_do_update(
            index_elements=[bot_leases.c.table_id, bot_leases.c.seat],
            set_={
                "worker_id": stmt.excluded.worker_id,
                "version": stmt.excluded.version,
                "expires_at": stmt.excluded.expires_at,
            },
            where=sa.or_(
                bot_leases.c.expires_at <= sa.bindparam("now"),
                bot_leases.c.worker_id == stmt.excluded.worker_id,
                bot_leases.c.version < stmt.excluded.version,
            ),
        ).returning(bot_leases.c.table_id)

    @contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """One write transaction; commits on success, rolls back on any error."""
        if self._write_lock is None:
            with self._writer.begin() as conn:
                yield conn
            return
        with self._write_lock, self._writer.begin() as conn:
            yield conn

    # --- schema ---------------------------------------------------------------------------

    def migrate(self) -> None:
        """Bring the schema up to the newest Alembic revision (alembic upgrade head)."""
        from alembic import command

        with self._write() as conn:
            if self.is_postgres:
                # Replicas starting together must not race to create the tables.
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(0x70A210)))
            config = alembic_config(self.url)
            config.attributes["connection"] = conn
            command.upgrade(config, "head")

    # --- listeners ------------------------------------------------------------------------

    def add_listener(self, listener: Callable[[str, int], None]) -> None:
        """Call ``listener(game_id, last_seq)`` after every committed append in this process."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[str, int], None]) -> None:
        self._listeners.remove(listener)

    def _announce(self, game_id: str, seq: int) -> None:
        for listener in list(self._listeners):
            try:
                listener(game_id, seq)
            except Exception:  # the append has committed; a listener cannot undo it
                log.exception("event listener failed for %s:%d", game_id, seq)

    # --- events ---------------------------------------------------------------------------

    def create_table(self, table: TableRow, first_events: list[NewEvent]) -> list[StoredEvent]:
        """Record a new table, its seats and its first events (seq 1..) in one transaction.

        The table's version is set to ``len(first_events)``. Raises
        :class:`ConcurrencyConflict` if the table id is already taken.
        """
        now = utcnow()
        rows = self._event_rows(table.table_id, 0, first_events, None, now)
        table_values = {
            "table_id": table.table_id,
            "game": table.game,
            "seats": table.seats,
            "options": table.options,
            "status": table.status,
            "host_token_hash": table.host_token_hash,
            "version": len(first_events),
            "name": table.name,
            "created_at": table.created_at,
            "updated_at": table.updated_at,
        }
        try:
            with self._write() as conn:
                conn.execute(tables.insert(), table_values)
                if table.seat_rows:
                    conn.execute(
                        self._upsert_seat, self._seat_params(table.table_id, table.seat_rows)
                    )
                if rows:
                    conn.execute(_INSERT_EVENT, rows)
                    if self.is_postgres:
                        conn.execute(
                            sa.select(
                                sa.func.pg_notify(NOTIFY_CHANNEL, f"{table.table_id}:{len(rows)}")
                            )
                        )
        except sa_exc.IntegrityError as error:
            raise ConcurrencyConflict(f"table {table.table_id!r} already exists") from error
        if rows:
            self._announce(table.table_id, len(rows))
        return [self._stored(row) for row in rows]

    def append(
        self,
        game_id: str,
        expected_seq: int,
        events: list[NewEvent],
        *,
        request_id: str | None = None,
        table_status: str | None = None,
        seat_updates: list[SeatRow] | None = None,
    ) -> list[StoredEvent]:
        """Append events at ``expected_seq + 1 ..`` in one transaction.

        Moves the table's version (and its status and seats, when given) in the
        same transaction. ``request_id`` is recorded on the first event and
        makes a retry harmless. Raises :class:`ConcurrencyConflict` when the
        game has moved past ``expected_seq``, :class:`DuplicateRequest` when the
        request was already applied, :class:`UnknownTable` for an unknown game;
        nothing is written when it raises.
        """
        if not events:
            raise ValueError("append needs at least one event")
        now = utcnow()
        rows = self._event_rows(game_id, expected_seq, events, request_id, now)
        last_seq = expected_seq + len(rows)
        bump = {
            "g": game_id,
            "expected": expected_seq,
            "new_version": last_seq,
            "now": now,
            "new_status": table_status,
        }
        if self._hot is not None and not seat_updates:
            self._append_hot(game_id, expected_seq, rows, request_id, table_status)
            self._announce(game_id, last_seq)
            return [self._stored(row) for row in rows]
        try:
            with self._write() as conn:
                conn.execute(_INSERT_EVENT, rows[0] if len(rows) == 1 else rows)
                if conn.execute(self._bump, bump).rowcount != 1:
                    raise _VersionMoved
                if seat_updates:
                    conn.execute(self._upsert_seat, self._seat_params(game_id, seat_updates))
        except sa_exc.IntegrityError as error:
            self._raise_duplicate(game_id, request_id, error)
            raise ConcurrencyConflict(
                f"{game_id} already has an event at seq {expected_seq + 1}"
            ) from error
        except _VersionMoved as error:
            self._raise_duplicate(game_id, request_id, error)
            if not self._table_exists(game_id):
                raise UnknownTable(game_id) from None
            raise ConcurrencyConflict(
                f"{game_id} is no longer at version {expected_seq}"
            ) from error
        self._announce(game_id, last_seq)
        return [self._stored(row) for row in rows]

    def _append_hot(
        self,
        game_id: str,
        expected_seq: int,
        rows: list[dict[str, Any]],
        request_id: str | None,
        table_status: str | None,
    ) -> None:
        """The Postgres append in one statement, with append's exceptions."""
        assert self._hot is not None
        try:
            self._hot.append(game_id, expected_seq, rows, table_status)
        except (psycopg.IntegrityError, VersionMoved) as error:
            self._refuse_append(game_id, expected_seq, request_id, error)

    def _refuse_append(
        self, game_id: str, expected_seq: int, request_id: str | None, error: Exception
    ) -> NoReturn:
        """Raise what a one-statement append that wrote nothing means for the caller."""
        self._raise_duplicate(game_id, request_id, error)
        if isinstance(error, VersionMoved):
            if not self._table_exists(game_id):
                raise UnknownTable(game_id) from None
            raise ConcurrencyConflict(
                f"{game_id} is no longer at version {expected_seq}"
            ) from error
        raise ConcurrencyConflict(
            f"{game_id} already has an event at seq {expected_seq + 1}"
        ) from error

    async def append_async(
        self,
        game_id: str,
        expected_seq: int,
        events: list[NewEvent],
        *,
        request_id: str | None = None,
        table_status: str | None = None,
    ) -> list[StoredEvent]:
        """:meth:`append` for the event loop's own thread (Postgres only).

        The statement is sent on an asyncio connection, with no thread hop; the
        rare refusal is explained (duplicate, unknown table, conflict) in a
        thread, with the same exceptions as :meth:`append`.
        """
        if self._hot_async is None:
            raise RuntimeError("append_async needs Postgres; call append in a thread")
        if not events:
            raise ValueError("append needs at least one event")
        rows = self._event_rows(game_id, expected_seq, events, request_id, utcnow())
        try:
            await self._hot_async.append(game_id, expected_seq, rows, table_status)
        except (psycopg.IntegrityError, VersionMoved) as error:
            await asyncio.to_thread(self._refuse_append, game_id, expected_seq, request_id, error)
        self._announce(game_id, expected_seq + len(rows))
        return [self._stored(row) for row in rows]

    async def read_async(
        self, game_id: str, after_seq: int = 0, upto_seq: int | None = None
    ) -> list[StoredEvent]:
        """:meth:`read` for the event loop's own thread (Postgres only; see append_async)."""
        if self._hot_async is None:
            raise RuntimeError("read_async needs Postgres; call read in a thread")
        return [
            StoredEvent(game_id, seq, kind, version, payload, digest, request, _aware(created))
            for seq, kind, version, payload, digest, request, created in await self._hot_async.read(
                game_id, after_seq, upto_seq
            )
        ]

    def _raise_duplicate(self, game_id: str, request_id: str | None, error: Exception) -> None:
        if request_id is None:
            return
        first_seq = self.find_request(game_id, request_id)
        if first_seq is not None:
            raise DuplicateRequest(game_id, request_id, first_seq) from error

    def read(
        self, game_id: str, after_seq: int = 0, upto_seq: int | None = None
    ) -> list[StoredEvent]:
        """The game's events with ``after_seq < seq <= upto_seq``, in order."""
        if self._hot is not None:
            return [
                StoredEvent(game_id, seq, kind, version, payload, digest, request, _aware(created))
                for seq, kind, version, payload, digest, request, created in self._hot.read(
                    game_id, after_seq, upto_seq
                )
            ]
        with self._reader.connect() as conn:
            if upto_seq is None:
                result = conn.execute(_READ_AFTER, {"g": game_id, "after": after_seq})
            else:
                result = conn.execute(
                    _READ_RANGE, {"g": game_id, "after": after_seq, "upto": upto_seq}
                )
            return [self._stored(row._mapping) for row in result]

    def last_seq(self, game_id: str) -> int:
        """The seq of the game's last event (0 when it has none)."""
        with self._reader.connect() as conn:
            return int(conn.execute(_LAST_SEQ, {"g": game_id}).scalar_one())

    def find_request(self, game_id: str, request_id: str) -> int | None:
        """The seq of the (first) event a request produced, or None."""
        with self._reader.connect() as conn:
            seq = conn.execute(_FIND_REQUEST, {"g": game_id, "r": request_id}).scalar()
            return None if seq is None else int(seq)

    @staticmethod
    def _event_rows(
        game_id: str,
        expected_seq: int,
        new_events: list[NewEvent],
        request_id: str | None,
        now: datetime,
    ) -> list[dict[str, Any]]:
        return [
            {
                "game_id": game_id,
                "seq": expected_seq + offset,
                "type": event.type,
                "schema_version": event.schema_version,
                "payload": event.payload,
                "digest": event.digest,
                # one row per request: the UNIQUE (game_id, request_id) guard
                "request_id": request_id if offset == 1 else None,
                "created_at": now,
            }
            for offset, event in enumerate(new_events, start=1)
        ]

    @staticmethod
    def _stored(row: Any) -> StoredEvent:
        return StoredEvent(
            game_id=row["game_id"],
            seq=row["seq"],
            type=row["type"],
            schema_version=row["schema_version"],
            payload=row["payload"],
            digest=row["digest"],
            request_id=row["request_id"],
            created_at=_aware(row["created_at"]),
        )

    # --- the lobby ------------------------------------------------------------------------

    def get_table(self, table_id: str) -> TableRow:
        """The table with its seats; raises :class:`UnknownTable`."""
        found = self._load_tables(sa.select(tables).where(tables.c.table_id == table_id))
        if not found:
            raise UnknownTable(table_id)
        return found[0]

    async def get_table_async(self, table_id: str) -> TableRow:
        """:meth:`get_table` for the event loop's own thread (Postgres only; one round trip)."""
        if self._hot_async is None:
            raise RuntimeError("get_table_async needs Postgres; call get_table in a thread")
        found = await self._hot_async.get_table(table_id)
        if found is None:
            raise UnknownTable(table_id)
        *columns, seat_rows = found
        table_id, game, seat_count, options, status, host, version, name, created, updated = columns
        return TableRow(
            table_id=table_id,
            game=game,
            seats=seat_count,
            options=options,
            status=status,
            host_token_hash=host,
            version=version,
            name=name,
            created_at=_aware(created),
            updated_at=_aware(updated),
            seat_rows=tuple(
                SeatRow(seat, kind, bot_level, player_name, token_hash, bool(occupied))
                for seat, kind, bot_level, player_name, token_hash, occupied in seat_rows
            ),
        )

    def list_tables(
        self,
        status: str | None = None,
        game: str | None = None,
        limit: int = 100,
        after: tuple[datetime, str] | None = None,
    ) -> list[TableRow]:
        """Tables, newest first (ties by id), optionally only those with this status
        and/or game, and only those after ``after`` = (created_at, table_id) in that order."""
        query = sa.select(tables).order_by(tables.c.created_at.desc(), tables.c.table_id)
        if status is not None:
            query = query.where(tables.c.status == status)
        if game is not None:
            query = query.where(tables.c.game == game)
        if after is not None:
            created, table_id = after
            query = query.where(
                sa.or_(
                    tables.c.created_at < created,
                    sa.and_(tables.c.created_at == created, tables.c.table_id > table_id),
                )
            )
        return self._load_tables(query.limit(limit))

    def update_seats(self, table_id: str, seat_rows: list[SeatRow]) -> None:
        """Replace these seats' rows (lobby changes that write no event)."""
        with self._write() as conn:
            if conn.execute(_TOUCH_TABLE, {"g": table_id, "now": utcnow()}).rowcount != 1:
                raise UnknownTable(table_id)
            if seat_rows:
                conn.execute(self._upsert_seat, self._seat_params(table_id, seat_rows))

    def _load_tables(self, query: sa.Select[Any]) -> list[TableRow]:
        with self._engine.connect() as conn:
            table_rows = conn.execute(query).mappings().all()
            if not table_rows:
                return []
            ids = [row["table_id"] for row in table_rows]
            seat_query = (
                sa.select(seats)
                .where(seats.c.table_id.in_(ids))
                .order_by(seats.c.table_id, seats.c.seat)
            )
            by_table: dict[str, list[SeatRow]] = {table_id: [] for table_id in ids}
            for row in conn.execute(seat_query).mappings():
                by_table[row["table_id"]].append(
                    SeatRow(
                        seat=row["seat"],
                        kind=row["kind"],
                        bot_level=row["bot_level"],
                        player_name=row["player_name"],
                        token_hash=row["token_hash"],
                        occupied=bool(row["occupied"]),
                    )
                )
        return [
            TableRow(
                table_id=row["table_id"],
                game=row["game"],
                seats=row["seats"],
                options=row["options"],
                status=row["status"],
                host_token_hash=row["host_token_hash"],
                version=row["version"],
                name=row["name"],
                created_at=_aware(row["created_at"]),
                updated_at=_aware(row["updated_at"]),
                seat_rows=tuple(by_table[row["table_id"]]),
            )
            for row in table_rows
        ]

    @staticmethod
    def _seat_params(
        table_id: str, seat_rows: list[SeatRow] | tuple[SeatRow, ...]
    ) -> list[dict[str, Any]]:
        return [
            {
                "table_id": table_id,
                "seat": row.seat,
                "kind": row.kind,
                "bot_level": row.bot_level,
                "player_name": row.player_name,
                "token_hash": row.token_hash,
                "occupied": row.occupied,
            }
            for row in seat_rows
        ]

    def _table_exists(self, table_id: str) -> bool:
        with self._reader.connect() as conn:
            return conn.execute(_TABLE_EXISTS, {"g": table_id}).first() is not None

    # --- bot leases -----------------------------------------------------------------------

    def claim_bot_turn(
        self, worker_id: str, lease_seconds: float, candidates: list[tuple[str, int, int]]
    ) -> tuple[str, int, int] | None:
        """Lease the first candidate (table_id, seat, version) nobody else holds a live lease on.

        A candidate is free when it has no lease, its lease has expired, its
        lease was granted at an earlier version (a turn since played), or
        ``worker_id`` already holds it (the lease is renewed). Returns the
        candidate taken, or None. Two workers can never hold the same seat's
        live lease: the claim is one atomic upsert.
        """
        now = utcnow()
        expires_at = now + timedelta(seconds=lease_seconds)
        for table_id, seat, version in candidates:
            params = {
                "table_id": table_id,
                "seat": seat,
                "worker_id": worker_id,
                "version": version,
                "expires_at": expires_at,
                "now": now,
            }
            try:
                with self._write() as conn:
                    taken = conn.execute(self._claim_lease, params).first() is not None
            except sa_exc.IntegrityError:
                continue  # the table is gone (foreign key)
            if taken:
                return (table_id, seat, version)
        return None

    def release_lease(self, table_id: str, seat: int, worker_id: str | None = None) -> bool:
        """Give up the lease on a bot's seat (after it has played, or when it gives up).

        With ``worker_id``, only that worker's lease is released. True if a lease went.
        """
        query = _RELEASE_LEASE
        if worker_id is not None:
            query = query.where(bot_leases.c.worker_id == worker_id)
        with self._write() as conn:
            return bool(conn.execute(query, {"t": table_id, "s": seat}).rowcount)

    def get_lease(self, table_id: str, seat: int) -> Lease | None:
        """The lease on a bot's seat, live or expired, or None."""
        query = sa.select(bot_leases).where(
            bot_leases.c.table_id == table_id, bot_leases.c.seat == seat
        )
        with self._reader.connect() as conn:
            row = conn.execute(query).mappings().first()
        if row is None:
            return None
        return Lease(
            row["table_id"],
            row["seat"],
            row["worker_id"],
            row["version"],
            _aware(row["expires_at"]),
        )

    def bot_turn_candidates(self) -> list[tuple[str, int, int]]:
        """(table_id, seat, version) of every bot seat at a table being played.

        A coarse list: whether it is that seat's turn is the engine's to say.
        """
        query = (
            sa.select(seats.c.table_id, seats.c.seat, tables.c.version)
            .join(tables, tables.c.table_id == seats.c.table_id)
            .where(tables.c.status == "playing", seats.c.kind == "bot")
            .order_by(tables.c.updated_at, seats.c.table_id, seats.c.seat)
        )
        with self._reader.connect() as conn:
            return [(row[0], row[1], row[2]) for row in conn.execute(query)]

    def close(self) -> None:
        """Close every pooled connection."""
        if self._hot is not None:
            self._hot.close()
        if self._hot_async is not None:
            self._hot_async.close()
        self._engine.dispose()


# --- migrations from outside a store -------------------------------------------------------


def alembic_config(url: str) -> Any:
    """An Alembic Config for the repository's migrations against ``url``."""
    from alembic.config import Config

    ini = MIGRATIONS_DIR.parent / "alembic.ini"
    config = Config(str(ini)) if ini.exists() else Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # handed over as an attribute: a URL in the ini would need its '%' escaped
    config.attributes["url"] = url
    return config


def upgrade_head(url: str) -> None:
    """alembic upgrade head against ``url``."""
    store = EventStore(url, pool_size=1)
    try:
        store.migrate()
    finally:
        store.close()


def downgrade_base(url: str) -> None:
    """alembic downgrade base against ``url``: drops every table the migrations made."""
    from alembic import command

    store = EventStore(url, pool_size=1)
    try:
        with store._write() as conn:
            config = alembic_config(store.url)
            config.attributes["connection"] = conn
            command.downgrade(config, "base")
    finally:
        store.close()
