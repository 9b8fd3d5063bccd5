"""The table as a person sees it, for every game, on a phone (360 px) and a laptop (1280 px).

One person (Ann) plays a whole game against two bots. Ann's moves go through the JSON API with her
seat's token (random legal moves: this is about the page, not the play), so the page is updated by
pushes alone, exactly as when the others move. On the way the page is checked as the table issue
asks: it never scrolls sideways, nothing is logged as an error, the status names the decision, the
decision is on the first screen of a phone, a refused number is explained at its control with what
was typed kept, another seat's change is marked as changed, and axe-core finds nothing serious.
Screenshots of each game in the three languages at 390 and 1280 px are saved for people to look at.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from app.games.base import random_legal_action
from app.games.registry import ENGINES
from tests.browser.helpers import axe_violations, create_room, page_width_overflow, wait_live
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

GAMES = sorted(ENGINES)
GENERIC_PROMPTS = ("Your move!", "Waiting for")  # the platform's fallback: a game's own prompt names more
GAME_SECONDS = 150  # a bound on one whole game; bots move every 50 ms in the test server

# Counts every element the page marks as changed (installed once per page).
WATCH_CHANGES = """() => {
  window.__bourseChanged = 0;
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.target.classList && record.target.classList.contains("changed")) window.__bourseChanged++;
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["class"]});
}"""


READ_THE_TABLE = """() => {
  const panels = document.querySelectorAll(".decision");
  const status = document.querySelector("#r-status [data-your-move]");
  const prompt = document.querySelector("#r-status .prompt-text");
  return {
    yours: Boolean(status && status.getAttribute("data-your-move") === "yes"),
    prompt: prompt ? prompt.innerText.trim() : "",
    panels: panels.length,
    top: panels.length ? panels[0].getBoundingClientRect().top + window.scrollY : 0,
  };
}"""


def _token(page: Any) -> str:
    """Ann's seat token, from her personal link in the room menu (/r/<code>/resume#<token>)."""
    resume = page.locator(".resume-link input.copy").input_value()
    return str(resume.split("#", 1)[1])


def _api(page: Any, server_url: str, code: str, token: str) -> dict[str, Any]:
    answer = page.request.get(f"{server_url}/api/rooms/{code}", headers={"Authorization": f"Bearer {token}"})
    assert answer.ok, answer.text()
    return dict(answer.json())


def _play_one(
    page: Any, server_url: str, code: str, token: str, room: dict[str, Any], rng: random.Random
) -> None:
    """One random legal move of Ann's, retried while the engine refuses a sampled value."""
    for _ in range(40):
        action = random_legal_action(room["legal"], rng)
        answer = page.request.post(
            f"{server_url}/api/rooms/{code}/actions",
            data={"version": room["version"], "action": action},
            headers={"Authorization": f"Bearer {token}"},
        )
        if answer.ok or answer.status == 409:
            return
        room = _api(page, server_url, code, token)
        if not room["legal"]:
            return


def _refused_number_is_explained(page: Any) -> bool:
    """Type a number no game accepts into the decision's first number box and send it: the message
    must appear at that form with the number still there. False when the decision has no number box."""
    box = page.locator(".decision form input[type=number], .decision form input[inputmode=numeric]").first
    if not box.count() or not box.is_visible() or not box.is_enabled():
        return False
    form_id = box.evaluate("(input) => { input.form.noValidate = true; return input.form.id; }")
    typed = "-7"  # no game takes a negative number
    box.fill(typed)
    box.press("Enter")
    error = (
        page.locator(f"#{form_id} .control-error") if form_id else page.locator(".decision .control-error")
    )
    error.first.wait_for(timeout=5_000)
    assert error.first.inner_text().strip()
    kept = page.locator(f"#{form_id} input[type=number], #{form_id} input[inputmode=numeric]").first
    assert kept.input_value() == typed
    return True


# How many CSS pixels of Basari's widest scoring table are out of its scrolling box (0 in other games).
SCORING_HIDDEN = """() => Math.max(0, ...[...document.querySelectorAll('.bs-scoring')].map(
  (table) => table.parentElement.scrollWidth - table.parentElement.clientWidth))"""


def _screenshots(browser: Any, url: str, storage: Any, game: str) -> None:
    folder = ARTIFACTS / "screens"
    folder.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(storage_state=storage)
    try:
        page = context.new_page()
        for width in (390, 1280):
            page.set_viewport_size({"width": width, "height": 844 if width < 500 else 900})
            for lang in ("en", "zh_Hant", "zh_Hans"):
                page.goto(f"{url}?lang={lang}")
                page.wait_for_selector("#r-status")
                page.screenshot(path=str(folder / f"{game}-{width}-{lang}.png"), full_page=True)
    finally:
        context.close()


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_at_the_table(browser: Any, server_url: str, game: str, width: int) -> None:
    phone = width < 500
    context = browser.new_context(viewport={"width": width, "height": 740 if phone else 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    try:
        create_room(page, server_url, game, "Ann", 3)
        page.evaluate(WATCH_CHANGES)
        code = page.url.rstrip("/").rsplit("/", 1)[1].split("?")[0]
        token = _token(page)
        assert axe_violations(page) == [], "the room's lobby"
        page.get_by_role("button", name="Fill with bots").click()
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector("#r-status .status-playing, #r-status .status-finished")
        wait_live(page)
        rng = random.Random(f"{game}/{width}")
        deadline = time.monotonic() + GAME_SECONDS
        checked_axe = refused_checked = screenshots_taken = False
        decisions = 0
        while time.monotonic() < deadline:
            if page.locator("#r-status .status-finished").count():
                break
            assert page_width_overflow(page) == 0, "the page scrolls sideways"
            status = page.locator("#r-status .status").inner_text().strip()
            assert status, "an empty status"
            room = _api(page, server_url, code, token)
            if room["status"] != "playing":
                page.wait_for_timeout(60)
                continue
            if 0 not in room["to_act"] or not room["legal"]:
                page.wait_for_timeout(60)
                continue
            page.wait_for_selector("#r-status [data-your-move=yes]", timeout=5_000)
            seen = page.evaluate(READ_THE_TABLE)  # one reading: a push cannot land between two reads
            if not seen["yours"]:
                continue  # the move went by meanwhile (a clockless window closing, a stale answer)
            status = seen["prompt"]
            assert status and not status.startswith(GENERIC_PROMPTS), (
                f"the status names no decision: {status!r}"
            )
            assert seen["panels"] == 1, "one decision panel while it is Ann's move"
            if phone:
                assert seen["top"] < 740, f"the decision starts below the first screen, at {seen['top']} px"
            if not checked_axe and decisions >= 2:
                assert axe_violations(page) == [], "the table during play"
                checked_axe = True
            if not refused_checked:
                refused_checked = _refused_number_is_explained(page)
            if not screenshots_taken and decisions >= 3:
                _screenshots(browser, page.url.split("?")[0], context.storage_state(), game)
                screenshots_taken = True
            _play_one(page, server_url, code, token, room, rng)
            decisions += 1
        page.wait_for_selector("#r-status .status-finished", timeout=10_000)
        assert page_width_overflow(page) == 0, "the end screen scrolls sideways"
        # its scrolling box kept the page in place but hid the Total column on a phone
        assert page.evaluate(SCORING_HIDDEN) == 0, "a round's scoring scrolls inside its panel"
        assert axe_violations(page) == [], "the end screen"
        assert decisions > 0
        assert page.evaluate("window.__bourseChanged") > 0, "nothing was ever marked as changed"
        # A refused move is answered 422 (and a stale one 409) by design; Chromium logs any 4xx load.
        refusals = ("status of 422", "status of 409")
        assert [problem for problem in problems if not any(r in problem for r in refusals)] == [], problems
    finally:
        context.close()


@pytest.mark.parametrize("path", ["/", *(f"/games/{game}/rules" for game in GAMES), "/rooms/import"])
def test_the_start_rules_and_import_pages_pass_axe(browser: Any, server_url: str, path: str) -> None:
    page = browser.new_page(viewport={"width": 360, "height": 740})
    try:
        page.goto(server_url + path + "?lang=en")
        assert page_width_overflow(page) == 0
        assert axe_violations(page) == []
    finally:
        page.close()


HIDDEN_TAB = """
Object.defineProperty(document, "hidden", { get: () => true });
Object.defineProperty(document, "visibilityState", { get: () => "hidden" });
window.__bourseNotes = [];
window.__bourseBuzz = [];
navigator.vibrate = (pattern) => { window.__bourseBuzz.push(pattern); return true; };
const RealNotification = window.Notification;
window.Notification = function (title, options) {
  window.__bourseNotes.push({ title: title, body: options && options.body });
  return { close() {} };
};
window.Notification.permission = "granted";
window.Notification.requestPermission = () => Promise.resolve("granted");
localStorage.setItem("bourse.alert-notify", "1");
"""


def test_a_hidden_tab_is_told_when_its_turn_comes(browser: Any, server_url: str) -> None:
    """With the tab hidden, the turn that comes by a push raises a notification naming the decision,
    a vibration, a title mark and a badge on the tab's icon."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(HIDDEN_TAB)
    page = context.new_page()
    try:
        create_room(page, server_url, "qe", "Ann", 3)
        page.get_by_role("button", name="Fill with bots").click()
        page.get_by_role("button", name="Start the game").click()
        wait_live(page)
        page.wait_for_selector("#r-status [data-your-move=yes]", timeout=20_000)
        page.wait_for_function("window.__bourseNotes.length > 0", timeout=5_000)
        note = page.evaluate("window.__bourseNotes[0]")
        assert note["title"] == "Your turn" and note["body"].strip()
        assert page.evaluate("window.__bourseBuzz.length") > 0
        assert page.title().startswith("● Your turn")
        page.wait_for_function("document.getElementById('favicon').href.startsWith('data:image/png')")
    finally:
        context.close()
