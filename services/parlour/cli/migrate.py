"""``parlour migrate``: bring a database's schema up to the newest migration.

Run it once before starting replicas that were given ``--no-migrate`` (the
deployment's one-shot ``migrate`` service); ``parlour serve`` otherwise
migrates on start. It says what it did: created the schema, upgraded it from
one revision to another, or found it already up to date.
"""

from __future__ import annotations

import argparse

import sqlalchemy as sa

from parlour.cli.options import database_url_argument, safe_url
from parlour.service.store.open import is_memory, upgrade_head
from parlour.service.store.urls import normalize_url


def add_arguments(parser: argparse.ArgumentParser) -> None:
    database_url_argument(parser)


def current_revision(url: str) -> str | None:
    """The schema's Alembic revision in the database at ``url``; None before the first."""
    from alembic.runtime.migration import MigrationContext

    engine = sa.create_engine(normalize_url(url), poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            revision = MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
    return None if revision is None else str(revision)


def what_was_done(before: str | None, after: str | None) -> str:
    """The sentence for a migration from revision ``before`` to ``after``."""
    if before is None:
        return f"created the database schema (revision {after}): up to date"
    if before != after:
        return f"upgraded the database schema from revision {before} to {after}"
    return f"database schema already up to date (revision {after}), nothing to do"


def run(args: argparse.Namespace) -> int:
    url = args.database_url
    if is_memory(url):
        print("parlour: memory:// keeps no schema, nothing to migrate", flush=True)
        return 0
    before = current_revision(url)
    upgrade_head(url)
    after = current_revision(url)
    print(f"parlour: {what_was_done(before, after)} ({safe_url(url)})", flush=True)
    return 0
