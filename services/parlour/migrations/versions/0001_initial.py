"""The event log and its projections: events, tables, seats, bot_leases.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Spelled out here rather than imported from the store so that this revision
# keeps describing the schema as it was when it was written.
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
Timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("payload", JSONDocument, nullable=False),
        sa.Column("digest", sa.Text(), nullable=False),
        sa.Column("request_id", sa.Text(), nullable=True),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq", name="pk_events"),
        sa.UniqueConstraint("game_id", "request_id", name="uq_events_game_request"),
    )
    op.create_table(
        "tables",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("options", JSONDocument, nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("host_token_hash", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("updated_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_tables"),
    )
    op.create_index("ix_tables_status_created_at", "tables", ["status", "created_at"])
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("bot_level", sa.Text(), nullable=True),
        sa.Column("player_name", sa.Text(), nullable=True),
        sa.Column("token_hash", sa.Text(), nullable=True),
        sa.Column("occupied", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_seats"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name="fk_seats_table", ondelete="CASCADE"
        ),
    )
    op.create_table(
        "bot_leases",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("worker_id", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("expires_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_bot_leases"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name="fk_bot_leases_table", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    op.drop_table("bot_leases")
    op.drop_table("seats")
    op.drop_index("ix_tables_status_created_at", table_name="tables")
    op.drop_table("tables")
    op.drop_table("events")
