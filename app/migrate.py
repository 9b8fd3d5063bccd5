"""Bring the database schema up to date (run at every start)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from app.db import normalised_url

ROOT = Path(__file__).resolve().parent.parent


def alembic_config(database_url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", normalised_url(database_url).replace("%", "%%"))
    return config


def upgrade_to_head(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")
