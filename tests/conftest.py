"""Shared fixtures: a fresh database per test and a tiny test-only game for platform tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("BOURSE_BOT_DELAY", "0")

from app.config import Settings  # noqa: E402
from app.db import Database  # noqa: E402
from app.games.registry import ENGINES  # noqa: E402
from app.migrate import upgrade_to_head  # noqa: E402
from app.rooms import RoomService  # noqa: E402
from tests.platform.toy_game import TOY  # noqa: E402


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'bourse.db'}"


@pytest.fixture
def toy_game() -> Iterator[str]:
    """Register the test-only sealed-guess game for the duration of a test."""
    ENGINES[TOY.info.id] = TOY
    yield TOY.info.id
    ENGINES.pop(TOY.info.id, None)


@pytest.fixture
def service(database_url: str) -> Iterator[RoomService]:
    upgrade_to_head(database_url)
    db = Database(database_url)
    yield RoomService(db)
    db.dispose()


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0)  # type: ignore[call-arg]
