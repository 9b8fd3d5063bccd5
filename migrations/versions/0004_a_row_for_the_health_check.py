"""a row the health check rewrites

``/healthz`` commits a tiny write (this row's time) so it reports a database that can be read but
not written (a full disk, a read-only volume), not just one that answers.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    health = op.create_table(
        "health",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("checked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.bulk_insert(health, [{"id": 1, "checked_at": datetime.now(UTC)}])


def downgrade() -> None:
    op.drop_table("health")
