""" "While you were away" for a page opened again (issue 20): a player who closes the room and opens it
later in the same browser (a reload, the personal link, taking the seat back) is told, on that page
only, how many lines the game log gained, whom they were about, and the newest of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.helpers import seated_phone, started_qe_room, wait_live

pytestmark = pytest.mark.browser


def play_for(server_url: str, code: str, token: str, moves: int) -> None:
    """Ann's moves, through the API, while no page of hers is open (the bots answer each)."""
    headers = {"Authorization": f"Bearer {token}"}
    made = 0
    for _ in range(200):
        room = httpx.get(f"{server_url}/api/rooms/{code}", headers=headers).json()
        if made == moves or room["status"] != "playing":
            return
        if not room["legal"]:
            continue
        template = room["legal"][0]
        domain = template["params"]["amount"]
        amount = next(n for n in range(domain["min"], domain["min"] + 10) if n not in domain["exclude"])
        action = {"type": template["type"], "amount": amount}
        answer = httpx.post(
            f"{server_url}/api/rooms/{code}/actions",
            json={"version": room["version"], "action": action},
            headers=headers,
        )
        made += answer.status_code == 200


def test_a_page_opened_again_tells_what_happened_since(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    code, token = started_qe_room(server_url)
    context = seated_phone(browser, server_url, code, token)
    page = context.new_page()
    page.goto(f"{server_url}/r/{code}?lang=en")
    wait_live(page)
    lines_seen = page.locator("#event-list > li").count()
    page.close()
    play_for(server_url, code, token, moves=3)
    page = context.new_page()
    page.goto(f"{server_url}/r/{code}?lang=en")
    note = page.locator("#away-note")
    note.wait_for(timeout=15000)
    missed = page.locator("#event-list > li").count() - lines_seen
    assert missed > 0
    text = note.inner_text()
    expected = f"While you were away: {missed} new line" + ("s" if missed > 1 else "")
    assert expected in text
    assert "Who they were about: " in text and "Ann (" in text
    assert note.locator("ol.log > li").count() == min(missed, 3)
    page.screenshot(path=str(artifacts / "away-summary-reopened-360.png"))
    page.reload()  # nothing new since: no note
    wait_live(page)
    page.wait_for_timeout(1500)
    assert page.locator("#away-note").count() == 0
    context.close()
