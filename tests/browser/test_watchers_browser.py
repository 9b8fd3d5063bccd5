"""Who is watching, in the browser (issue 20): a seated player's table shows the spectators who open
it, by name once one of them wrote in chat under a name, within a few seconds (the timer's push)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.helpers import wait_live

pytestmark = pytest.mark.browser


def test_the_table_shows_who_is_watching(browser: Any, server_url: str) -> None:
    created = httpx.post(f"{server_url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code = created["code"]
    host_context = browser.new_context()
    host_context.add_cookies([{"name": f"bourse_seat_{code}", "value": created["token"], "url": server_url}])
    host = host_context.new_page()
    host.goto(f"{server_url}/r/{code}?lang=en")
    wait_live(host)
    assert host.locator("#watchers").is_hidden()
    watcher = browser.new_context().new_page()
    watcher.goto(f"{server_url}/r/{code}?lang=en")
    wait_live(watcher)
    host.locator("#watchers", has_text="1 spectator is watching").wait_for(timeout=15000)
    watcher.locator("#watchers", has_text="1 spectator is watching").wait_for(timeout=15000)
