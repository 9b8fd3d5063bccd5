"""Three people in three browsers create and join a Q.E. room by link and play it to the final table."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import create_room, game_over, join_room, wait_live

pytestmark = pytest.mark.browser


def take_a_turn(page: Any, rng: random.Random) -> bool:
    """If this page offers a Q.E. action, take it. Returns whether it acted."""
    for kind in ("open_bid", "bid", "reveal", "peek"):
        form = page.locator(f"form:has(input[name=type][value={kind}])")
        if not form.count():
            continue
        form = form.first
        amount = form.locator("input[name=amount]")
        if amount.count():
            low = 1 if kind == "open_bid" else 0
            amount.fill(str(rng.randint(low, 30)))
        form.locator("button[type=submit]").first.click()
        page.wait_for_timeout(150)
        return True
    return False


def test_three_browsers_play_qe_to_the_final_table(browser: Any, server_url: str, artifacts: Path) -> None:
    rng = random.Random(1637)
    contexts = [browser.new_context(viewport={"width": width, "height": 900}) for width in (1280, 390, 820)]
    pages = [context.new_page() for context in contexts]
    try:
        play_to_the_end(pages, server_url, rng)
    except Exception:
        for number, page in enumerate(pages):
            page.screenshot(path=str(artifacts / f"qe-failure-seat-{number + 1}.png"), full_page=True)
        raise
    for number, page in enumerate(pages):
        assert page.locator("#r-status").inner_text().count("Game over") == 1
        assert page.locator("#r-g-players table").count()  # the final table of every sheet
        page.screenshot(path=str(artifacts / f"qe-final-seat-{number + 1}.png"), full_page=True)
    for context in contexts:
        context.close()


def play_to_the_end(pages: list[Any], server_url: str, rng: random.Random) -> None:
    invite = create_room(pages[0], server_url, "qe", "Ann", 3)
    join_room(pages[1], invite, "Bob")
    join_room(pages[2], invite, "Cy")
    for page in pages:
        wait_live(page)
    start = pages[0].get_by_role("button", name="Start the game")
    start.wait_for(state="visible")
    pages[0].wait_for_function("!document.querySelector('#r-lobby button.primary').disabled")
    start.click()
    for page in pages:
        page.wait_for_selector("#r-g-auction", timeout=10_000)

    deadline = time.monotonic() + 240
    while not all(game_over(page) for page in pages):
        assert time.monotonic() < deadline, "the game did not finish in time"
        acted = False
        for page in pages:
            acted = take_a_turn(page, rng) or acted
        if not acted:
            pages[0].wait_for_timeout(100)
