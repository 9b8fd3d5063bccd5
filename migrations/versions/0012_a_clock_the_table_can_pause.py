"""a clock the table can pause, and platform notices in the chat

The host may pause a room's turn clock (``rooms.clock_paused_at``, epoch ms while paused) and resume
it; each is said in the table chat as a platform notice (``chat_messages.notice``), whose text is
the notice's key, drawn in each reader's language.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("clock_paused_at", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("chat_messages") as batch:
        batch.add_column(sa.Column("notice", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("chat_messages") as batch:
        batch.drop_column("notice")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("clock_paused_at")
