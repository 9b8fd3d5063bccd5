"""Bring the database schema up to date (run at every start).

``python -m app`` runs it as ``python -m app.migrate``, a child process of its own: Alembic and
what it imports (Mako, Pygments) are ~11 MB the server would otherwise keep for its whole life
after using them once. Tests and other entry points migrate in process (``create_app``). The child
also makes the server's push key at the first start (``keep_push_key``), for the same reason.
"""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.exc import OperationalError

from app.db import DATABASE_UNAVAILABLE, Database, normalised_url

ROOT = Path(__file__).resolve().parent.parent

log = logging.getLogger("app.migrate")  # its name under ``python -m app.migrate`` too


def alembic_config(database_url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", normalised_url(database_url).replace("%", "%%"))
    return config


def upgrade_to_head(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")


def migrate(database_url: str) -> bool:
    """Bring the schema up to date; whether it is. A database that cannot be written (a read-only
    volume) or reached does not stop the server: it starts, ``/healthz`` answers 503 and every
    request a readable 503."""
    Database(database_url).dispose()  # a SQLite file's folder is made here
    try:
        upgrade_to_head(database_url)
    except OperationalError as failure:
        log.error("the database could not be migrated: %s", failure.orig)
        return False
    return True


def keep_push_key(database_url: str) -> None:
    """Make the server's push key if the data has none yet (its first start), and keep its public
    half: the server then reads both back as text, and imports the elliptic-curve library (~8 MB)
    only with its first push (``app.rooms.vapid.Vapid``). A failure is only logged: the server tries
    again, and without a key it sends no push."""
    from app.rooms import RoomService
    from app.rooms.vapid import kept_vapid

    db = Database(database_url)
    try:
        kept_vapid(RoomService(db).push, "")
    except OperationalError as failure:
        log.error("no push key could be kept: %s", failure.orig)
    finally:
        db.dispose()


def main() -> None:
    from app.config import get_settings
    from app.logs import configure_logging

    settings = get_settings()
    configure_logging(settings)  # the server's level and format (its child: python -m app)
    migrated = migrate(settings.database_url)
    if migrated and not settings.vapid_private_key.get_secret_value():  # an operator's key is theirs to keep
        keep_push_key(settings.database_url)
    # Any other failure (an unknown revision, a migration's own error) leaves its traceback and exit 1.
    raise SystemExit(0 if migrated else DATABASE_UNAVAILABLE)


if __name__ == "__main__":
    main()
