"""A region changed in a few of its parts (a player's card, a board's figure) is sent as those parts, and
a browser that swaps them shows what a fresh load of the page shows."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.games.base import random_legal_action

pytestmark = pytest.mark.browser

# each game's public region whose template marks parts
PARTED = {"basari": "g-players", "qe": "g-players", "tulip-bubble": "g-board"}
TURNS = 6  # of Ann's: the bots move between them


def _shown(page: Any, region: str) -> dict[str, Any]:
    """What a person sees of a region: its text, and each part's text by id, in order."""
    return page.evaluate(
        """(region) => {
            const root = document.getElementById("r-" + region);
            return {
                text: root.innerText,
                parts: Array.from(root.querySelectorAll("[id^='part-']")).map((part) => [part.id, part.innerText]),
            };
        }""",
        region,
    )


def _version(page: Any) -> str | None:
    stamp: str | None = page.locator("#r-flash").get_attribute("data-room-version")
    return stamp


@pytest.mark.parametrize("game", sorted(PARTED))
def test_a_browser_that_swaps_a_regions_parts_shows_the_fresh_page(
    browser: Any, server_url: str, artifacts: Path, game: str
) -> None:
    """Ann plays against bots; a phone watching and Ann's own laptop follow every push. Each time the
    game waits for Ann, each shows the parted region as a fresh load beside it does (its text and its
    parts'), and pushes swapped some of its parts alone (htmx reports each swap)."""
    players = {"basari": 3, "qe": 4, "tulip-bubble": 4}[game]
    created = httpx.post(
        f"{server_url}/api/rooms", json={"game": game, "players": players, "name": "Ann"}
    ).json()
    code, token = created["code"], created["token"]
    headers = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"fill": True}, headers=headers)
    region = PARTED[game]
    pages, errors = [], []
    for width, cookie in ((360, None), (1280, token)):
        context = browser.new_context(viewport={"width": width, "height": 900})
        if cookie:
            context.add_cookies([{"name": f"bourse_seat_{code}", "value": cookie, "url": server_url}])
        page = context.new_page()
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(f"{server_url}/r/{code}")
        page.wait_for_selector("body.ws-online")
        page.evaluate(
            """() => { window.partSwaps = 0;
                document.addEventListener("htmx:oobBeforeSwap", (event) => {
                    if (event.detail.target.id.startsWith("part-")) window.partSwaps += 1; }); }"""
        )
        pages.append(page)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    rng = random.Random(7)
    turns = 0
    deadline = time.monotonic() + 120
    while turns < TURNS and time.monotonic() < deadline:
        room = httpx.get(f"{server_url}/api/rooms/{code}", headers=headers).json()
        if room["status"] != "playing":
            break
        if room["to_act"] != [0] or not room["legal"]:
            time.sleep(0.1)  # the bots' turns (and their choices when everyone chooses at once)
            continue
        version = str(room["version"])
        for page in pages:
            page.wait_for_function(
                "(v) => document.querySelector('#r-flash').dataset.roomVersion === v", arg=version
            )
        for page in pages:  # a fresh load beside each: the spectators', then Ann's
            fresh = page.context.new_page()
            fresh.goto(f"{server_url}/r/{code}")
            fresh.wait_for_selector("body.ws-online")
            assert _version(fresh) == version  # the game waits for Ann: nothing moves meanwhile
            expected = _shown(fresh, region)
            assert expected["parts"]
            assert _shown(page, region) == expected
            fresh.close()
        # "you" stays on Ann's own row or card, swapped alone or not (bourse.js, markViewer)
        assert pages[1].locator(f"#r-{region} .you").count() == 1
        turns += 1
        answer = httpx.post(
            f"{server_url}/api/rooms/{code}/actions",
            json={"version": room["version"], "action": random_legal_action(room["legal"], rng)},
            headers=headers,
        )
        assert answer.status_code in (200, 409, 422), answer.text
    assert turns == TURNS
    assert all(page.evaluate("window.partSwaps") > 0 for page in pages)
    pages[1].screenshot(path=str(artifacts / f"parts-{game}-laptop.png"), full_page=True)
    pages[0].screenshot(path=str(artifacts / f"parts-{game}-phone.png"), full_page=True)
    assert not [error for error in errors if "htmx" in error.lower()], errors
    for page in pages:
        page.context.close()
