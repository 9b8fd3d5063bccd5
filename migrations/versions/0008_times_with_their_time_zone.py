"""times with their time zone

The models store aware UTC datetimes (SQLModel's ``UTCDateTime``: ``timestamp with time zone``), but
the tables were made with ``timestamp without time zone``: PostgreSQL then turned each aware time
into the session's local time and dropped the offset, while reading took it for UTC. The values
stored so far are read as UTC, as the app always read them; SQLite keeps no time zones, so only
PostgreSQL changes.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TIMES = [
    ("rooms", "created_at"),
    ("rooms", "updated_at"),
    ("seats", "created_at"),
    ("actions", "created_at"),
    ("chat_messages", "created_at"),
    ("health", "checked_at"),
]


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, column in TIMES:
            op.alter_column(
                table,
                column,
                type_=sa.DateTime(timezone=True),
                existing_nullable=False,
                postgresql_using=f"{column} AT TIME ZONE 'UTC'",
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, column in TIMES:
            op.alter_column(
                table,
                column,
                type_=sa.DateTime(),
                existing_nullable=False,
                postgresql_using=f"{column} AT TIME ZONE 'UTC'",
            )
