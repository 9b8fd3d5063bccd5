"""Q.E. in a browser: a person at a 4-player table with three bots hands in a sealed bid with the
"Bid 0 (2 points)" button (two taps: it cannot be taken back) and gets the round's zero-bid box (seed 02 秘密競標: a sealed bid may be 0; phase 04:
a zero bid scores 2 once per round, 3 players excepted)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import create_room, move_answered, wait_live

pytestmark = pytest.mark.browser

PUSH_WAIT = 20_000  # ms; generous, the machine is shared


def form_of(page: Any, kind: str) -> Any:
    """The typed-amount form of an open bid or a sealed bid (the quick bids are forms of their own)."""
    return page.locator(f"#f-qe-{kind.replace('_', '-')}")


def test_bid_zero_button_hands_in_a_zero_bid_and_ticks_the_rounds_box(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    try:
        bid_zero_once(page, server_url)
    except Exception:
        page.screenshot(path=str(artifacts / "qe-bid-zero-failure.png"), full_page=True)
        raise
    page.screenshot(path=str(artifacts / "qe-bid-zero.png"), full_page=True)
    context.close()


def bid_zero_once(page: Any, server_url: str) -> None:
    create_room(page, server_url, "qe", "Ann", 4)
    wait_live(page)
    page.locator("#r-lobby").get_by_role("button", name="Fill with bots").click()
    start = page.locator("#r-lobby").get_by_role("button", name="Start the game")
    page.wait_for_function("!document.querySelector('#r-lobby button.primary').disabled", timeout=PUSH_WAIT)
    start.click()
    page.wait_for_selector("#r-g-auction .qe-auction", timeout=PUSH_WAIT)

    deadline = time.monotonic() + 45
    while not form_of(page, "bid").count():
        assert time.monotonic() < deadline, "no sealed bid came to Ann in time"
        opening = form_of(page, "open_bid")
        if opening.count():  # Ann is the auctioneer first: open low and wait for the bots
            opening.locator("input[name=amount]").fill("1")
            opening.get_by_role("button", name="Bid").click()
            page.wait_for_selector("#f-qe-open-bid", state="detached", timeout=PUSH_WAIT)
        page.wait_for_timeout(100)

    assert not page.locator("#r-g-sheet .qe-box.ticked").count()
    typed = form_of(page, "bid")
    typed.locator("input[name=amount]").fill("12")  # something typed beside it must not get in the way
    bid_zero = page.locator("#r-g-decision").get_by_role("button", name="Bid 0 (2 points)", exact=True)
    bid_zero.click()  # a sealed bid cannot be taken back: the first tap asks, the second sends
    page.wait_for_selector("#f-qe-bid-0 button.armed", timeout=5_000)
    with move_answered(page, PUSH_WAIT) as answer:
        page.locator("#f-qe-bid-0 button").click()
    assert answer.status == 200, page.locator("#r-flash").inner_text()
    page.wait_for_selector("#r-g-sheet .qe-box.ticked", timeout=PUSH_WAIT)
    assert page.locator("#r-g-sheet .qe-box.ticked").count() == 1
    assert "Zero bids" in page.locator("#r-g-sheet").inner_text()
