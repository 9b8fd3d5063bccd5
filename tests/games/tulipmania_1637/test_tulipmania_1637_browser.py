"""One person on a 360 px phone and two bots play Tulipmania 1637 through the page's forms to the final
standings. On the way: the page never scrolls sideways, the status names the decision, the decision
panel starts within the first screen, confirm buttons need a second tap, and axe-core finds no serious
accessibility violation."""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.helpers import axe_violations, create_room, game_over, page_width_overflow, wait_live

pytestmark = pytest.mark.browser

BUTTONS = "#regions form.tm-act button:not([disabled])"

# What the page offers right now, read in one go (pushes may replace the regions between two calls).
OFFER = """() => ({
  yourMove: !!document.querySelector('#r-status .status[data-your-move=yes]'),
  status: document.querySelector('#r-status').textContent.replace(/\\s+/g, ' ').trim(),
  decisions: [...document.querySelectorAll('#regions .decision')].map(d => d.getBoundingClientRect().top + window.scrollY),
  buttons: [...document.querySelectorAll('BUTTONS')].map(b => ({
    type: b.form.querySelector('input[name=type]').value,
    version: b.form.querySelector('input[name=version]').value,
    confirm: b.hasAttribute('data-confirm'),
  })),
})""".replace("BUTTONS", BUTTONS)

# What the status says for each kind of decision (the seat to act), in English.
DECISION_WORDS = {
    "sell": ("Choose a tulip to sell", "Sell your only tulip"),
    "play": ("Sealed bid: choose an action card", "Everybody passed on your"),
    "draw_buyer": ("Draw a buyer card", "Draw the top buyer card"),
    "skip_purchase": ("Buy a tulip from the stockpile or end your turn",),
}


# Every message the flash region shows, kept in window.flashes (a later push clears the region).
FLASHES = """window.flashes = [];
new MutationObserver(() => {
  const flash = document.querySelector('#r-flash .flash');
  if (flash && flash !== window.lastFlash) { window.lastFlash = flash; window.flashes.push(flash.textContent); }
}).observe(document, {childList: true, subtree: true});"""


def pick(types: list[str], rng: random.Random) -> str | None:
    """Which of the offered kinds of decision to take: a sale (sometimes keeping an only tulip), an
    action card, a buyer face-up or blind, a tulip from stock or none, each choice at random."""
    offered = set(types)
    if "sell" in offered:
        return "skip_sale" if "skip_sale" in offered and rng.random() < 0.3 else "sell"
    if "play" in offered:
        return "play"
    if "draw_buyer" in offered:
        return "take_buyer" if "take_buyer" in offered and rng.random() < 0.5 else "draw_buyer"
    if "skip_purchase" in offered:
        return "buy" if "buy" in offered and rng.random() < 0.7 else "skip_purchase"
    return None


def guilders(text: str) -> int:
    """The amount after the first ƒ in ``text`` ("Ann ƒ16,375 winner" -> 16375)."""
    return int(re.sub(r"\D", "", text.split("ƒ")[1].split()[0]))


def check_the_table(page: Any, offer: dict[str, Any]) -> None:
    """The phone page at our move: no sideways scroll, the status names the decision, and exactly one
    decision panel, starting within the first screen."""
    assert page_width_overflow(page) == 0
    types = {b["type"] for b in offer["buttons"]}
    expected = [words for kind, words in DECISION_WORDS.items() if kind in types]
    assert expected and any(w in offer["status"] for w in expected[0]), (offer["status"], types)
    assert len(offer["decisions"]) == 1, offer["decisions"]
    assert offer["decisions"][0] < page.viewport_size["height"], offer["decisions"]


def take_a_turn(page: Any, rng: random.Random, done: Counter[str]) -> bool:
    """If it is our move, press one of the page's own buttons (twice when it asks to confirm) and wait
    for the table to move on."""
    offer = page.evaluate(OFFER)
    if not offer["yourMove"] or not offer["buttons"]:
        return False
    kind = pick([b["type"] for b in offer["buttons"]], rng)
    if kind is None:
        return False
    check_the_table(page, offer)
    done["checked"] += 1
    index = rng.choice([i for i, b in enumerate(offer["buttons"]) if b["type"] == kind])
    version = offer["buttons"][index]["version"]
    # the same button only while the page still shows that version of the table
    same_table = BUTTONS.replace("form.tm-act", f"form.tm-act:has(input[name=version][value='{version}'])")
    button = page.locator(same_table).nth(index)
    try:
        button.click(timeout=2_000)
        if offer["buttons"][index]["confirm"]:
            assert "armed" in (button.get_attribute("class", timeout=2_000) or "")  # asks first
            done["confirmed"] += 1
            button.click(timeout=2_000)
    except PlaywrightTimeoutError:
        return False
    # the push re-renders every form with the next version; a refusal would show in #r-flash instead
    page.wait_for_function(
        "v => !document.querySelector(`#regions input[name=version][value='${v}']`)"
        " || document.querySelector('#r-flash .flash')",
        arg=version,
        timeout=20_000,
    )
    if page.locator("#r-flash .flash").count():
        return True  # refused: the message is recorded by FLASHES, the forms re-rendered
    done[kind] += 1
    return True


def test_a_person_and_two_bots_play_tulipmania_to_the_final_standings(
    server_url: str, browser: Any, artifacts: Path
) -> None:
    rng = random.Random(1637)
    context = browser.new_context(viewport={"width": 360, "height": 740})
    context.add_init_script(FLASHES)
    page = context.new_page()
    done: Counter[str] = Counter()
    try:
        create_room(page, server_url, "tulipmania-1637", "Ann", 3)
        wait_live(page)
        page.get_by_role("button", name="Add a bot").click()
        page.wait_for_function("document.querySelectorAll('#r-seats .seat').length >= 2")
        page.get_by_role("button", name="Add a bot").click()
        page.wait_for_function("!document.querySelector('#r-lobby button.primary').disabled")
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector("#r-g-board .tm-board-svg", timeout=10_000)
        assert page.locator("#r-g-players tbody tr").count() == 3
        violations = axe_violations(page)
        assert violations == [], violations

        deadline = time.monotonic() + 80
        audited: set[str] = set()
        while not game_over(page):
            assert time.monotonic() < deadline, f"the game did not finish in time; played {dict(done)}"
            offer = page.evaluate(OFFER)
            kinds = {b["type"] for b in offer["buttons"]} if offer["yourMove"] else set()
            for kind in kinds & {"play", "draw_buyer"} - audited:  # a sealed bid and a buyer draw
                audited.add(kind)
                violations = axe_violations(page)
                assert violations == [], (kind, violations)
                page.screenshot(path=str(artifacts / f"tulipmania-1637-{kind}-360.png"), full_page=True)
            if not take_a_turn(page, rng, done):
                page.wait_for_timeout(100)

        page.wait_for_selector("#r-g-sale .tm-standings")
        standings = page.locator("#r-g-sale .tm-standings li").all_inner_texts()
        assert len(standings) == 3
        cash = [guilders(text) for text in standings]
        assert cash == sorted(cash, reverse=True)
        assert sum("Ann" in text for text in standings) == 1
        winners = page.locator("#r-g-sale .tm-standings li.tm-winner").count()
        assert winners == cash.count(cash[0])  # equal cash shares the win
        assert page.locator("#r-status").inner_text().count("Game over") == 1
        rows = page.locator("#r-g-players tbody tr").all()
        table = {
            row.locator("td").nth(0).inner_text(): guilders(row.locator("td").nth(1).inner_text())
            for row in rows
        }
        anns = next(text for text in standings if text.startswith("Ann"))
        assert [c for name, c in table.items() if name.startswith("Ann")] == [guilders(anns)], table
        # every kind of decision went through the page: sale, action card, buyer draw
        assert done["sell"] + done["skip_sale"] >= 1 and done["play"] >= 1, dict(done)
        assert done["take_buyer"] + done["draw_buyer"] >= 1, dict(done)
        assert not page.locator("#regions form.tm-act").count()  # nothing left to press
        assert page.evaluate("window.flashes") == [], page.evaluate("window.flashes")
        # the ending tells the story, fits the phone and passes axe
        assert page.locator("#r-g-sale .tm-headline").inner_text().strip()
        assert page.locator("#r-g-sale .tm-breakdown tbody tr").count() == 3
        assert page.locator("#r-g-sale svg.tm-cash-chart rect.tm-bar-trade").count() == 3
        assert page_width_overflow(page) == 0
        violations = axe_violations(page)
        assert violations == [], violations
        assert done["checked"] >= 5 and done["confirmed"] + done["play"] >= 1, dict(done)
    except Exception:
        page.screenshot(path=str(artifacts / "tulipmania-1637-failure.png"), full_page=True)
        context.close()
        raise
    page.screenshot(path=str(artifacts / "tulipmania-1637-final-phone.png"), full_page=True)
    context.close()


@pytest.mark.parametrize("lang", ["en", "zh_Hant", "zh_Hans"])
def test_the_rules_page_fits_a_phone_and_passes_axe(server_url: str, browser: Any, lang: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    try:
        page.goto(f"{server_url}/games/tulipmania-1637/rules?lang={lang}")
        page.wait_for_selector(".tm-rules", timeout=10_000)
        assert page_width_overflow(page) == 0
        violations = axe_violations(page)
        assert violations == [], violations
    finally:
        context.close()
