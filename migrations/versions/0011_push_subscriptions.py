"""Web Push: the seats' subscriptions and the server's VAPID key

A player opts in per room ("Tell me when it's my turn"): their browser's push subscription is kept
with their seat (and goes with it), with the language to write in and the markers that make each
turn's push go out once. The server's VAPID key pair is made at its first start and kept here.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), sa.ForeignKey("seats.id", ondelete="CASCADE"), nullable=False),
        sa.Column("endpoint", sa.String(1024), nullable=False),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(40), nullable=False),
        sa.Column("locale", sa.String(16), nullable=False),
        sa.Column("turn_told", sa.Integer(), nullable=False),
        sa.Column("clock_told", sa.Integer(), nullable=False),
        sa.Column("end_told", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("seat_id", "endpoint"),
    )
    op.create_index("ix_push_subscriptions_endpoint", "push_subscriptions", ["endpoint"])
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("server_keys")
    op.drop_index("ix_push_subscriptions_endpoint", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
