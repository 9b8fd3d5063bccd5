"""Rules at the table in the browser (issue 20): the "?" beside a decision opens that phase's rules in
a dialog on the same page, by tap or keyboard, on a phone; Esc or Close puts the table back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import (
    axe_violations,
    page_width_overflow,
    seated_phone,
    started_qe_room,
    wait_live,
)

pytestmark = pytest.mark.browser


def test_the_question_mark_opens_this_phases_rules_in_place(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    code, token = started_qe_room(server_url)
    context = seated_phone(browser, server_url, code, token)
    page = context.new_page()
    page.goto(f"{server_url}/r/{code}?lang=zh_Hant")
    wait_live(page)
    room_url = page.url
    help_link = page.locator("#r-status .rules-help")
    assert help_link.get_attribute("title") == "這一步的規則"
    box = help_link.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 780, "the ? is on the first screen"
    help_link.click()
    dialog = page.locator("#rules-dialog")
    dialog.locator("h2", has_text="一場拍賣").wait_for(timeout=10000)
    assert page.url == room_url, "in place, not another page"
    assert page.evaluate("document.getElementById('rules-dialog').open")
    assert page_width_overflow(page) == 0
    assert axe_violations(page) == []
    page.screenshot(path=str(artifacts / "rules-in-place-qe-360-zh_Hant.png"))
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden", timeout=5000)
    help_link.focus()  # by keyboard: Enter on the "?" opens it again, and Close shuts it
    page.keyboard.press("Enter")
    dialog.wait_for(state="visible", timeout=10000)
    dialog.get_by_role("button", name="關閉").click()
    dialog.wait_for(state="hidden", timeout=5000)
    context.close()
