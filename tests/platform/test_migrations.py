"""The migrations build exactly the schema app/models.py declares (what `alembic check` asks), on
SQLite and on PostgreSQL: a model changed without a migration, or a migration the models do not
follow, fails here."""

from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import BigInteger, Integer, create_engine
from sqlmodel import SQLModel

from app import models  # noqa: F401  (registers the tables)
from app.db import normalised_url
from app.migrate import upgrade_to_head


def compare_type(
    context: MigrationContext, inspected_column: Any, metadata_column: Any, inspected: Any, declared: Any
) -> bool | None:
    """Alembic's type comparison, except that SQLite's one integer type is 64 bits whatever it is
    called (migration 0007 widens seats.deadline on PostgreSQL only, so SQLite reports INTEGER)."""
    if (
        context.dialect.name == "sqlite"
        and isinstance(inspected, Integer)
        and isinstance(declared, BigInteger)
    ):
        return False
    return None  # the default comparison


@pytest.mark.both_databases
def test_the_migrated_schema_is_the_models_schema(database_url: str) -> None:
    upgrade_to_head(database_url)
    engine = create_engine(normalised_url(database_url))
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": compare_type})
            differences = compare_metadata(context, SQLModel.metadata)
    finally:
        engine.dispose()
    assert differences == []
