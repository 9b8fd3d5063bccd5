"""Play again's lobby: the people seated before are shown as coming back (not away, and not the
host's to remove), and the host can start before they are back only with "Start without …"."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.games.base import random_legal_action

pytestmark = pytest.mark.browser


def played_game(server_url: str) -> tuple[str, str, str]:
    """Ann (the host), Bob and a bot play Tulipmania to its end through the API, Ann and Bob at
    random: the room's code and Ann's and Bob's tokens."""
    created = httpx.post(
        f"{server_url}/api/rooms", json={"game": "tulipmania-1637", "players": 3, "name": "Ann"}
    ).json()
    code, ann = created["code"], created["token"]
    bob = httpx.post(f"{server_url}/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    host = {"Authorization": f"Bearer {ann}"}
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"fill": True}, headers=host)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=host)
    rng = random.Random(3)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        moved = False
        for seat, token in ((0, ann), (1, bob)):
            headers = {"Authorization": f"Bearer {token}"}
            room = httpx.get(f"{server_url}/api/rooms/{code}", headers=headers).json()
            if room["status"] == "finished":
                return code, ann, bob
            if room["legal"] and seat in room["to_act"]:
                action = random_legal_action(room["legal"], rng)
                body = {"version": room["version"], "action": action}
                httpx.post(f"{server_url}/api/rooms/{code}/actions", json=body, headers=headers)
                moved = True
        if not moved:
            time.sleep(0.05)
    pytest.fail("the game did not end")


def test_play_again_shows_who_is_coming_back(browser: Any, server_url: str, artifacts: Path) -> None:
    code, ann, bob = played_game(server_url)
    again = httpx.post(f"{server_url}/api/rooms/{code}/again", headers={"Authorization": f"Bearer {ann}"})
    new_code, ann = again.json()["code"], again.json()["token"]

    host = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
    host.goto(f"{server_url}/r/{new_code}/resume?lang=en#{ann}")
    host.wait_for_selector("body.ws-online")
    host.goto(f"{server_url}/r/{new_code}?lang=en")
    host.wait_for_selector("body.ws-online")
    bob_row = host.locator('.seat[data-seat="1"]')
    assert bob_row.locator(".tag.coming-back").inner_text() == "coming back"
    assert bob_row.locator(".tag.away").count() == 0
    assert bob_row.get_by_role("button", name="Remove").count() == 0
    assert host.get_by_role("button", name="Start the game").is_disabled()
    assert "Waiting for Bob to come back." in host.locator(".coming-back-note").inner_text()
    assert host.get_by_role("button", name="Start without Bob").is_enabled()
    host.screenshot(path=str(artifacts / "play-again-coming-back-360.png"), full_page=True)

    # Bob opens the new room: he is here, and the game may start as usual.
    guest_context = browser.new_context(viewport={"width": 1280, "height": 800})
    guest = guest_context.new_page()
    guest.goto(f"{server_url}/r/{new_code}/resume?lang=en#{bob}")
    guest.wait_for_selector("body.ws-online")
    host.wait_for_selector('.seat[data-seat="1"] .presence.on')
    assert bob_row.locator(".tag.coming-back").count() == 0
    assert host.get_by_role("button", name="Start the game").is_enabled()
    assert host.get_by_role("button", name="Start without Bob").count() == 0

    # He closes his tab again: the host starts without him, and his bot plays until he is back.
    guest_context.close()
    host.wait_for_selector('.seat[data-seat="1"] .tag.coming-back')
    host.get_by_role("button", name="Start without Bob").click()
    host.wait_for_function(
        "() => /played by a bot/.test(document.querySelector('.seat[data-seat=\"1\"]').textContent)"
    )
    bob_room = httpx.get(f"{server_url}/api/rooms/{new_code}", headers={"Authorization": f"Bearer {bob}"})
    assert bob_room.json()["status"] == "playing"
    assert host.locator('.seat[data-seat="0"]').get_by_text("played by a bot").count() == 0
