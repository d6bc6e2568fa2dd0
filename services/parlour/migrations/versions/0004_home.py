"""A home for players (issue 31): the rating projection, the history's and leaderboard's
indexes, and ``rematches`` (an ended table's "play again").

``results`` holds one row per ended table (how it ended, its scores and
winners, whether it was rated); ``ratings`` one row per game and subject (an
account or a bot level) with OpenSkill's mu and sigma, the ordinal (mu - 3
sigma) and the rated games. Both are derived from the event log and rebuilt by
``parlour ratings --rebuild``. The leaderboard reads ``ix_ratings_board``
(people only) or ``ix_ratings_game_ordinal`` (with the bot levels), backwards; a
player's history reads ``plays`` (the account's seats with their tables'
created_at) through ``ix_plays_account`` backwards: a page costs the same
however many games the player has. ``plays`` is kept by triggers on ``seats``
(a seat taken, moved to another account or freed), on Postgres and SQLite
alike, and filled here from the seats there are.

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


PG_FUNCTION = """
CREATE FUNCTION parlour_seat_plays() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.account_id IS DISTINCT FROM NEW.account_id THEN
        DELETE FROM plays WHERE table_id = OLD.table_id AND seat = OLD.seat;
    END IF;
    IF NEW.account_id IS NOT NULL
       AND (TG_OP = 'INSERT' OR OLD.account_id IS DISTINCT FROM NEW.account_id) THEN
        INSERT INTO plays (table_id, seat, account_id, created_at)
        SELECT NEW.table_id, NEW.seat, NEW.account_id, t.created_at
        FROM tables t WHERE t.table_id = NEW.table_id
        ON CONFLICT (table_id, seat) DO UPDATE SET account_id = excluded.account_id;
    END IF;
    RETURN NULL;
END $$
"""
PG_TRIGGER = """
CREATE TRIGGER tr_seats_plays AFTER INSERT OR UPDATE OF account_id ON seats
FOR EACH ROW EXECUTE FUNCTION parlour_seat_plays()
"""
SQLITE_TRIGGERS = (
    """
CREATE TRIGGER tr_seats_plays_insert AFTER INSERT ON seats
WHEN NEW.account_id IS NOT NULL
BEGIN
    INSERT OR REPLACE INTO plays (table_id, seat, account_id, created_at)
    SELECT NEW.table_id, NEW.seat, NEW.account_id, t.created_at
    FROM tables t WHERE t.table_id = NEW.table_id;
END
""",
    """
CREATE TRIGGER tr_seats_plays_update AFTER UPDATE OF account_id ON seats
WHEN OLD.account_id IS NOT NEW.account_id
BEGIN
    DELETE FROM plays WHERE table_id = OLD.table_id AND seat = OLD.seat;
    INSERT INTO plays (table_id, seat, account_id, created_at)
    SELECT NEW.table_id, NEW.seat, NEW.account_id, t.created_at
    FROM tables t WHERE t.table_id = NEW.table_id AND NEW.account_id IS NOT NULL;
END
""",
)
BACKFILL = """
INSERT INTO plays (table_id, seat, account_id, created_at)
SELECT s.table_id, s.seat, s.account_id, t.created_at
FROM seats s JOIN tables t ON t.table_id = s.table_id WHERE s.account_id IS NOT NULL
"""


def upgrade() -> None:
    op.create_table(
        "plays",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_plays"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name="fk_plays_table", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_plays_account", "plays", ["account_id", "created_at", "table_id"])
    op.create_table(
        "rematches",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("rematch_table_id", sa.Text(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_rematches"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name="fk_rematches_table", ondelete="CASCADE"
        ),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(PG_FUNCTION)
        op.execute(PG_TRIGGER)
    else:
        for trigger in SQLITE_TRIGGERS:
            op.execute(trigger)
    op.execute(BACKFILL)
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
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER tr_seats_plays ON seats")
        op.execute("DROP FUNCTION parlour_seat_plays()")
    else:
        op.execute("DROP TRIGGER tr_seats_plays_insert")
        op.execute("DROP TRIGGER tr_seats_plays_update")
    op.drop_table("rematches")
    op.drop_index("ix_plays_account", table_name="plays")
    op.drop_table("plays")
    op.drop_index("ix_ratings_game_ordinal", table_name="ratings")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
    op.drop_table("results")
