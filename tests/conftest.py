"""Shared fixtures: a fresh database per test, a tiny test-only game for platform tests, and for the
browser tests a real server on a loopback port and headless Debian Chromium (session-wide: one
Playwright instance may run per process)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("BOURSE_BOT_DELAY", "0")
os.environ.setdefault("BOURSE_BOT_WINDOW_DELAY", "0")
# Tests (and the servers they start) send far more from one address than a person does; the limits
# have their own tests, which set them (tests/platform/test_public_limits.py).
for _limit in ("BOURSE_RATE_CREATE", "BOURSE_RATE_JOIN", "BOURSE_RATE_ACT", "BOURSE_RATE_CONNECT"):
    os.environ.setdefault(_limit, "off")
os.environ.setdefault("BOURSE_MAX_SOCKETS_PER_CLIENT", "0")

from app.config import Settings  # noqa: E402
from app.db import Database  # noqa: E402
from app.games.registry import ENGINES  # noqa: E402
from app.migrate import upgrade_to_head  # noqa: E402
from app.rooms import RoomService  # noqa: E402
from tests.platform.toy_game import TOY  # noqa: E402
from tests.scale.services import ServiceUrls, fresh_database, running_services, stop_services  # noqa: E402
from tests.support import ROOT, served  # noqa: E402

DATABASES = ("sqlite", "postgresql")


def pytest_sessionstart(session: pytest.Session) -> None:
    """The catalogues compiled where a .po is newer than its .mo, as scripts/setup does, so that pytest
    alone (a fresh worktree, an edited .po) tests what the .po files say."""
    subprocess.run([sys.executable, ROOT / "scripts/lib/compile_catalogues.py", ROOT], check=True)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked ``both_databases`` run once on SQLite and once on PostgreSQL."""
    if "database_url" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_databases"):
        metafunc.parametrize("database_url", DATABASES, indirect=True)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test that drives Chromium (through the ``browser`` fixture) fails unless it is marked
    ``browser``: ``-m "not browser"`` must leave out every test that needs Chromium."""
    uses_browser = "browser" in getattr(item, "fixturenames", ())
    if uses_browser and item.get_closest_marker("browser") is None:
        pytest.fail(f"{item.nodeid} uses the browser fixture: mark it (pytestmark = pytest.mark.browser)")


@pytest.fixture(scope="session")
def scale_services() -> Iterator[ServiceUrls]:
    """PostgreSQL and Redis for the tests (see tests/scale/services.py), stopped at the session's end
    if this session started them."""
    yield running_services()
    stop_services()


@pytest.fixture(scope="session")
def postgres_server(scale_services: ServiceUrls) -> str:
    return scale_services.postgres


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: SQLite in a file, or (``both_databases``) a new PostgreSQL database."""
    if getattr(request, "param", "sqlite") == "sqlite":
        yield f"sqlite:///{tmp_path / 'bourse.db'}"
        return
    with fresh_database(request.getfixturevalue("postgres_server")) as url:
        yield url


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
    return Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0)


CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / os.environ.get("BOURSE_TEST_ARTIFACTS", "test-artifacts")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served(tmp_path_factory.mktemp("browser")) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: scripts/setup --browser installs it")
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield PolicyBypassingBrowser(launched)
        launched.close()


class PolicyBypassingBrowser:
    """The browser, whose pages ignore the app's Content-Security-Policy unless a test asks for it:
    Playwright's ``wait_for_function`` runs its string with ``eval`` in the page, which the policy
    forbids. tests/platform/test_public_browser.py checks the pages under the policy."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **options: Any) -> Any:
        return self._browser.new_context(**{"bypass_csp": True, **options})

    def new_page(self, **options: Any) -> Any:
        return self._browser.new_page(**{"bypass_csp": True, **options})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
