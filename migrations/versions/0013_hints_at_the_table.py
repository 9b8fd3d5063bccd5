"""hints at the table

A room's table may allow the coach and the search's hints (``rooms.hints``): the host ticks it at
creation, and a practice room ("Learn <game>") always has it.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("hints", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("hints")
