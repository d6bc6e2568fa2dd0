"""Database fixtures shared by the service tests.

``postgres_url`` gives each test its own freshly created (empty, unmigrated)
Postgres database and drops it afterwards. The server comes from
``PARLOUR_TEST_POSTGRES_URL`` (e.g. postgresql+psycopg://postgres@127.0.0.1:5432/postgres,
which ``.ci/run`` exports); without it, from a throwaway testcontainers
Postgres when the ``testcontainers`` package and a Docker engine are both
there; otherwise the test is skipped, except under ``CI=true`` where a missing
Postgres fails loudly instead of quietly skipping the integration tests.
``sqlite_url`` is a file in the test's tmp_path; ``store_url`` runs a test on both.
"""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
from psycopg import sql

POSTGRES_ENV = "PARLOUR_TEST_POSTGRES_URL"


def _no_postgres(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true needs PostgreSQL for the integration tests: {reason}", pytrace=False)
    pytest.skip(reason)


def _libpq(url: sa.URL) -> str:
    """SQLAlchemy's postgresql+psycopg://... as the plain URL psycopg connects with."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def _docker_engine_answers() -> bool:
    try:
        import docker  # type: ignore[import-untyped, import-not-found, unused-ignore]

        docker.from_env().ping()
    except Exception:
        return False
    return True


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[sa.URL]:
    """A Postgres server we may create databases on (its maintenance database's URL)."""
    configured = os.environ.get(POSTGRES_ENV)
    if configured:
        url = sa.make_url(configured).set(drivername="postgresql+psycopg")
        try:
            psycopg.connect(_libpq(url), connect_timeout=5).close()
        except psycopg.Error as error:
            # Asked for by name, so a dead server is an error, never a skip.
            pytest.fail(f"{POSTGRES_ENV}={configured} does not answer: {error}", pytrace=False)
        yield url
        return
    if importlib.util.find_spec("testcontainers") is None:
        _no_postgres(f"set {POSTGRES_ENV} (or install testcontainers) to run the Postgres tests")
    if not _docker_engine_answers():
        _no_postgres(f"set {POSTGRES_ENV}: no Docker engine for testcontainers")
    from testcontainers.postgres import PostgresContainer  # type: ignore[import-untyped, import-not-found, unused-ignore]

    with PostgresContainer("postgres:16-alpine", driver="psycopg") as container:
        yield sa.make_url(container.get_connection_url())


@pytest.fixture
def postgres_url(postgres_server: sa.URL) -> Iterator[str]:
    """The URL of a new, empty Postgres database that is dropped after the test."""
    name = f"parlour_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_libpq(postgres_server), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield postgres_server.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(_libpq(postgres_server), autocommit=True) as admin:
            # A leaked pool or listener must not keep the database alive.
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """The URL of an SQLite file in the test's temporary directory (not yet created)."""
    return f"sqlite:///{tmp_path / 'parlour.sqlite3'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest) -> str:
    """An empty database URL, once for SQLite and once for Postgres."""
    return str(request.getfixturevalue(f"{request.param}_url"))
