"""a strength for each bot seat

Bots come in two strengths (easy, normal); a seat remembers which one plays it, also when the host
hands a person's seat to a bot.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("bot_strength", sa.String(length=16), nullable=False, server_default="normal"))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("bot_strength")
