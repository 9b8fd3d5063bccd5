"""Tooltips in the browser (issue 20): on a phone (no hover) a tap on a named or valued piece shows its
name or value beside it until the next tap; a tap on a control does not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.helpers import wait_live

pytestmark = pytest.mark.browser


def test_a_tap_on_a_tulipmania_piece_shows_its_tooltip(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    created = httpx.post(
        f"{server_url}/api/rooms", json={"game": "tulipmania-1637", "players": 3, "name": "Ann"}
    ).json()
    code, token = created["code"], created["token"]
    headers = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"fill": True}, headers=headers)
    assert httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers).status_code == 200
    context = browser.new_context(viewport={"width": 360, "height": 780}, has_touch=True, is_mobile=True)
    context.add_cookies([{"name": f"bourse_seat_{code}", "value": token, "url": server_url}])
    page = context.new_page()
    page.goto(f"{server_url}/r/{code}?lang=en")
    wait_live(page)
    tip = page.locator(".tap-tip")
    cell = page.locator(".tm-board-svg .tm-cell").first
    cell.scroll_into_view_if_needed()
    cell.tap()
    tip.wait_for(timeout=5000)
    assert tip.inner_text() == "Burst price: ƒ3,000"  # the board's top-left space
    chip = page.locator("#r-g-market .tm-chip").first
    chip.scroll_into_view_if_needed()
    chip.tap()
    assert tip.inner_text() == chip.get_attribute("title")
    tip_box, chip_box = tip.bounding_box(), chip.bounding_box()
    assert tip_box and chip_box and tip_box["y"] >= chip_box["y"] + chip_box["height"] - 1, "under the piece"
    assert tip_box["x"] >= 0 and tip_box["x"] + tip_box["width"] <= 360, "on the screen"
    page.screenshot(path=str(artifacts / "tooltip-tulipmania-360.png"))
    page.locator("h1").tap()  # a tap elsewhere puts it away
    assert tip.count() == 0
    context.close()
