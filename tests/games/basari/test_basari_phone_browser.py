"""Basari on a 360 px phone, through a whole game against two bots (issue 10): the page never scrolls
sideways, the status names the decision whenever it is your move, the decision panel starts within the
first screen, and axe-core finds no serious or critical violation at the table's main moments, nor on
the rules page."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import axe_violations, create_room, game_over, page_width_overflow, wait_live
from tests.games.basari.test_basari_browser import PUSH_WAIT, take_a_turn

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
DECISIONS = (  # the status sentence names what the decision is (prompt.html)
    "Choose an action card",
    "Make the first offer",
    "or raise the offer",
    "accept",
    "Action D:",
    "Round",
)


def moment(page: Any) -> str | None:
    """The kind of decision the page asks for now, if any: the type of its first action form."""
    kind = page.evaluate(
        "() => { const t = document.querySelector('.decision form input[name=type]'); return t && t.value; }"
    )
    return str(kind) if kind else None


def check_the_decision_is_in_view(page: Any) -> None:
    status = page.locator("#r-status").inner_text()
    assert any(words in status for words in DECISIONS), status
    panel = page.locator(".decision")
    assert panel.count() == 1
    box = panel.bounding_box()
    assert box is not None and box["y"] + page.evaluate("window.scrollY") < PHONE["height"], box


def test_a_whole_game_on_a_360_px_phone_stays_narrow_names_each_decision_and_passes_axe(
    server_url: str, browser: Any, artifacts: Path
) -> None:
    rng = random.Random(360)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = phone.new_page()
    deadline = time.monotonic() + 150
    audited: set[str] = set()
    try:
        page.goto(server_url + "/games/basari/rules?lang=en")
        assert page_width_overflow(page) == 0
        assert axe_violations(page) == []

        create_room(page, server_url, "basari", "Ann", 3)
        wait_live(page)
        lobby = page.locator("#r-lobby")
        for _ in range(2):
            lobby.get_by_role("button", name="Add a bot").click()
        page.wait_for_function(
            "!document.querySelector('#r-lobby button.primary').disabled", timeout=PUSH_WAIT
        )
        lobby.get_by_role("button", name="Start the game").click()
        page.wait_for_selector("#r-g-actions .bs-actions", timeout=PUSH_WAIT, state="attached")

        decisions = 0
        while not game_over(page):
            assert time.monotonic() < deadline, "the game did not finish in time"
            assert page_width_overflow(page) == 0, f"the page scrolls sideways ({moment(page)})"
            kind = moment(page)
            if kind is None:
                page.wait_for_timeout(100)  # the bots' move, or a push on its way
                continue
            page.evaluate("window.scrollTo(0, 0)")
            check_the_decision_is_in_view(page)
            decisions += 1
            if kind not in audited:
                audited.add(kind)
                assert axe_violations(page) == [], kind
                page.screenshot(path=str(artifacts / f"basari-360-{kind}.png"), full_page=True)
            take_a_turn(page, rng)

        page.wait_for_selector("#r-g-summary .bs-final .bs-breakdown", timeout=PUSH_WAIT)
        final = page.locator("#r-g-summary .bs-final").inner_text()
        assert "Where the points came from" in final
        assert " wins by " in final or " share the win " in final
        assert page_width_overflow(page) == 0
        assert axe_violations(page) == []
        page.screenshot(path=str(artifacts / "basari-360-final.png"), full_page=True)
        assert decisions >= 10 and {"choose", "continue"} <= audited, (decisions, audited)
    except Exception:
        page.screenshot(path=str(artifacts / "basari-360-failure.png"), full_page=True)
        raise
    finally:
        phone.close()
