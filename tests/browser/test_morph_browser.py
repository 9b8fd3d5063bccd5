"""A push morphs the regions it brings (htmx's idiomorph extension): the elements that stay are the same
elements, and a browser that follows every push shows what a fresh load of the page shows."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.games.base import random_legal_action

pytestmark = pytest.mark.browser

# each game's public region with a card or a figure a seat at a time (kept by its id when morphed)
BY_SEAT = {"basari": "g-players", "qe": "g-players", "tulip-bubble": "g-players"}
TURNS = 6  # of Ann's: the bots move between them


def _shown(page: Any) -> dict[str, str]:
    """What a person sees of every region of the table: its text, by region."""
    shown: dict[str, str] = page.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll("section.region[id^='r-']"))
                .filter((region) => region.id !== "r-flash" && region.id !== "r-events")
                .map((region) => [region.id, region.innerText]))"""
    )
    return shown


def _mark(page: Any, region: str) -> None:
    """Tag ``region`` and every element in it with an id as the page has them now: a property of the
    DOM node, which a morph keeps and a swap that replaces the element loses."""
    page.evaluate(
        """(region) => { const root = document.getElementById("r-" + region);
            const marked = [root, ...root.querySelectorAll("[id]")];
            marked.forEach((element) => { element.bourseMarked = true; });
            window.bourseMarked = marked.map((element) => element.id); }""",
        region,
    )


def _replaced(page: Any) -> tuple[int, list[str]]:
    """How many of the elements last marked are still on the page, and the ids of those that are new
    nodes (replaced, not morphed)."""
    found: tuple[int, list[str]] = page.evaluate(
        """() => { const still = window.bourseMarked.map((id) => document.getElementById(id)).filter(Boolean);
            return [still.length, still.filter((element) => !element.bourseMarked).map((e) => e.id)]; }"""
    )
    return found


def _version(page: Any) -> str | None:
    stamp: str | None = page.locator("#r-flash").get_attribute("data-room-version")
    return stamp


@pytest.mark.parametrize("game", sorted(BY_SEAT))
def test_a_browser_that_morphs_every_push_keeps_its_elements_and_shows_the_fresh_page(
    browser: Any, server_url: str, artifacts: Path, game: str
) -> None:
    """Ann plays against bots; a phone watching and Ann's own laptop follow every push. Each time the
    game waits for Ann, each shows every region as a fresh load beside it does; the region with a card
    or figure per seat is the same element as before, and so is every card of it that stayed (a morph,
    not a replacement); "you" stays on Ann's own; and htmx told the page of each region it swapped."""
    players = {"basari": 3, "qe": 4, "tulip-bubble": 4}[game]
    created = httpx.post(
        f"{server_url}/api/rooms", json={"game": game, "players": players, "name": "Ann"}
    ).json()
    code, token = created["code"], created["token"]
    headers = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"fill": True}, headers=headers)
    region = BY_SEAT[game]
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
            """() => { window.regionSwaps = 0;
                document.addEventListener("htmx:oobAfterSwap", (event) => {
                    if (event.target.id && event.target.id.startsWith("r-")) window.regionSwaps += 1; }); }"""
        )
        pages.append(page)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    rng = random.Random(7)
    turns = kept = 0
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
            assert _shown(page) == _shown(fresh)
            fresh.close()
            if turns:  # the elements marked at Ann's last turn that are still there are the same nodes
                still, replaced = _replaced(page)
                assert replaced == []
                kept += still
            _mark(page, region)
        # "you" stays on Ann's own row or card, though a push sends the region without it (bourse.js)
        assert pages[1].locator(f"#r-{region} .you").count() == 1
        turns += 1
        answer = httpx.post(
            f"{server_url}/api/rooms/{code}/actions",
            json={"version": room["version"], "action": random_legal_action(room["legal"], rng)},
            headers=headers,
        )
        assert answer.status_code in (200, 409, 422), answer.text
    assert turns == TURNS
    assert kept > 0
    assert all(page.evaluate("window.regionSwaps") > 0 for page in pages)
    pages[1].screenshot(path=str(artifacts / f"morph-{game}-laptop.png"), full_page=True)
    pages[0].screenshot(path=str(artifacts / f"morph-{game}-phone.png"), full_page=True)
    assert not [error for error in errors if "htmx" in error.lower()], errors
    for page in pages:
        page.context.close()
