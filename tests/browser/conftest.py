"""Browser-test fixtures: a real server on a loopback port and headless Debian Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import ROOT, free_port, start_server

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
    port = free_port()
    folder = tmp_path_factory.mktemp("browser")
    with (folder / "server.log").open("wb") as log:
        process = start_server(folder / "bourse.db", port, bot_delay=0.05, log=log)
        yield f"http://127.0.0.1:{port}"
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: scripts/setup --browser installs it")
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
