"""What the database holds, to show that a refused request wrote nothing."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from parlour.service.store.schema import bot_leases, events, seats, tables


def fingerprint(engine: sa.Engine) -> tuple[Any, ...]:
    """Every row of the event log and of each projection, in a fixed order."""
    with engine.connect() as conn:
        return tuple(
            tuple(tuple(row) for row in conn.execute(sa.select(table).order_by(*table.primary_key)))
            for table in (events, tables, seats, bot_leases)
        )
