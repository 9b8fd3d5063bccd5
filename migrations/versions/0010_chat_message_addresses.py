"""the address each chat message came from

A host's mute also names the address a message came from (a digest of it), so that a spectator
who drops the viewer cookie, or a seated person who posts without their token, stays muted. Older
messages have no address ("").

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-08
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat_messages") as batch:
        batch.add_column(sa.Column("address", sa.String(32), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("chat_messages") as batch:
        batch.drop_column("address")
