"""``parlour migrate`` says what it did, on both backends: created the schema on a
new database, upgraded it from one revision to the newest, or found nothing to do."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.script import ScriptDirectory

from parlour.cli import main
from parlour.cli.migrate import current_revision
from parlour.service.store.open import alembic_config


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    return str(request.getfixturevalue(name))


def migrate(url: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["migrate", "--database-url", url]) == 0
    return capsys.readouterr().out


def test_migrate_says_created_upgraded_or_nothing_to_do(
    url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PARLOUR_DATABASE_PASSWORD", raising=False)
    scripts = ScriptDirectory.from_config(alembic_config(url))
    head = scripts.get_current_head()
    assert head is not None
    previous = scripts.get_revision(head).down_revision
    assert isinstance(previous, str)

    assert current_revision(url) is None
    said = migrate(url, capsys)
    assert f"created the database schema (revision {head})" in said
    assert current_revision(url) == head

    said = migrate(url, capsys)
    assert f"already up to date (revision {head})" in said
    assert said.startswith("parlour: database schema already up to date")

    command.downgrade(alembic_config(url), previous)
    assert current_revision(url) == previous
    said = migrate(url, capsys)
    assert f"upgraded the database schema from revision {previous} to {head}" in said
    assert current_revision(url) == head
