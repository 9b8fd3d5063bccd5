"""turn clocks, away players and table chat

A room may have a clock (seconds per decision); each seat keeps the deadline of the decision the
game waits for (epoch milliseconds, indexed: the timer looks up the ones due), how many timeouts in
a row it had, and how many decisions a bot made for it (the end screen says so). Chat messages and
the host's mutes are kept with the room.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("clock", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("deadline", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("timeouts", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("bot_turns", sa.Integer(), nullable=False, server_default="0"))
        batch.create_index("ix_seats_deadline", ["deadline"])
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("room_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("author", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False, server_default=""),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("reaction", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_chat_messages_room_id_id", "chat_messages", ["room_id", "id"])
    op.create_table(
        "chat_mutes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("room_id", sa.Integer(), nullable=False),
        sa.Column("author", sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("room_id", "author"),
    )
    op.create_index("ix_chat_mutes_room_id", "chat_mutes", ["room_id"])


def downgrade() -> None:
    op.drop_index("ix_chat_mutes_room_id", table_name="chat_mutes")
    op.drop_table("chat_mutes")
    op.drop_index("ix_chat_messages_room_id_id", table_name="chat_messages")
    op.drop_table("chat_messages")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_deadline")
        batch.drop_column("bot_turns")
        batch.drop_column("timeouts")
        batch.drop_column("deadline")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("clock")
