"""Groups in the browser (issue 11): a turn clock counts down on the page and runs out (a bot then
decides and the log says so), and a chat message sent from a phone-sized page appears on a
laptop-sized one."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.helpers import wait_live
from tests.support import served

pytestmark = pytest.mark.browser

CLOCK = 4  # seconds: the short preset this server offers


@pytest.fixture(scope="module")
def clock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose shortest clock preset is a few seconds, checked often (the shared server
    keeps the real presets)."""
    settings = {"BOURSE_CLOCK_PRESETS": f"{CLOCK},600", "BOURSE_CLOCK_TICK": "0.2"}
    with served(tmp_path_factory.mktemp("groups"), settings=settings) as url:
        yield url


def seconds_shown(page: Any) -> int:
    """The seconds Ann's clock shows. A push may draw her seat again at any moment, and the new
    clock reads "…" until the page's next tick (0.25 s): so poll until it shows m:ss."""
    deadline = time.monotonic() + 5
    while True:
        text = page.evaluate(
            "() => (document.querySelector('.seat.you .clock .clock-left') || {}).textContent || ''"
        ).strip()
        if re.fullmatch(r"\d+:\d\d", text):
            minutes, seconds = text.split(":")
            return int(minutes) * 60 + int(seconds)
        assert time.monotonic() < deadline, f"Ann's clock shows {text!r}, not m:ss"
        page.wait_for_timeout(50)


def test_a_clock_counts_down_and_runs_out(browser: Any, clock_server: str, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(clock_server + "/?lang=en")
    card = page.locator("#game-qe")
    card.locator("input[name=name]").fill("Ann")
    card.locator("select[name=players]").select_option("3")
    card.locator("select[name=clock]").select_option(str(CLOCK))
    card.get_by_role("button", name="Create a room").click()
    page.wait_for_url("**/r/*")
    wait_live(page)
    page.get_by_role("button", name="Fill with bots").click()
    page.wait_for_selector(".seat:nth-child(3)")
    page.get_by_role("button", name="Start the game").click()
    code = page.url.rstrip("/").rsplit("/", 1)[1]
    # Ann's turn comes (the bots move at once); her clock shows and counts down
    page.wait_for_selector(".seat.you .clock[data-deadline]", timeout=20_000)
    first = seconds_shown(page)
    assert 0 < first <= CLOCK
    page.screenshot(path=str(artifacts / "groups-clock-running.png"))
    deadline = page.locator(".seat.you .clock").get_attribute("data-deadline")
    page.wait_for_timeout(1200)
    if page.locator(f".seat.you .clock[data-deadline='{deadline}']").count():
        assert seconds_shown(page) < first  # the same decision's clock counts down
    # it runs out: a bot decides for Ann, and the log says so
    page.wait_for_function(
        "() => [...document.querySelectorAll('#event-list li')].some(li => li.textContent.includes('time ran out'))",
        timeout=(CLOCK + 10) * 1000,
    )
    log = httpx.get(f"{clock_server}/api/rooms/{code}/log").json()["events"]
    assert any(event["text"] == "Ann's time ran out: a bot made that decision." for event in log)
    page.screenshot(path=str(artifacts / "groups-clock-ran-out.png"))
    context.close()


def test_a_chat_message_from_a_phone_appears_on_a_laptop(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    created = httpx.post(f"{server_url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code = created["code"]
    joined = httpx.post(f"{server_url}/api/rooms/{code}/join", json={"name": "Bob"}).json()
    laptop_context = browser.new_context(viewport={"width": 1280, "height": 900})
    phone_context = browser.new_context(
        viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    for context, token in ((laptop_context, created["token"]), (phone_context, joined["token"])):
        context.add_cookies([{"name": f"bourse_seat_{code}", "value": token, "url": server_url}])
    laptop, phone = laptop_context.new_page(), phone_context.new_page()
    for page in (laptop, phone):
        page.goto(f"{server_url}/r/{code}?lang=en")
        wait_live(page)
    started = time.monotonic()
    phone.locator("#chat-text").fill("Shall we start? <b>now</b>")
    phone.locator("#chat-form").get_by_role("button", name="Send").click()
    laptop.wait_for_selector("#chat-list li:has-text('Shall we start?')", timeout=10_000)
    assert time.monotonic() - started < 10
    line = laptop.locator("#chat-list li").last
    assert "Bob" in line.inner_text() and "<b>now</b>" in line.inner_text()  # shown as typed, not as markup
    assert phone.locator("#chat-text").input_value() == ""  # the box is emptied for the next message
    phone.wait_for_selector("#chat-list li:has-text('Shall we start?')")
    phone.locator(".chat-reactions").get_by_role("button", name="Thumbs up").click()
    laptop.wait_for_selector("#chat-list li.chat-reaction")
    assert laptop.locator("#chat-list .chat-mute:visible").count() == 2  # the host may mute Bob
    assert phone.locator("#chat-list .chat-mute:visible").count() == 0  # Bob may not
    laptop.screenshot(path=str(artifacts / "groups-chat-laptop.png"))
    phone.screenshot(path=str(artifacts / "groups-chat-phone.png"), full_page=True)
    laptop_context.close()
    phone_context.close()
