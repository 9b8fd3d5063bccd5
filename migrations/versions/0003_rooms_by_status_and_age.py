"""an index on rooms by status and last change, for the cleanup sweep

The sweep (``app/cleanup.py``) looks for rooms of a status untouched since a given time; without
the index each sweep would read every room.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.create_index("ix_rooms_status_updated_at", ["status", "updated_at"])


def downgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.drop_index("ix_rooms_status_updated_at")
