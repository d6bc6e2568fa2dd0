"""A home for players (issue 31): the rating projection and the leaderboard's indexes.

``results`` holds one row per ended table (how it ended, its scores and
winners, whether it was rated); ``ratings`` one row per game and subject (an
account or a bot level) with OpenSkill's mu and sigma, the ordinal (mu - 3
sigma) and the rated games. Both are derived from the event log and rebuilt by
``parlour ratings --rebuild``. The leaderboard reads ``ix_ratings_board``
(people only) or ``ix_ratings_game_ordinal`` (with the bot levels), backwards; a
player's history reads ``seats`` through ``ix_seats_account`` (0003).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Timestamp = sa.DateTime(timezone=True)
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "results",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("ending", sa.Text(), nullable=False),
        sa.Column("ended_at", Timestamp, nullable=False),
        sa.Column("scores", JSONDocument, nullable=False),
        sa.Column("winners", JSONDocument, nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_results"),
    )
    op.create_table(
        "ratings",
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("account_id", sa.Text(), nullable=True),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game", "subject", name="pk_ratings"),
    )
    op.create_index("ix_ratings_board", "ratings", ["game", "bot", "ordinal", "subject"])
    op.create_index("ix_ratings_game_ordinal", "ratings", ["game", "ordinal", "subject"])


def downgrade() -> None:
    op.drop_index("ix_ratings_game_ordinal", table_name="ratings")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
    op.drop_table("results")
