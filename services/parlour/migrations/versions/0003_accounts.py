"""Accounts and sessions (issue 30): guest accounts bound to devices, names, sessions.

``accounts`` holds one row per account (a guest until it claims a name; the
name's NFKC casefold is unique), ``devices`` maps the SHA-256 of a device
secret to its account, ``sessions`` the SHA-256 of each session token to its
account with its expiry and revocation. ``seats.account_id`` records who took
a seat and ``tables.host_account_id`` who hosted a table (both NULL for the
rows written before, and for callers without a session); ``seats.code_hash``
keeps an invite-only seat for whoever has its code. The per-account caps count
through ``ix_tables_host_account`` and ``ix_seats_account``: the only keys not
led by a table id.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("name_key", sa.Text(), nullable=True),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("account_id", name="pk_accounts"),
        sa.UniqueConstraint("name_key", name="uq_accounts_name_key"),
    )
    op.create_table(
        "devices",
        sa.Column("device_hash", sa.Text(), nullable=False),
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("device_hash", name="pk_devices"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.account_id"], name="fk_devices_account", ondelete="CASCADE"
        ),
    )
    op.create_table(
        "sessions",
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("method", sa.Text(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("expires_at", Timestamp, nullable=False),
        sa.Column("revoked_at", Timestamp, nullable=True),
        sa.PrimaryKeyConstraint("session_id", name="pk_sessions"),
        sa.UniqueConstraint("token_hash", name="uq_sessions_token_hash"),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_sessions_account",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_sessions_account", "sessions", ["account_id"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("account_id", sa.Text(), nullable=True))
        batch.add_column(sa.Column("code_hash", sa.Text(), nullable=True))
    op.create_index("ix_seats_account", "seats", ["account_id"])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("host_account_id", sa.Text(), nullable=True))
    op.create_index("ix_tables_host_account", "tables", ["host_account_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_tables_host_account", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("host_account_id")
    op.drop_index("ix_seats_account", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("code_hash")
        batch.drop_column("account_id")
    op.drop_index("ix_sessions_account", table_name="sessions")
    op.drop_table("sessions")
    op.drop_table("devices")
    op.drop_table("accounts")
