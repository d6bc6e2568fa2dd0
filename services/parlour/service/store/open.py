"""Opening a store by URL, and the schema's migrations (the drivers' side of the store).

:func:`open_store` picks the implementation of :class:`~parlour.service.store.protocol.EventStore`
for a URL: Postgres, an SQLite file, or ``memory://`` (nothing kept after the process
ends: for tests and quick trials). :func:`upgrade_head` runs the Alembic migrations,
the schema's single source (a memory store has no schema to migrate).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from parlour.service.store.protocol import EventStore, connection_budget
from parlour.service.store.urls import normalize_url

#: The Alembic scripts ship inside the package (parlour/migrations), so an installed
#: wheel migrates without the source tree.
MIGRATIONS_DIR = Path(str(resources.files("parlour").joinpath("migrations")))


def open_store(url: str, *, connections: int | None = None) -> EventStore:
    """The store for ``url``: Postgres (``postgresql[+psycopg]://``), an SQLite file, or
    ``memory://``, a new empty store in this process that holds nothing after it ends."""
    if is_memory(url):
        from parlour.service.store.memory import MemoryEventStore

        return MemoryEventStore(url)
    budget = connection_budget(connections)
    if normalize_url(url).get_backend_name() == "postgresql":
        from parlour.service.store.postgres import PostgresEventStore

        return PostgresEventStore(url, budget)
    from parlour.service.store.sqlite import SqliteEventStore

    return SqliteEventStore(url, budget)


def is_memory(url: str) -> bool:
    """Whether ``url`` names the in-process store (``memory://``)."""
    return normalize_url(url).get_backend_name() == "memory"


def alembic_config(url: str) -> Any:
    """An Alembic Config for the repository's migrations against ``url``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # handed over as an attribute: a URL in the ini would need its '%' escaped
    config.attributes["url"] = url
    return config


def _alembic(url: str, command_name: str, revision: str) -> None:
    from alembic import command

    if is_memory(url):
        return  # nothing stored, so no schema to build or drop
    parsed = normalize_url(url)
    engine = sa.create_engine(parsed, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            if parsed.get_backend_name() == "postgresql":
                # Replicas starting together must not race to create the tables.
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(0x70A210)))
            config = alembic_config(parsed.render_as_string(hide_password=False))
            config.attributes["connection"] = conn
            getattr(command, command_name)(config, revision)
    finally:
        engine.dispose()


def upgrade_head(url: str) -> None:
    """alembic upgrade head against ``url`` (synchronous: run it before serving)."""
    _alembic(url, "upgrade", "head")


def downgrade_base(url: str) -> None:
    """alembic downgrade base against ``url``: drops every table the migrations made."""
    _alembic(url, "downgrade", "base")
