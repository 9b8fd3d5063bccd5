"""the full-record agreement and the mark of imported games

A room's table may agree at creation that, once its game is over, its record holds every secret
(``full_record``); otherwise each reader's record holds what that reader saw. A game made from an
uploaded record is marked ``imported``: its names and moves are whatever the record claimed.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("full_record", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("imported", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("imported")
        batch.drop_column("full_record")
