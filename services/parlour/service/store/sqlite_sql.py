"""The SQLite store's statements: built once from ``schema.py``, run by ``sqlite.py``.

SQLAlchemy Core statements with bound parameters (the append's version bump,
the upserts of seats and bot leases, the reads of a log), and the rewrite of
the turns projection in plain SQL, which runs with every move.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.dialects import sqlite

from parlour.service.store.protocol import PendingAppend
from parlour.service.store.schema import bot_leases, events, seats, tables

READ_AFTER = (
    sa.select(events)
    .where(events.c.game_id == sa.bindparam("g"), events.c.seq > sa.bindparam("after"))
    .order_by(events.c.seq)
)
READ_RANGE = READ_AFTER.where(events.c.seq <= sa.bindparam("upto"))
# The version bump is the guard: it matches only while the table is still at
# the expected version, so an append can neither race nor leave a gap.
BUMP_VERSION = (
    tables.update()
    .where(tables.c.table_id == sa.bindparam("g"), tables.c.version == sa.bindparam("expected"))
    .values(
        version=sa.bindparam("new_version"),
        updated_at=sa.bindparam("now"),
        status=sa.func.coalesce(sa.bindparam("new_status", type_=sa.Text), tables.c.status),
        person_active_at=sa.func.coalesce(
            sa.bindparam("active", type_=tables.c.person_active_at.type),
            tables.c.person_active_at,
        ),
    )
)
SEAT_UPSERT = sqlite.insert(seats)
SEAT_UPSERT = SEAT_UPSERT.on_conflict_do_update(
    index_elements=[seats.c.table_id, seats.c.seat],
    set_={
        name: SEAT_UPSERT.excluded[name]
        for name in (
            "kind",
            "bot_level",
            "player_name",
            "token_hash",
            "occupied",
            "account_id",
            "code_hash",
        )
    },
)
_LEASE_UPSERT = sqlite.insert(bot_leases)
CLAIM_LEASE = _LEASE_UPSERT.on_conflict_do_update(
    index_elements=[bot_leases.c.table_id, bot_leases.c.seat],
    set_={
        "worker_id": _LEASE_UPSERT.excluded.worker_id,
        "version": _LEASE_UPSERT.excluded.version,
        "expires_at": _LEASE_UPSERT.excluded.expires_at,
    },
    where=sa.or_(
        bot_leases.c.expires_at <= sa.bindparam("now"),
        bot_leases.c.worker_id == _LEASE_UPSERT.excluded.worker_id,
        bot_leases.c.version < _LEASE_UPSERT.excluded.version,
    ),
).returning(bot_leases.c.table_id)


# The turns projection is rewritten with every move: plain SQL (no statement to compile),
# timestamps in the form SQLAlchemy's DateTime stores on SQLite.
_DELETE_TURNS = "DELETE FROM turns WHERE table_id = ? AND seat NOT IN ({})"
_UPSERT_TURNS = (
    "INSERT INTO turns (table_id, seat, game, version, kind, since, deadline) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, seat) DO UPDATE SET "
    "version = excluded.version, kind = excluded.kind, since = excluded.since, "
    "deadline = excluded.deadline"
)


def _sqlite_time(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def write_turns(conn: sa.Connection, append: PendingAppend) -> None:
    """Replace the table's rows of the turns projection (in the append's transaction)."""
    rows = append.turns or ()
    kept = [row.seat for row in rows]
    if kept:
        placeholders = ", ".join("?" for _ in kept)
        conn.exec_driver_sql(_DELETE_TURNS.format(placeholders), (append.table_id, *kept))
    else:
        conn.exec_driver_sql("DELETE FROM turns WHERE table_id = ?", (append.table_id,))
    if rows:
        version = append.stored[-1].seq
        conn.exec_driver_sql(
            _UPSERT_TURNS,
            [
                (
                    append.table_id,
                    row.seat,
                    row.game,
                    version,
                    str(row.kind),
                    _sqlite_time(row.since),
                    _sqlite_time(row.deadline),
                )
                for row in rows
            ],
        )
