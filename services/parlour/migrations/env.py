"""Alembic environment for the Parlour event store.

The database comes from, in order: a connection handed over by
``EventStore.migrate()`` (``config.attributes["connection"]``), a URL in
``config.attributes["url"]`` or the ``sqlalchemy.url`` option, then the
``PARLOUR_DATABASE_URL`` environment variable, then the embedded SQLite file.
The same migrations run on SQLite and Postgres; SQLite gets batch mode so
later ALTERs work there too.
"""

from __future__ import annotations

import os
from logging.config import fileConfig

import sqlalchemy as sa
from alembic import context

from parlour.service.store.schema import metadata

DEFAULT_URL = "sqlite:///parlour.sqlite3"

config = context.config

# Only the alembic command line sets up logging from alembic.ini; a store
# migrating itself must not reconfigure its host's logging.
if config.config_file_name is not None and not config.attributes:
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    url = config.attributes.get("url") or config.get_main_option("sqlalchemy.url")
    return str(url or os.environ.get("PARLOUR_DATABASE_URL") or DEFAULT_URL)


def run_migrations(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    url = sa.engine.make_url(database_url())
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            run_migrations(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
