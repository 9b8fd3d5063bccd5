"""Issues 9 and 10: one person and two bots play Tulip Bubble on a 360 px phone to its end screen.

The person plays every phase through the page's own forms: sells to the market (and to a collector
when an order is in hand), sells and redeems mortgages, places purchase tokens by tapping the tulip,
raises or drops out of auctions, pays in cash or with a mortgage, and ends their turns (confirming
the irreversible ones with a second tap). On the way: the page never scrolls sideways, the status
names the decision, the decision panel is on the first screen, and axe-core finds no serious
violation. The end screen tells the story and shows every player's cash, debts and assets.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import axe_violations, create_room, game_over, page_width_overflow, wait_live

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
VERSION_MOVED = """old => ![...document.querySelectorAll("input[name=version]")].some(i => i.value === old)"""


def forms(page: Any, kind: str, region: str | None = None) -> Any:
    scope = f"#r-g-{region} " if region else ""
    return page.locator(f"{scope}form.tb-act:has(input[name=type][value={kind}])")


def pay_form(page: Any, method: str) -> Any:
    return page.locator(f"#r-g-decision form.tb-act:has(input[name=method][value={method}])")


def number(text: str) -> int:
    """The amount in a text, with or without its unit and sign ("ƒ12", "12 盾", "−ƒ3")."""
    found = re.search(r"-?\d+", text.replace("−", "-").replace("ƒ", ""))
    return int(found.group()) if found else 0


def submit(page: Any, form: Any) -> None:
    """Click a form's button (twice when it asks to confirm) and wait until the page shows a newer
    room version (or a refusal)."""
    version = form.locator("input[name=version]").get_attribute("value")
    button = form.locator("button[type=submit]").element_handle()
    button.click()
    if button.evaluate("b => b.isConnected && b.classList.contains('armed')"):
        button.click()  # the first tap only armed it: the page asks before an irreversible action
    try:
        page.wait_for_function(VERSION_MOVED, arg=version, timeout=10_000)
    except Exception:
        if not page.locator("#r-flash .flash").inner_text().strip():
            raise
        # A refusal (the table moved on): the flash tells the player; the next look acts afresh.


def choose(page: Any, rng: random.Random) -> tuple[str, Any] | None:
    """The form a person would use now, if it is their move. (Redeeming is legal out of turn too, but
    while the bots move every region is redrawn many times a second.)"""
    if not page.locator("#r-status .status.your-move").count():
        return None
    cash = number(page.locator("#r-g-hand .tb-cash strong").inner_text())
    return _auction_choice(page, rng, cash) or _selling_choice(page, rng, cash)


def _auction_choice(page: Any, rng: random.Random, cash: int) -> tuple[str, Any] | None:
    """Paying, bidding or placing tokens: the decision region's forms."""
    if forms(page, "pay", "decision").count():
        method = "cash" if pay_form(page, "cash").count() and rng.random() < 0.7 else "mortgage"
        return f"pay {method}", pay_form(page, method)
    if forms(page, "raise", "decision").count():
        minimum = number(page.locator("#r-g-decision input[type=number][name=amount]").get_attribute("min"))
        if minimum <= cash + 8 and rng.random() < 0.55:
            if rng.random() < 0.3:  # type an amount instead of a quick button
                page.locator("#r-g-decision input[type=number][name=amount]").fill(str(minimum + 1))
                return "raise typed", page.locator("#r-g-decision form.tb-act:has(input[type=number])")
            return "raise", forms(page, "raise", "decision").first
        return "drop", forms(page, "drop", "decision")
    if forms(page, "place", "decision").count():
        return "place", rng.choice(forms(page, "place", "decision").all())
    if forms(page, "end_turn", "decision").count():
        return "place no more", forms(page, "end_turn", "decision")
    return None


def _selling_choice(page: Any, rng: random.Random, cash: int) -> tuple[str, Any] | None:
    """Redeeming, selling or ending the selling turn: the hand region's forms."""
    for form in forms(page, "redeem", "hand").all():
        amount = number(form.locator("button").inner_text())
        if cash >= amount + 10:
            return "redeem", form
    if not forms(page, "end_turn", "hand").count():
        return None
    for kind in ("sell_to_collector", "sell_mortgage"):
        offered = forms(page, kind, "hand")
        if offered.count() and "pay" not in offered.first.locator("button").inner_text().lower():
            return kind, offered.first
    sell = forms(page, "sell", "hand")
    if sell.count() and rng.random() < 0.8:
        return "sell", sell.first
    return "end selling turn", forms(page, "end_turn", "hand")


def play_to_the_end(page: Any, server_url: str, rng: random.Random) -> Counter[str]:
    create_room(page, server_url, "tulip-bubble", "Ann", 3)
    wait_live(page)
    for _ in range(2):
        seated = page.locator("#r-seats .seat").count()
        page.get_by_role("button", name="Add a bot").click()
        page.wait_for_function(f"document.querySelectorAll('#r-seats .seat').length > {seated}")
    page.wait_for_function("!document.querySelector('#r-lobby button.primary').disabled")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_selector("#r-g-auction .tb-auction", timeout=15_000)

    used: Counter[str] = Counter()
    audited: set[str] = set()
    deadline = time.monotonic() + 180
    while not game_over(page):
        assert time.monotonic() < deadline, f"the game did not finish in time; actions so far: {used}"
        assert page_width_overflow(page) == 0, f"the page scrolls sideways after {used}"
        chosen = choose(page, rng)
        if chosen is None:
            page.wait_for_timeout(100)
            continue
        kind, form = chosen
        check_the_decision(page, kind, audited)
        used[kind] += 1
        submit(page, form)
    return used


def check_the_decision(page: Any, kind: str, audited: set[str]) -> None:
    """When it is the person's move: the status names the decision, the panel holding the controls is
    on the first screen, and (once per kind of decision) axe-core finds nothing serious."""
    status = page.locator("#r-status .prompt-text")
    if status.count():
        text = status.inner_text()
        assert "Your move!" not in text
        if kind in ("pay cash", "pay mortgage"):
            assert "You buy" in text, text
        elif kind in ("raise", "raise typed", "drop"):
            assert "Auction for" in text, text
        elif kind in ("place", "place no more"):
            assert "purchase token" in text, text
        elif kind != "redeem":
            assert "Your selling turn" in text, text
    decision = page.locator(".decision")
    if decision.count():
        assert decision.count() == 1
        box = decision.bounding_box()
        assert box is not None and box["y"] < PHONE["height"], (
            f"the decision is below the first screen: {box}"
        )
    phase = kind.split()[0]
    if phase not in audited:
        audited.add(phase)
        assert axe_violations(page) == [], kind


def test_one_person_and_two_bots_play_tulip_bubble_to_the_end_screen(
    server_url: str, browser: Any, artifacts: Path
) -> None:
    rng = random.Random(1636)
    context = browser.new_context(viewport=PHONE, has_touch=True)
    page = context.new_page()
    try:
        used = play_to_the_end(page, server_url, rng)
        print("Tulip Bubble browser actions:", dict(used))
        assert used["place"] and used["end selling turn"], used
        final = page.locator("#r-g-auction table.tb-final")
        final.wait_for()
        headings = final.locator("thead th").all_inner_texts()
        assert headings[:4] == ["Player", "Cash", "Debts", "Assets"]
        rows = final.locator("tbody tr")
        assert rows.count() == 3
        for row in rows.all():
            cells = row.locator("td").all_inner_texts()
            cash, debts, assets = (number(cell) for cell in cells[1:4])
            assert assets == cash - debts
        assert page.locator("#r-status").inner_text().count("Game over") == 1
        assert page.locator("#r-g-auction .tb-headline").inner_text().strip()
        assert page.locator("#r-g-auction svg.tb-final-chart .tb-bar").count() == 3
        assert page_width_overflow(page) == 0, "the end screen scrolls sideways"
        assert axe_violations(page) == []
        page.screenshot(path=str(artifacts / "tulip-bubble-final-phone-360.png"), full_page=True)
    except Exception:
        page.screenshot(path=str(artifacts / "tulip-bubble-failure-phone.png"), full_page=True)
        raise
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "zh_Hant", "zh_Hans"])
def test_the_rules_page_fits_a_phone_and_passes_axe(server_url: str, browser: Any, lang: str) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{server_url}/games/tulip-bubble/rules?lang={lang}")
        page.wait_for_selector(".tb-rules")
        assert page_width_overflow(page) == 0
        assert axe_violations(page) == []
    finally:
        context.close()
