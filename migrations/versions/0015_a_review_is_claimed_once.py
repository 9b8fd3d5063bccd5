"""a review is claimed once

With several server processes each one's reviewer could run the same review (each resumes every
unfinished review at its start): the process that runs a review claims its row (``claimed_by``,
renewed at each decision it saves, ``claimed_at``), and another takes it over only once the claim
is older than ``app.learn.review.CLAIM_SECONDS`` (its process died).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("reviews") as batch:
        batch.add_column(sa.Column("claimed_by", sa.String(80), nullable=True))
        batch.add_column(sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reviews") as batch:
        batch.drop_column("claimed_at")
        batch.drop_column("claimed_by")
