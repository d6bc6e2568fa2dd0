"""A rematch's seats are held for the ended table's people (app/rematch.py): the
rematch is found from its own table id (``ix_rematches_rematch``), and a person who
declines is recorded in ``rematch_declines`` (their seat is no longer held).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_index("ix_rematches_rematch", "rematches", ["rematch_table_id"])
    op.create_table(
        "rematch_declines",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("declined_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_rematch_declines"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["rematches.table_id"],
            name="fk_rematch_declines_rematch",
            ondelete="CASCADE",
        ),
    )


def downgrade() -> None:
    op.drop_table("rematch_declines")
    op.drop_index("ix_rematches_rematch", table_name="rematches")
