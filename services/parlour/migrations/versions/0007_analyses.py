"""After the game, the expert's analysis (issue 35): one ``analyses`` row per table,
a job the AI workers claim under a lease, then its result kept with the table.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Timestamp = sa.DateTime(timezone=True)
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("requested_at", Timestamp, nullable=False),
        sa.Column("worker_id", sa.Text(), nullable=True),
        sa.Column("lease_expires_at", Timestamp, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("finished_at", Timestamp, nullable=True),
        sa.Column("result", JSONDocument, nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("table_id", name="pk_analyses"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name="fk_analyses_table", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_analyses_state_requested", "analyses", ["state", "requested_at"])


def downgrade() -> None:
    op.drop_index("ix_analyses_state_requested", table_name="analyses")
    op.drop_table("analyses")
