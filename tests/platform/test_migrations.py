"""The migrations build exactly the schema app/models.py declares (what `alembic check` asks), on
SQLite and on PostgreSQL: a model changed without a migration, or a migration the models do not
follow, fails here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import BigInteger, Integer, create_engine
from sqlmodel import SQLModel

from app import models  # noqa: F401  (registers the tables)
from app.db import DATABASE_UNAVAILABLE, normalised_url
from app.migrate import upgrade_to_head
from tests.support import free_port


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


def test_python_m_app_migrates_in_a_child_and_serves_without_alembic(tmp_path: Path) -> None:
    """``python -m app`` runs ``python -m app.migrate`` first (a fresh SQLite file in a folder not yet
    made gets the whole schema), then builds the app with ``migrated=True``: a server that has not
    imported Alembic (with Mako and Pygments) nor the push-sending libraries, which it would otherwise
    keep for its whole life (~25 MB of a ~115 MB server), nor the elliptic-curve library (~8 MB): the
    child made the push key and kept its public half."""
    database = tmp_path / "new" / "bourse.db"
    env = {**os.environ, "BOURSE_DATABASE_URL": f"sqlite:///{database}"}
    migrated = subprocess.run([sys.executable, "-m", "app.migrate"], env=env, capture_output=True, text=True)
    assert migrated.returncode == 0, migrated.stderr
    engine = create_engine(f"sqlite:///{database}")
    with engine.connect() as connection:
        tables = {
            row[0]
            for row in connection.exec_driver_sql("select name from sqlite_master where type = 'table'")
        }
    engine.dispose()
    assert {"rooms", "seats", "actions", "alembic_version"} <= tables

    probe = (
        "import sys\n"
        "from app.web.app import create_app\n"
        "create_app(migrated=True)\n"
        "heavy = {'alembic', 'mako', 'pygments', 'requests', 'aiohttp', 'pywebpush', 'cryptography', 'py_vapid'}\n"
        "print(sorted(heavy & {name.split('.')[0] for name in sys.modules}))\n"
    )
    served = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert served.returncode == 0, served.stderr
    assert served.stdout.strip() == "[]"


def test_an_unreachable_database_fails_the_migration_child_but_not_the_start(tmp_path: Path) -> None:
    """The child says so (exit 3, the reason logged); ``python -m app`` starts anyway, as the app does
    on a database it cannot write (``/healthz`` answers 503: tests/platform/test_storage.py)."""
    missing = tmp_path / "none.db"
    env = {**os.environ, "BOURSE_DATABASE_URL": f"sqlite:///file:{missing}?mode=ro&uri=true"}
    migrated = subprocess.run([sys.executable, "-m", "app.migrate"], env=env, capture_output=True, text=True)
    assert migrated.returncode == DATABASE_UNAVAILABLE
    assert "app.migrate: the database could not be migrated" in migrated.stderr


def test_a_schema_the_code_cannot_bring_up_to_date_stops_the_start(tmp_path: Path) -> None:
    """A database from a newer version (a revision this code does not know: an upgrade rolled back
    without its backup) is no outage: ``python -m app`` says why and does not serve, where it used to
    start and answer 500s from tables it does not know."""
    database = tmp_path / "bourse.db"
    url = f"sqlite:///{database}"
    upgrade_to_head(url)
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("update alembic_version set version_num = 'from_a_newer_version'")
    engine.dispose()
    env = {**os.environ, "BOURSE_DATABASE_URL": url, "HOST": "127.0.0.1", "PORT": str(free_port())}
    started = subprocess.run(
        [sys.executable, "-m", "app"], env=env, capture_output=True, text=True, timeout=60
    )
    assert started.returncode == 1
    assert "Can't locate revision identified by 'from_a_newer_version'" in started.stderr
    assert "not started: the database's schema could not be brought up to date" in started.stderr
    assert "Uvicorn running" not in started.stderr
