"""The event store's tables as SQLAlchemy Core metadata.

The Alembic migrations in ``migrations/versions`` create these tables; this
module is what the store's statements are built from, and a test compares the
two so they cannot drift apart. ``events`` is the source of truth; ``tables``
and ``seats`` are projections kept in step with it inside the appending
transaction; ``bot_leases`` lets one AI worker at a time play a bot's turn.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

# JSONB on Postgres (indexable, compact); SQLite stores JSON text.
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
Timestamp = sa.DateTime(timezone=True)

metadata = sa.MetaData()

events = sa.Table(
    "events",
    metadata,
    # The table's id (StoredEvent.table_id): the column keeps its first name.
    sa.Column("game_id", sa.Text(), nullable=False),
    sa.Column("seq", sa.Integer(), nullable=False),
    sa.Column("type", sa.Text(), nullable=False),
    sa.Column("schema_version", sa.Integer(), nullable=False),
    sa.Column("payload", JSONDocument, nullable=False),
    sa.Column("digest", sa.Text(), nullable=False),
    sa.Column("request_id", sa.Text(), nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    # The primary key is the optimistic-concurrency check: two writers that
    # read the same version both try to insert the same (game_id, seq).
    sa.PrimaryKeyConstraint("game_id", "seq", name="pk_events"),
    # A retried request cannot be applied twice (NULLs never collide).
    sa.UniqueConstraint("game_id", "request_id", name="uq_events_game_request"),
)

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("table_id", sa.Text(), nullable=False),
    sa.Column("game", sa.Text(), nullable=False),
    sa.Column("seats", sa.Integer(), nullable=False),
    sa.Column("options", JSONDocument, nullable=False),
    # 'open' (seats filling), 'playing', 'finished'
    sa.Column("status", sa.Text(), nullable=False),
    sa.Column("host_token_hash", sa.Text(), nullable=False),
    # = the seq of the table's last event
    sa.Column("version", sa.Integer(), nullable=False),
    sa.Column("name", sa.Text(), nullable=False),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
    # the last person action (NULL: no person at the table); the idle clock of expiry
    sa.Column("person_active_at", Timestamp, nullable=True),
    # the account that hosted the table (NULL: hosted without a session); the cap
    # of open tables per account counts by it
    sa.Column("host_account_id", sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint("table_id", name="pk_tables"),
    sa.Index("ix_tables_status_created_at", "status", "created_at"),
    sa.Index("ix_tables_status_person_active", "status", "person_active_at"),
    sa.Index("ix_tables_host_account", "host_account_id", "status"),
)


def _per_seat(name: str, *columns: sa.Column[Any], indexes: tuple[sa.Index, ...] = ()) -> sa.Table:
    """A table with a row per seat of a game table: keyed by (table_id, seat), the table id
    first (as every key here is: the schema distributes by table id), gone with the table."""
    return sa.Table(
        name,
        metadata,
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        *columns,
        sa.PrimaryKeyConstraint("table_id", "seat", name=f"pk_{name}"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name=f"fk_{name}_table", ondelete="CASCADE"
        ),
        *indexes,
    )


seats = _per_seat(
    "seats",
    # 'person' or 'bot'
    sa.Column("kind", sa.Text(), nullable=False),
    sa.Column("bot_level", sa.Text(), nullable=True),
    sa.Column("player_name", sa.Text(), nullable=True),
    # sha256 hex of the seat token; the token itself is never stored
    sa.Column("token_hash", sa.Text(), nullable=True),
    sa.Column("occupied", sa.Boolean(), nullable=False),
    # the account that took the seat (NULL: free, a bot, or taken without a session)
    sa.Column("account_id", sa.Text(), nullable=True),
    # sha256 hex of an invite-only seat's code (NULL: the seat is open to anyone)
    sa.Column("code_hash", sa.Text(), nullable=True),
    indexes=(sa.Index("ix_seats_account", "account_id"),),
)

bot_leases = _per_seat(
    "bot_leases",
    sa.Column("worker_id", sa.Text(), nullable=False),
    # the game version the lease was granted at
    sa.Column("version", sa.Integer(), nullable=False),
    sa.Column("expires_at", Timestamp, nullable=False),
)

# "Who must act now": one row per seat a table waits for, replaced in the
# appending transaction (see store.TurnRow).
turns = _per_seat(
    "turns",
    sa.Column("game", sa.Text(), nullable=False),
    # the table's version when the row was written (what an Act must name)
    sa.Column("version", sa.Integer(), nullable=False),
    # 'bot' (a bot seat, or a person's seat played by a bot) or 'person'
    sa.Column("kind", sa.Text(), nullable=False),
    sa.Column("since", Timestamp, nullable=False),
    sa.Column("deadline", Timestamp, nullable=True),
    indexes=(
        sa.Index("ix_turns_kind_since", "kind", "since"),
        sa.Index("ix_turns_deadline", "deadline"),
    ),
)

# Accounts and sessions (issue 30; store/accounts.py). Keyed by the account, not by a
# table: they are few and read by their primary keys.
accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("account_id", sa.Text(), nullable=False),
    # the claimed name as shown (NULL: a guest) and its NFKC casefold, unique
    sa.Column("name", sa.Text(), nullable=True),
    sa.Column("name_key", sa.Text(), nullable=True),
    # argon2id, in the PHC string form argon2-cffi writes (NULL: a guest)
    sa.Column("password_hash", sa.Text(), nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.PrimaryKeyConstraint("account_id", name="pk_accounts"),
    sa.UniqueConstraint("name_key", name="uq_accounts_name_key"),
)

devices = sa.Table(
    "devices",
    metadata,
    # sha256 hex of the device secret; the secret itself is never stored
    sa.Column("device_hash", sa.Text(), nullable=False),
    sa.Column("account_id", sa.Text(), nullable=False),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.PrimaryKeyConstraint("device_hash", name="pk_devices"),
    sa.ForeignKeyConstraint(
        ["account_id"], ["accounts.account_id"], name="fk_devices_account", ondelete="CASCADE"
    ),
)

sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("session_id", sa.Text(), nullable=False),
    # sha256 hex of the session token; the token itself is never stored
    sa.Column("token_hash", sa.Text(), nullable=False),
    sa.Column("account_id", sa.Text(), nullable=False),
    # 'device' or 'password'
    sa.Column("method", sa.Text(), nullable=False),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("expires_at", Timestamp, nullable=False),
    sa.Column("revoked_at", Timestamp, nullable=True),
    # sha256 hex of the device secret that opened the session (NULL: no device, or a
    # session opened before migration 0005); revoking the session unbinds that device
    sa.Column("device_hash", sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint("session_id", name="pk_sessions"),
    sa.UniqueConstraint("token_hash", name="uq_sessions_token_hash"),
    sa.ForeignKeyConstraint(
        ["account_id"], ["accounts.account_id"], name="fk_sessions_account", ondelete="CASCADE"
    ),
    sa.Index("ix_sessions_account", "account_id"),
)

# A home for players (issue 31; store/home.py): the rating projection. Derived from the
# event log (app/ratings.py) and rebuilt from it by `parlour ratings --rebuild`.
results = sa.Table(
    "results",
    metadata,
    sa.Column("table_id", sa.Text(), nullable=False),
    sa.Column("game", sa.Text(), nullable=False),
    # 'finished' or 'abandoned'
    sa.Column("ending", sa.Text(), nullable=False),
    sa.Column("ended_at", Timestamp, nullable=False),
    sa.Column("scores", JSONDocument, nullable=False),
    sa.Column("winners", JSONDocument, nullable=False),
    # whether the game moved ratings (docs/ratings.md)
    sa.Column("rated", sa.Boolean(), nullable=False),
    sa.PrimaryKeyConstraint("table_id", name="pk_results"),
)

ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("game", sa.Text(), nullable=False),
    # 'account:<account id>' or 'bot:<game>:<level>'
    sa.Column("subject", sa.Text(), nullable=False),
    # the account (NULL for a bot level): names are read through it
    sa.Column("account_id", sa.Text(), nullable=True),
    sa.Column("bot", sa.Boolean(), nullable=False),
    sa.Column("mu", sa.Float(), nullable=False),
    sa.Column("sigma", sa.Float(), nullable=False),
    # mu - 3 sigma: what the leaderboard orders by
    sa.Column("ordinal", sa.Float(), nullable=False),
    sa.Column("games", sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint("game", "subject", name="pk_ratings"),
    sa.Index("ix_ratings_board", "game", "bot", "ordinal", "subject"),
    sa.Index("ix_ratings_game_ordinal", "game", "ordinal", "subject"),
)

# The account's seats in the order of their tables (newest first): the history's index.
# Kept by database triggers on ``seats`` (migration 0004), so every writer of a seat keeps
# it without knowing of it; led by the table id as every key here.
plays = sa.Table(
    "plays",
    metadata,
    sa.Column("table_id", sa.Text(), nullable=False),
    sa.Column("seat", sa.Integer(), nullable=False),
    sa.Column("account_id", sa.Text(), nullable=False),
    # the table's created_at (a table's never changes)
    sa.Column("created_at", Timestamp, nullable=False),
    sa.PrimaryKeyConstraint("table_id", "seat", name="pk_plays"),
    sa.ForeignKeyConstraint(
        ["table_id"], ["tables.table_id"], name="fk_plays_table", ondelete="CASCADE"
    ),
    sa.Index("ix_plays_account", "account_id", "created_at", "table_id"),
)

# "Play again" (app/rematch.py): an ended table's rematch, made by the first to ask.
rematches = sa.Table(
    "rematches",
    metadata,
    sa.Column("table_id", sa.Text(), nullable=False),
    sa.Column("rematch_table_id", sa.Text(), nullable=False),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.PrimaryKeyConstraint("table_id", name="pk_rematches"),
    sa.ForeignKeyConstraint(
        ["table_id"], ["tables.table_id"], name="fk_rematches_table", ondelete="CASCADE"
    ),
    sa.Index("ix_rematches_rematch", "rematch_table_id"),
)

# A rematch's seat its old player declined (app/rematch.py): no longer held for them.
rematch_declines = sa.Table(
    "rematch_declines",
    metadata,
    sa.Column("table_id", sa.Text(), nullable=False),
    sa.Column("seat", sa.Integer(), nullable=False),
    sa.Column("declined_at", Timestamp, nullable=False),
    sa.PrimaryKeyConstraint("table_id", "seat", name="pk_rematch_declines"),
    sa.ForeignKeyConstraint(
        ["table_id"], ["rematches.table_id"], name="fk_rematch_declines_rematch", ondelete="CASCADE"
    ),
)

# After the game: the expert's analysis of a table's game (issue 35; store/analyses.py).
# One row per table, a job for the AI workers until it is done; its result is kept
# with the table (and goes with it).
analyses = sa.Table(
    "analyses",
    metadata,
    sa.Column("table_id", sa.Text(), nullable=False),
    sa.Column("game", sa.Text(), nullable=False),
    # 'queued', 'running', 'done' or 'failed'
    sa.Column("state", sa.Text(), nullable=False),
    sa.Column("requested_at", Timestamp, nullable=False),
    # the worker holding the job and until when (NULL: never claimed)
    sa.Column("worker_id", sa.Text(), nullable=True),
    sa.Column("lease_expires_at", Timestamp, nullable=True),
    # how many leases it was given (a job whose leases keep running out fails)
    sa.Column("attempts", sa.Integer(), nullable=False),
    sa.Column("finished_at", Timestamp, nullable=True),
    # the judged decisions (the parts so far while running), the summaries once done
    sa.Column("result", JSONDocument, nullable=True),
    sa.Column("error", sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint("table_id", name="pk_analyses"),
    sa.ForeignKeyConstraint(
        ["table_id"], ["tables.table_id"], name="fk_analyses_table", ondelete="CASCADE"
    ),
    # the claim's scan: the oldest queued (or lapsed) job first
    sa.Index("ix_analyses_state_requested", "state", "requested_at"),
)
