"""Learning at the table in the browser (issue 46): "Learn Q.E." opens a practice game on a phone in
the page's language, whose coach panel explains the decision, opens its rule in place, and answers
"Hint" with the search's options; no other tab is shown the panel."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import axe_violations, page_width_overflow, wait_live

pytestmark = pytest.mark.browser


def test_a_practice_game_has_a_coach_that_gives_hints(browser: Any, server_url: str, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 780})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{server_url}/?lang=zh_Hant")
    page.locator("#game-qe form.learn-form button").click()
    page.wait_for_url("**/r/*")
    wait_live(page)
    coach = page.locator(".coach-panel")
    coach.wait_for(timeout=20000)
    assert coach.locator("h2").inner_text() == "教練"
    assert "花費" in coach.inner_text()  # Q.E.'s numbers: what you will have spent
    coach.get_by_role("button", name="提示").click()
    options = page.locator(".hint-options li")
    options.first.wait_for(timeout=60000)
    # In the page's language, as much as the deal and the host's CPU gave the search: the share of ten
    # games; on fewer than ten playouts what they came to; with none in time, the bots' usual move; or
    # the seat's only option (CI's deal once left Ann a single bid).
    said = options.first.inner_text()
    assert re.search(
        r"10 局贏 \d+ 局|\d+ 局推演中贏了 \d+ 局，太少|電腦玩家在這裡通常的走法|你唯一的選擇", said
    ), said
    assert page_width_overflow(page) == 0
    assert axe_violations(page) == []
    page.screenshot(path=str(artifacts / "learn-qe-360-zh_Hant.png"), full_page=True)
    shown = options.count()
    # the coach is a region of the page: a push that brings it again (as the plain path sends every
    # region) morphs it in, and the hint's answer stays while the decision is the same
    page.evaluate(
        """async () => {
            const fresh = new DOMParser().parseFromString(await (await fetch(location.pathname + location.search)).text(), "text/html");
            const region = fresh.getElementById("r-coach");
            region.setAttribute("hx-swap-oob", "morph");
            htmx.swap(document.body, "<div>" + region.outerHTML + "</div>", {swapStyle: "none"});
        }"""
    )
    assert page.locator("#r-coach .hint-button").count() == 1  # morphed in, still there
    assert shown > 0 and page.locator(".hint-options li").count() == shown
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=str(artifacts / "learn-qe-1280-zh_Hant.png"), full_page=True)
    assert axe_violations(page) == []
    page.set_viewport_size({"width": 360, "height": 780})
    coach.locator(".coach-rule a").click()
    page.locator("#rules-dialog").wait_for(state="visible", timeout=10000)
    # a spectator of the same table sees that hints are allowed, and no panel of anyone's
    spectator = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
    spectator.goto(page.url.split("?")[0] + "?lang=en")
    wait_live(spectator)
    assert spectator.locator(".hints-allowed").count() == 1
    assert spectator.locator("#coach").count() == 0
    assert not spectator.locator("#r-coach").is_visible()  # an empty region takes no room
    assert errors == []
    context.close()
