"""A spectator's browser follows a whole bot game from pushes alone and ends on the page a reload shows."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser


def test_a_watching_browser_ends_where_a_fresh_load_is(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    created = httpx.post(
        f"{server_url}/api/rooms", json={"game": "tulipmania-1637", "players": 3, "name": "Ann"}
    )
    code, token = created.json()["code"], created.json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"fill": True}, headers=headers)
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{server_url}/r/{code}")
    page.wait_for_selector("body.ws-online")
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"seat": 0}, headers=headers)  # bots play it all
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        room = httpx.get(f"{server_url}/api/rooms/{code}").json()
        stamp = page.locator("#r-flash").get_attribute("data-room-version")
        if room["status"] == "finished" and stamp == str(room["version"]):
            break
        page.wait_for_timeout(200)
    else:
        pytest.fail("the page did not reach the final version")
    lines = page.locator("#event-list li").all_inner_texts()
    seats = page.locator("#r-seats").inner_text()
    page.screenshot(path=str(artifacts / "live-spectator-end.png"), full_page=True)
    page.reload()
    page.wait_for_selector("body.ws-online")
    assert page.locator("#event-list li").all_inner_texts() == lines  # pushed lines, in order
    assert len(lines) > 20
    assert page.locator("#r-seats").inner_text() == seats
    assert "Game over" in page.locator("#r-status").inner_text()
    assert not [error for error in errors if "htmx" in error.lower()], errors
    context.close()
