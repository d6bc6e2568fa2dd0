"""Ground truth for tests: the event store's tables read synchronously, straight from SQL.

The service's store is async and belongs to the server's event loop; a test
that checks what was really written reads the database itself, over its own
connection (SQLAlchemy, no pool), with the schema the migrations built.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from parlour.service.store.protocol import StoredEvent, aware
from parlour.service.store.schema import events, seats, tables
from parlour.service.store.urls import normalize_url


class DbLog:
    """Synchronous reads of one database's event logs and tables."""

    def __init__(self, url: str) -> None:
        self.engine = sa.create_engine(normalize_url(url), poolclass=sa.pool.NullPool)

    def read(
        self, table_id: str, after_seq: int = 0, upto_seq: int | None = None
    ) -> list[StoredEvent]:
        query = sa.select(events).where(events.c.game_id == table_id, events.c.seq > after_seq)
        if upto_seq is not None:
            query = query.where(events.c.seq <= upto_seq)
        with self.engine.connect() as conn:
            return [
                _stored({**row, "created_at": aware(row["created_at"])})
                for row in conn.execute(query.order_by(events.c.seq)).mappings()
            ]

    def last_seq(self, table_id: str) -> int:
        query = sa.select(sa.func.coalesce(sa.func.max(events.c.seq), 0))
        with self.engine.connect() as conn:
            return int(conn.execute(query.where(events.c.game_id == table_id)).scalar_one())

    def table(self, table_id: str) -> dict[str, Any]:
        """The table's row (status, version, ...) with its seats' rows under "seat_rows"."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(tables).where(tables.c.table_id == table_id)).mappings()
            found = dict(row.one())
            query = sa.select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat)
            found["seat_rows"] = [dict(seat) for seat in conn.execute(query).mappings()]
        return found

    def close(self) -> None:
        self.engine.dispose()


def _stored(row: dict[str, Any]) -> StoredEvent:
    """An events row as a StoredEvent (the game_id column is the event's table_id)."""
    fields = {name: value for name, value in row.items() if name != "game_id"}
    return StoredEvent(table_id=row["game_id"], **fields)
