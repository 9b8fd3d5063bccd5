"""My games and the humane day clock in the browser (issue 23): a table with a day's clock says when
your time runs out in your own time zone (two readers in two zones see the same moment in their own
hours); the start page links to My games, which lists the browser's rooms with the one where it is
your turn first and your clock, at 360 px and 1280 px; the host pauses the clock, the table and the
chat say so, and My games shows it once it asks for its list again. The site installs (Chromium
finds nothing against it; its icon opens My games), and My games opens with the server gone."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.browser.helpers import page_width_overflow, wait_live
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.support import free_port, start_server

pytestmark = pytest.mark.browser

DAY = 86400  # seconds: the day clock the shared server offers
PUSH_WAIT = 20_000


def until_in(deadline_ms: int, zone: str) -> str:
    """What an English page shows in ``zone`` for a clock ending at ``deadline_ms``: "until Thu 02:05 PM"."""
    moment = datetime.fromtimestamp(deadline_ms / 1000, ZoneInfo(zone))
    return f"until {moment:%a} {moment:%I:%M %p}"


def spaced(text: str) -> str:
    """Text with the browser's narrow and no-break spaces as plain ones."""
    return text.replace("\u202f", " ").replace("\xa0", " ").strip()


def shown_until(page: Any, selector: str) -> str:
    """The text the page's script wrote into the first ``selector``, read in the same look that saw it
    written: a region the socket swaps in meanwhile (a page's seats, sent again as its tab connects)
    brings a new element whose text the script writes a moment later."""
    shown = page.wait_for_function(
        "(selector) => { const t = document.querySelector(selector); return t && t.innerText.trim() ? t.innerText : null; }",
        arg=selector,
        timeout=PUSH_WAIT,
    )
    return spaced(shown.json_value())


def create(page: Any, server_url: str, game: str, players: int, clock: int = 0) -> str:
    page.goto(server_url + "/?lang=en")
    card = page.locator(f"#game-{game}")
    card.locator("input[name=name]").fill("Ann")
    card.locator("select[name=players]").select_option(str(players))
    if clock:
        card.locator("select[name=clock]").select_option(str(clock))
    card.get_by_role("button", name="Create a room").click()
    page.wait_for_url("**/r/*")
    return str(page.url.rstrip("/").rsplit("/", 1)[1])


def test_my_games_lists_your_turn_first_with_your_clock_in_your_own_time(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 780}, timezone_id="Asia/Taipei")
    page = context.new_page()
    code = create(page, server_url, "qe", 3, clock=DAY)  # two bots: the table waits for Ann alone
    wait_live(page)
    page.locator("#r-lobby").get_by_role("button", name="Fill with bots").click()
    page.wait_for_function("!document.querySelector('#r-lobby button.primary').disabled", timeout=PUSH_WAIT)
    page.locator("#r-lobby").get_by_role("button", name="Start the game").click()
    page.wait_for_selector("#r-status .status-clock[data-deadline]", timeout=PUSH_WAIT)
    deadline = int(page.locator("#r-status .status-clock").get_attribute("data-deadline"))
    assert deadline > time.time() * 1000 + (DAY - 60) * 1000
    assert shown_until(page, "#r-status time.clock-until") == until_in(deadline, "Asia/Taipei")
    assert shown_until(page, ".seat.you time.clock-until") == until_in(deadline, "Asia/Taipei")
    page.screenshot(path=str(artifacts / "day-clock-local-360.png"))

    elsewhere = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="America/New_York")
    spectator = elsewhere.new_page()
    spectator.goto(f"{server_url}/r/{code}?lang=en")
    assert shown_until(spectator, ".seat time.clock-until") == until_in(deadline, "America/New_York")
    elsewhere.close()

    waiting = create(page, server_url, "basari", 3)  # a room not started yet comes after
    page.goto(server_url + "/?lang=en")
    page.get_by_role("link", name="My games").click()
    page.wait_for_url("**/my-games")
    rooms = page.locator(".my-game").evaluate_all("cards => cards.map(card => card.dataset.room)")
    assert rooms == [code, waiting]
    mine = page.locator(f".my-game[data-room='{code}']")
    assert mine.locator(".turn-badge").text_content() == "Your turn"
    assert "With: Bot " in mine.inner_text()
    assert "It is your turn in 1 game." in page.locator(".my-games-count").inner_text()
    page.wait_for_function(
        "(code) => /^\\d+:\\d\\d:\\d\\d$/.test(document.querySelector(`.my-game[data-room='${code}'] .clock-left`).textContent)",
        arg=code,
    )
    assert shown_until(page, f".my-game[data-room='{code}'] time.clock-until") == until_in(
        deadline, "Asia/Taipei"
    )
    assert page_width_overflow(page) == 0
    page.screenshot(path=str(artifacts / "my-games-360.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    assert page_width_overflow(page) == 0
    page.screenshot(path=str(artifacts / "my-games-1280.png"), full_page=True)

    # The host pauses the clock: the table and its chat say so, and My games once it asks again.
    table = context.new_page()
    table.goto(f"{server_url}/r/{code}?lang=en")
    wait_live(table)
    table.get_by_role("button", name="Pause the clock").click()
    table.wait_for_selector(".seat.you .clock-paused", timeout=PUSH_WAIT)
    assert "paused" in table.locator("#r-status .status-clock").inner_text()
    table.wait_for_selector("#chat-list .chat-notice", state="attached", timeout=PUSH_WAIT)  # in the drawer
    assert (table.locator("#chat-list .chat-notice").text_content() or "").strip() == "Ann paused the clock."
    page.evaluate(
        "() => document.dispatchEvent(new Event('visibilitychange'))"
    )  # the page comes back to view
    page.wait_for_selector(f".my-game[data-room='{code}'] .clock-paused", timeout=PUSH_WAIT)
    table.get_by_role("button", name="Resume the clock").click()
    table.wait_for_selector("#r-status .status-clock[data-deadline]", timeout=PUSH_WAIT)
    assert table.locator("#chat-list .chat-notice").count() == 2
    context.close()


def test_the_site_installs_and_my_games_opens_when_the_server_cannot_be_reached(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    """Under the app's own CSP (no bypass): the service worker keeps My games, so the home-screen
    icon opens it without a connection, saying the list is as last seen."""
    port = free_port()
    server_url = f"http://127.0.0.1:{port}"
    with (tmp_path / "server.log").open("wb") as log:
        server = start_server(tmp_path / "bourse.db", port, bot_delay=0.05, log=log)
    try:
        # Chromium installs no app from a private window: a profile of its own, as a phone has.
        context = browser.browser_type.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            viewport={"width": 360, "height": 780},
        )
        page = context.new_page()
        code = create(page, server_url, "qe", 3)
        page.goto(server_url + "/my-games?lang=en")
        page.evaluate("async () => { await navigator.serviceWorker.ready; }")
        give_up = time.monotonic() + 20
        while not page.evaluate("async () => Boolean(await caches.match('/my-games'))"):
            assert time.monotonic() < give_up, "the service worker kept no copy of My games"
            page.wait_for_timeout(200)
        devtools = context.new_cdp_session(page)
        assert devtools.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        manifest = devtools.send("Page.getAppManifest")
        assert manifest["errors"] == [] and '"start_url": "/my-games"' in manifest["data"]

        server.terminate()
        server.wait(timeout=10)
        page.goto(server_url + "/my-games")  # what the home-screen icon opens, with no server to answer
        assert page.locator(f".my-game[data-room='{code}']").count() == 1
        page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")  # it asks for its list
        page.wait_for_selector("#my-games-offline:not([hidden])", timeout=PUSH_WAIT)
        page.screenshot(path=str(artifacts / "my-games-offline-360.png"))
        context.close()
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=10)
