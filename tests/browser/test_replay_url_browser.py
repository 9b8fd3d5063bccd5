"""The replay's address bar is always the step and the seat shown: after every button, key, slider
move and change of view, so Reload and Back land on what was on the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser.test_replay_browser import finished_game, position, to_step

pytestmark = pytest.mark.browser


def shown(page: Any) -> tuple[int, str | None]:
    """The step and the seat the page shows (the seat from the view marked current)."""
    current = page.locator(".replay-seats a[aria-current]").get_attribute("id")
    seat = None if current == "replay-as-spectator" else current.removeprefix("replay-as-")
    return position(page)[0], seat


def in_address(page: Any) -> tuple[int, str | None]:
    query = parse_qs(urlparse(page.url).query)
    return int(query["step"][0]), query.get("seat", [None])[0]


def test_the_address_is_always_the_step_and_seat_shown(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    code = finished_game(server_url)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    # The room's "Replay the game" link names no step: the address becomes the last one, shown.
    page.goto(f"{server_url}/r/{code}/replay?seat=0&lang=en")
    last = position(page)[1]
    assert in_address(page) == shown(page) == (last, "0")
    page.goto(f"{server_url}/r/{code}/replay?step=3&lang=en")
    assert in_address(page) == shown(page) == (3, None)

    to_step(page, lambda: page.locator("#replay-next").click(), 4)
    assert in_address(page) == shown(page) == (4, None)

    # Switching views keeps the step, and the address names the seat.
    page.locator("#replay-as-1").click()
    page.wait_for_selector("#replay-as-1[aria-current]")
    assert in_address(page) == shown(page) == (4, "1")

    to_step(page, lambda: page.locator("#replay-next").click(), 5)
    assert in_address(page) == shown(page) == (5, "1")
    page.locator("#replay-step").focus()
    to_step(page, lambda: page.keyboard.press("ArrowRight"), 6)
    assert in_address(page) == shown(page) == (6, "1")
    to_step(page, lambda: page.locator("#replay-step").fill("9"), 9)
    assert in_address(page) == shown(page) == (9, "1")
    page.locator("h1").click()
    to_step(page, lambda: page.keyboard.press("ArrowLeft"), 8)
    assert in_address(page) == shown(page) == (8, "1")

    # Reload shows the same step and seat; Back goes to the one shown before it, and Forward returns.
    page.reload()
    assert in_address(page) == shown(page) == (8, "1")
    page.go_back()
    page.wait_for_function("() => /Move 9 of/.test(document.querySelector('.replay-position').textContent)")
    assert in_address(page) == shown(page) == (9, "1")
    page.go_back()
    page.wait_for_function("() => /Move 6 of/.test(document.querySelector('.replay-position').textContent)")
    assert in_address(page) == shown(page) == (6, "1")
    page.go_forward()
    page.wait_for_function("() => /Move 9 of/.test(document.querySelector('.replay-position').textContent)")
    assert in_address(page) == shown(page) == (9, "1")

    # Back to the spectator's view, then past the end: the address says the last step, as shown.
    page.locator("#replay-as-spectator").click()
    page.wait_for_selector("#replay-as-spectator[aria-current]")
    assert in_address(page) == shown(page) == (9, None)
    page.goto(f"{server_url}/r/{code}/replay?step=99999&seat=2&lang=en")
    assert in_address(page) == shown(page) == (last, "2")
    page.locator("h1").click()
    to_step(page, lambda: page.keyboard.press("ArrowLeft"), last - 1)
    assert in_address(page) == shown(page) == (last - 1, "2")
    page.screenshot(path=str(artifacts / "replay-url-1280.png"))
    context.close()
