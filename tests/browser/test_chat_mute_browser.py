"""A host's mute in the browser (issue 20): the muted person's earlier lines leave every open tab's
chat at once (a push, no reload), and the host sees that it worked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.helpers import wait_live

pytestmark = pytest.mark.browser


def test_muting_takes_the_earlier_lines_off_every_open_tab(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    created = httpx.post(f"{server_url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code = created["code"]
    bob = httpx.post(f"{server_url}/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    host_context = browser.new_context(viewport={"width": 1280, "height": 900})
    host_context.add_cookies([{"name": f"bourse_seat_{code}", "value": created["token"], "url": server_url}])
    watcher_context = browser.new_context(
        viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    host, watcher = host_context.new_page(), watcher_context.new_page()
    for page in (host, watcher):
        page.goto(f"{server_url}/r/{code}?lang=en")
        wait_live(page)
    for text in ("buy my coins", "really, buy them"):
        said = httpx.post(
            f"{server_url}/api/rooms/{code}/chat",
            json={"text": text},
            headers={"Authorization": f"Bearer {bob}"},
        )
        assert said.status_code == 201
    httpx.post(
        f"{server_url}/api/rooms/{code}/chat",
        json={"text": "hello all"},
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    for page in (host, watcher):
        page.wait_for_selector("#chat-list li:has-text('hello all')", timeout=10_000)
        assert page.locator("#chat-list li").count() == 3
    host.locator("#chat-list li:has-text('buy my coins') .chat-mute button").click()
    host.wait_for_selector("#r-flash:has-text('their messages are removed')", timeout=10_000)
    for page in (host, watcher):
        page.wait_for_function(
            "() => document.querySelectorAll('#chat-list li').length === 1", timeout=10_000
        )
        assert page.locator("#chat-list li").inner_text().startswith("Ann")
    watcher.screenshot(path=str(artifacts / "chat-mute-watcher.png"), full_page=True)
    host.screenshot(path=str(artifacts / "chat-mute-host.png"))
    host_context.close()
    watcher_context.close()
