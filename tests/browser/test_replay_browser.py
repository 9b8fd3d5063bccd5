"""A finished game's replay in the browser: buttons, the slider, the keys, whose view, and no JavaScript."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.games.base import random_legal_action
from tests.browser.helpers import axe_violations, page_width_overflow

pytestmark = pytest.mark.browser


def finished_game(server_url: str, game: str = "tulipmania-1637") -> str:
    """Ann and two bots play a whole game (Ann at random, through the API); its code."""
    created = httpx.post(  # the table agrees to a full record: every seat's view can be replayed
        f"{server_url}/api/rooms", json={"game": game, "players": 3, "name": "Ann", "full_record": True}
    ).json()
    code, headers = created["code"], {"Authorization": f"Bearer {created['token']}"}
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"fill": True}, headers=headers)
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers)
    rng = random.Random(7)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        room = httpx.get(f"{server_url}/api/rooms/{code}", headers=headers).json()
        if room["status"] == "finished":
            return str(code)
        if room["legal"] and 0 in room["to_act"]:
            action = random_legal_action(room["legal"], rng)
            httpx.post(
                f"{server_url}/api/rooms/{code}/actions",
                json={"version": room["version"], "action": action},
                headers=headers,
            )
        else:
            time.sleep(0.05)
    pytest.fail("the game did not end")


def position(page: Any) -> tuple[int, int]:
    match = re.search(r"Move (\d+) of (\d+)", page.locator(".replay-position").inner_text())
    assert match, page.locator(".replay-position").inner_text()
    return int(match[1]), int(match[2])


SETTLED = """() => {
  window.__bourseSettled = false;
  document.body.addEventListener("htmx:afterSettle", () => { window.__bourseSettled = true; }, { once: true });
}"""


def to_step(page: Any, act: Callable[[], Any], step: int) -> None:
    """Do what moves the replay to ``step`` and wait until its new table is in and live: htmx wires
    the new controls up when it settles, a moment after the swap (a person is never that fast)."""
    page.evaluate(SETTLED)
    act()
    page.wait_for_function(
        f"() => window.__bourseSettled && /Move {step} of/.test(document.querySelector('.replay-position').textContent)"
    )


def test_the_replay_slider_steps_through_a_finished_game(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    code = finished_game(server_url)
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{server_url}/r/{code}/replay?lang=en")
    step, last = position(page)
    assert step == last > 10  # the replay opens at the end
    assert "The game is over." in page.locator(".replay-position").inner_text()

    to_step(page, lambda: page.locator("#replay-first").click(), 0)
    assert page.locator("#replay-first").get_attribute("aria-disabled") == "true"
    to_step(page, lambda: page.locator("#replay-next").click(), 1)
    assert "step=1" in page.url  # the address follows, so a reload or a shared link shows this step

    # The slider: dragged (its value set), then moved with the arrow keys; it keeps the focus.
    to_step(page, lambda: page.locator("#replay-step").fill(str(last // 2)), last // 2)
    page.locator("#replay-step").focus()
    to_step(page, lambda: page.keyboard.press("ArrowRight"), last // 2 + 1)
    assert page.evaluate("() => document.activeElement && document.activeElement.id") == "replay-step"
    assert page.locator("#replay-step").input_value() == str(last // 2 + 1)
    event_lines = page.locator("#event-list li").count()

    # The page's keys, away from the slider: ← steps back.
    page.locator("h1").click()
    to_step(page, lambda: page.keyboard.press("ArrowLeft"), last // 2)
    assert page.locator("#event-list li").count() <= event_lines

    # As Ann saw it: her own hand and choices were hers to see.
    page.locator("#replay-as-0").click()
    page.wait_for_selector("#replay-as-0[aria-current]")
    assert position(page) == (last // 2, last)
    assert page.locator(".seat.you").count() == 1
    assert page_width_overflow(page) == 0
    assert axe_violations(page) == []
    page.screenshot(path=str(artifacts / "replay-360.png"), full_page=True)
    assert not errors, errors
    context.close()


def test_the_replay_works_without_javascript(browser: Any, server_url: str) -> None:
    code = finished_game(server_url)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server_url}/r/{code}/replay?step=0&lang=en")
    assert position(page)[0] == 0
    page.locator("#replay-next").click()
    page.wait_for_url("**step=1**")
    assert position(page)[0] == 1
    page.locator("#replay-step").fill("4")
    page.locator("#replay-go").click()
    page.wait_for_url("**step=4**")
    assert position(page)[0] == 4
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the game record").click()
    assert download.value.suggested_filename.endswith(".json")
    context.close()
