"""Turn clocks and expiry: the "who must act now" projection and the tables' idle clock.

``turns`` holds one row per seat a table waits for (kept in the appending
transaction); ``ix_turns_kind_since`` serves the bot workers' claim (bot
turns, the longest-waiting first) and ``ix_turns_deadline`` the sweeper's
search for clocks that ran out. ``tables.person_active_at`` is the time of
the last person action (NULL for a table without people) and
``ix_tables_status_person_active`` finds the open and playing tables nobody
moved for too long. Every key is still led by the table id.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "turns",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("since", Timestamp, nullable=False),
        sa.Column("deadline", Timestamp, nullable=True),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_turns"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name="fk_turns_table", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_turns_kind_since", "turns", ["kind", "since"])
    op.create_index("ix_turns_deadline", "turns", ["deadline"])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("person_active_at", Timestamp, nullable=True))
    op.create_index("ix_tables_status_person_active", "tables", ["status", "person_active_at"])


def downgrade() -> None:
    op.drop_index("ix_tables_status_person_active", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("person_active_at")
    op.drop_index("ix_turns_deadline", table_name="turns")
    op.drop_index("ix_turns_kind_since", table_name="turns")
    op.drop_table("turns")
