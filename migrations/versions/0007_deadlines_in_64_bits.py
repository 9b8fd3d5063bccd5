"""deadlines in 64 bits

A seat's deadline is in epoch milliseconds (about 1.8e12 today), more than PostgreSQL's 32-bit
``integer`` holds; SQLite's integers are 64 bits already, so only PostgreSQL changes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("seats", "deadline", type_=sa.BigInteger(), existing_nullable=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("seats", "deadline", type_=sa.Integer(), existing_nullable=True)
