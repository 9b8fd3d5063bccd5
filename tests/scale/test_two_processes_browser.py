"""In real browsers: two players of one room, each on a different app process (PostgreSQL + Redis),
both see every move as it is made, whichever process it was made through."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.helpers import wait_live
from tests.scale.cluster import app_env, apps, new_room
from tests.scale.services import ServiceUrls, fresh_database
from tests.scale.test_two_processes import act_randomly

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


@pytest.fixture
def database(scale_services: ServiceUrls) -> Iterator[str]:
    with fresh_database(scale_services.postgres) as url:
        yield url


def test_two_players_on_two_processes_both_see_every_move(
    browser: Any, database: str, scale_services: ServiceUrls, tmp_path: Path, artifacts: Path
) -> None:
    rng = random.Random(21)
    with (
        apps(2, app_env(database, scale_services.redis), tmp_path) as (one, two),
        httpx.Client(timeout=30) as client,
    ):
        code, tokens = new_room(client, [one.url, two.url], "qe", 3)
        pages = []
        for seat, url in ((0, one.url), (1, two.url)):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_cookies([{"name": f"bourse_seat_{code}", "value": tokens[seat], "url": url}])
            page = context.new_page()
            errors: list[str] = []
            page.on(
                "console",
                lambda message, errors=errors: message.type == "error" and errors.append(message.text),
            )
            page.goto(f"{url}/r/{code}?lang=en")
            wait_live(page)
            pages.append((page, errors))
        for turn in range(6):  # moves through either process, by whoever's turn it is
            version = act_randomly(client, (one.url, two.url)[turn % 2], code, tokens, rng)
            for page, _ in pages:
                page.wait_for_selector(f'[data-room-version="{version}"]', state="attached", timeout=15_000)
        for number, (page, errors) in enumerate(pages):
            page.screenshot(path=str(artifacts / f"two-processes-seat{number}.png"))
            assert errors == []
            assert page.locator(".seat.you").count() == 1
