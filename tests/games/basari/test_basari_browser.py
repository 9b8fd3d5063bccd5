"""Three people in three browsers (laptop, phone, tablet) play Basari through its forms to the end."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import create_room, game_over, join_room, wait_live

pytestmark = pytest.mark.browser


def form_of(page: Any, kind: str) -> Any:
    return page.locator(f"form:has(input[name=type][value={kind}])")


def fill_gems(form: Any, prefix: str, wanted: int) -> None:
    """Put up to ``wanted`` gems into the number inputs named ``<prefix>.<colour>``, within their max."""
    for field in form.locator(f"input[type=number][name^='{prefix}.']:not([disabled])").all():
        if wanted <= 0:
            break
        top = int(field.get_attribute("max") or 0)
        take = min(top, wanted)
        field.fill(str(take))
        wanted -= take


def take_a_turn(page: Any, rng: random.Random) -> bool:
    """If this page offers a Basari action, take it through the page's own form. Returns whether it acted."""
    if form_of(page, "continue").count():
        form_of(page, "continue").locator("button").click()
    elif form_of(page, "choose").count():
        buttons = form_of(page, "choose").locator("button[name=card]").all()
        rng.choice(buttons).click()
    elif form_of(page, "offer").count() and not (form_of(page, "accept").count() and rng.random() < 0.6):
        offer = form_of(page, "offer")
        raising = form_of(page, "accept").count() > 0
        fill_gems(offer, "gems", 99 if raising else 1)  # all one's gems always beat a beatable offer
        offer.locator("button[type=submit]").click()
    elif form_of(page, "accept").count():
        form_of(page, "accept").locator("button").click()
    elif form_of(page, "exchange").count():
        exchange = form_of(page, "exchange")
        fill_gems(exchange, "take", 2)
        exchange.locator("button[type=submit]").click()
    elif form_of(page, "take").count():
        form_of(page, "take").locator("button[name=colour]").first.click()
    else:
        return False
    page.wait_for_timeout(120)
    return True


def test_three_browsers_play_basari_to_the_final_scores(
    server_url: str, browser: Any, artifacts: Path
) -> None:
    rng = random.Random(2014)
    contexts = [browser.new_context(viewport={"width": width, "height": 900}) for width in (1280, 390, 820)]
    pages = [context.new_page() for context in contexts]
    try:
        invite = create_room(pages[0], server_url, "basari", "Ann", 3)
        join_room(pages[1], invite, "Bob")
        join_room(pages[2], invite, "Cy")
        for page in pages:
            wait_live(page)
        pages[0].wait_for_function("!document.querySelector('#r-lobby button.primary').disabled")
        pages[0].get_by_role("button", name="Start the game").click()
        for page in pages:
            page.wait_for_selector("#r-g-actions .bs-actions", timeout=10_000)
        deadline = time.monotonic() + 300
        while not all(game_over(page) for page in pages):
            assert time.monotonic() < deadline, "the game did not finish in time"
            acted = False
            for page in pages:
                acted = take_a_turn(page, rng) or acted
            if not acted:
                pages[0].wait_for_timeout(100)
        for page in pages:
            page.wait_for_selector("#r-g-summary .bs-chart")
            assert page.locator("#r-g-summary .bs-scoring").count() == 3  # one table per round
    except Exception:
        for number, page in enumerate(pages):
            page.screenshot(path=str(artifacts / f"basari-failure-seat-{number + 1}.png"), full_page=True)
        raise
    for number, page in enumerate(pages):
        page.screenshot(path=str(artifacts / f"basari-final-seat-{number + 1}.png"), full_page=True)
    for context in contexts:
        context.close()
