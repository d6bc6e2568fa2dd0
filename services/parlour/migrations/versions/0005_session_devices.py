"""Each session remembers the device that opened it, so that revoking it unbinds that
device: a revoked browser or terminal cannot sign itself back in with its device secret.

``sessions.device_hash`` is the SHA-256 of the device secret (as in ``devices``);
sessions opened before this revision have none, and revoking them unbinds nothing,
as before.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("device_hash", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("device_hash")
