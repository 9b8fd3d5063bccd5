"""A seat's turn on a phone's first screen (issue 20): its own clock beside "Your turn" (urgent and
read out once under 10 s), a notice of what the bot did when the clock ran out (until its next move),
the host's banner when a seat turns away, a refusal shown once at its control, a "Log and chat"
button that covers no control, and the latest log lines wrapped (and opening the log on a tap)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.games.base import random_legal_action
from tests.browser.helpers import wait_live
from tests.support import served

pytestmark = pytest.mark.browser

CLOCK = 6  # seconds: under 10 s from the start, so the clock is urgent at once
PHONE = {"width": 360, "height": 780}


@pytest.fixture(scope="module")
def turn_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with a clock of a few seconds, checked often, and seats away after a second offline."""
    settings = {"BOURSE_CLOCK_PRESETS": f"{CLOCK},600", "BOURSE_CLOCK_TICK": "0.2", "BOURSE_AWAY_GRACE": "1"}
    with served(tmp_path_factory.mktemp("turns"), settings=settings) as url:
        yield url


def _seated(browser: Any, server: str, code: str, token: str) -> tuple[Any, Any]:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.add_cookies([{"name": f"bourse_seat_{code}", "value": token, "url": server}])
    page = context.new_page()
    page.goto(f"{server}/r/{code}?lang=en")
    wait_live(page)
    return context, page


def _play_when_asked(server: str, code: str, token: str, rng: random.Random) -> None:
    """Ann's own move, through the API, as soon as the game waits for her."""
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(200):
        room = httpx.get(f"{server}/api/rooms/{code}", headers=headers).json()
        if room["legal"]:
            answer = httpx.post(
                f"{server}/api/rooms/{code}/actions",
                json={"version": room["version"], "action": random_legal_action(room["legal"], rng)},
                headers=headers,
            )
            if answer.status_code == 200:
                return
        httpx.get(f"{server}/healthz")  # a short pause that asks the server, not the clock
    raise AssertionError("Ann's turn never came")


ON_FIRST_SCREEN = """(selector) => {
  const box = document.querySelector(selector).getBoundingClientRect();
  const top = box.top + window.scrollY;  // where it is on the page: the first screen is its top
  return top >= 0 && top + box.height <= window.innerHeight && box.right <= window.innerWidth;
}"""


def test_the_clock_is_beside_your_turn_and_a_timeout_is_told(
    browser: Any, turn_server: str, artifacts: Path
) -> None:
    created = httpx.post(
        f"{turn_server}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann", "clock": CLOCK}
    ).json()
    code, token = created["code"], created["token"]
    context, page = _seated(browser, turn_server, code, token)
    try:
        page.get_by_role("button", name="Fill with bots").click()
        page.get_by_role("button", name="Start the game").click()
        clock = "#r-status .prompt .turn-badge + .status-clock[data-deadline]"
        page.wait_for_selector(clock, timeout=20_000)
        assert page.evaluate(ON_FIRST_SCREEN, clock)
        page.wait_for_selector(f"{clock}.clock-low")  # urgent under 10 s, with a ⚠ besides its colour
        assert (
            page.evaluate(f"getComputedStyle(document.querySelector('{clock}'), '::before').content")
            == '"⚠ "'
        )
        page.wait_for_function(
            "() => document.getElementById('announcer').textContent === 'Less than 10 seconds left for this move.'"
        )
        page.screenshot(path=str(artifacts / "turn-clock-360.png"))
        # The clock runs out: the seat's first screen says what the bot did for it
        notice = page.locator("#r-status .timed-out")
        notice.wait_for(timeout=(CLOCK + 10) * 1000)
        said, _, move = notice.inner_text().partition(": ")
        assert said == "Your time ran out, so a bot made that decision for you" and move.strip()
        assert page.evaluate(ON_FIRST_SCREEN, "#r-status .timed-out")
        page.screenshot(path=str(artifacts / "turn-timed-out-360.png"))
        # ... until Ann's next move of her own
        _play_when_asked(turn_server, code, token, random.Random(1))
        page.wait_for_selector("#r-status .timed-out", state="detached", timeout=5_000)
    finally:
        context.close()


NOTHING_UNDER = """(selector) => {
  const mine = document.querySelector(selector).getBoundingClientRect();
  const controls = [...document.querySelectorAll("button, input, select, textarea, a, summary")]
    .filter((control) => control.id !== "log-toggle" && control.getClientRects().length);
  return controls.filter((control) => {
    const box = control.getBoundingClientRect();
    return box.left < mine.right && mine.left < box.right && box.top < mine.bottom && mine.top < box.bottom;
  }).map((control) => control.outerHTML.slice(0, 120));
}"""


def test_the_host_is_told_of_an_away_seat_and_refusals_show_once(
    browser: Any, turn_server: str, artifacts: Path
) -> None:
    created = httpx.post(f"{turn_server}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, token = created["code"], created["token"]
    bob = httpx.post(f"{turn_server}/api/rooms/{code}/join", json={"name": "Bob"}).json()
    context, page = _seated(browser, turn_server, code, token)
    bob_context, _ = _seated(browser, turn_server, code, bob["token"])
    try:
        page.get_by_role("button", name="Fill with bots").click()
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector("#r-status .status-playing")
        bob_context.close()  # Bob's tab closes: a second later his seat is away
        banner = page.locator("#r-status .away-banner")
        banner.wait_for(timeout=10_000)
        assert "Bob is away." in banner.inner_text()
        assert page.evaluate(ON_FIRST_SCREEN, "#r-status .away-banner button")
        page.screenshot(path=str(artifacts / "turn-away-banner-360.png"))

        # The log button sits in the page's head: nothing of the table is ever under it
        toggle = page.locator("#log-toggle")
        assert toggle.is_visible()
        assert toggle.evaluate("(button) => getComputedStyle(button).position") != "fixed"
        for scroll in (0, 400, 100_000):
            page.evaluate(f"window.scrollTo(0, {scroll})")
            assert page.evaluate(NOTHING_UNDER, "#log-toggle") == []
        page.evaluate("window.scrollTo(0, 0)")

        # The host hands Bob's seat to a bot from the banner
        banner.get_by_role("button", name="Let a bot play").click()
        page.wait_for_selector("#r-status .away-banner", state="detached", timeout=5_000)
        page.wait_for_selector(".seat[data-seat='1'] .tag:has-text('played by a bot')")

        # A refused bid: its message once, at the form (not in the flash as well)
        page.wait_for_selector("#r-status [data-your-move=yes]", timeout=20_000)
        box = page.locator(".decision form input[type=number], .decision form input[inputmode=numeric]").first
        form_id = box.evaluate("(input) => { input.form.noValidate = true; return input.form.id; }")
        box.fill("-7")
        box.press("Enter")
        page.locator(f"#{form_id} .control-error").wait_for(timeout=5_000)
        page.wait_for_timeout(300)
        assert page.locator("#r-flash .flash").count() == 0
        assert page.get_by_role("alert").count() == 1

        # The latest lines wrap instead of being cut, and a tap opens the log on them. They show once a
        # push brings new lines: the table waits for Ann, so she moves (through the API) to bring some.
        _play_when_asked(turn_server, code, token, random.Random(5))
        latest = page.locator("#latest-events")
        latest.wait_for(timeout=10_000)
        style = latest.evaluate(
            "(line) => [getComputedStyle(line).whiteSpace, getComputedStyle(line).textOverflow]"
        )
        assert style[0] != "nowrap" and style[1] != "ellipsis"
        # the push that brought them may still be playing (motion.js): a tap then skips it to its end,
        # and the page it swaps in may move what was under the finger, so tap once it has played
        page.wait_for_selector("html:not(.vt-playing)")
        latest.click()
        page.wait_for_selector("body.log-open")
        assert toggle.evaluate("(button) => getComputedStyle(button).position") == "fixed"
        page.screenshot(path=str(artifacts / "turn-log-open-360.png"))
    finally:
        context.close()


def test_only_a_spectator_is_told_they_are_watching(browser: Any, turn_server: str) -> None:
    """The status line of a seat with nothing to decide is the spectators' (the same bytes): its
    "You are watching this game." shows on a spectator's page only."""
    created = httpx.post(f"{turn_server}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, token = created["code"], created["token"]
    headers = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{turn_server}/api/rooms/{code}/bots", json={"fill": True}, headers=headers)
    httpx.post(f"{turn_server}/api/rooms/{code}/start", headers=headers)
    context, page = _seated(browser, turn_server, code, token)
    watcher = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        spectator = watcher.new_page()
        spectator.goto(f"{turn_server}/r/{code}?lang=en")
        wait_live(spectator)
        for shown in (page, spectator):
            shown.wait_for_selector("#r-status .status-playing")
        assert "You are watching this game." in spectator.locator("#r-status").inner_text()
        assert "You are watching this game." not in page.locator("#r-status").inner_text()
        assert "You are watching this game." not in page.locator("#room").inner_text()
    finally:
        watcher.close()
        context.close()


TURN_MARKS = """() => [...document.querySelectorAll('.seat[data-seat]')].map((pill) => {
  const seat = pill.getAttribute('data-seat');
  const card = document.querySelector(`.qe-seat-card[data-turn-seat="${seat}"]`);
  const sealed = document.querySelector(`.qe-sealed li[data-turn-seat="${seat}"]`);
  return {
    seat: Number(seat),
    tag: pill.querySelector('.to-act-tag').checkVisibility(),
    pill: getComputedStyle(pill).backgroundColor,
    card: getComputedStyle(card).backgroundColor,
    sealed: sealed && sealed.innerText.split(': ')[1],
  };
})"""


# once the seat's sealed-bid line flashed, or the page shows no such line (the bidding is over)
FLASHED_OR_GONE = """(seat) => {
  const line = document.querySelector(`.qe-sealed li[data-turn-seat="${seat}"]`);
  return !line ? "gone" : line.classList.contains('changed') ? "flashed" : false;
}"""


@pytest.mark.parametrize("width", [360, 1280])
def test_the_seats_the_game_waits_for_are_marked_as_the_turn_passes(
    browser: Any, turn_server: str, artifacts: Path, width: int
) -> None:
    """Three people at a Q.E. table, their moves made through the API: after each, Ann's page marks
    exactly the seats the game waits for ("to move" on their pills, their pills and players' cards
    in the turn's colour, "still deciding" for a sealed bid not yet handed in), though the seats,
    players' and auction regions are not drawn again for it."""
    created = httpx.post(f"{turn_server}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, tokens = created["code"], [created["token"]]
    for name in ("Bob", "Cy"):
        tokens.append(httpx.post(f"{turn_server}/api/rooms/{code}/join", json={"name": name}).json()["token"])
    headers = [{"Authorization": f"Bearer {token}"} for token in tokens]
    assert httpx.post(f"{turn_server}/api/rooms/{code}/start", headers=headers[0]).status_code == 200
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([{"name": f"bourse_seat_{code}", "value": tokens[0], "url": turn_server}])
    page = context.new_page()
    rng = random.Random(5)
    try:
        page.goto(f"{turn_server}/r/{code}?lang=en")
        wait_live(page)
        passed = bidding = flashed = 0
        for move in range(8):
            room = httpx.get(f"{turn_server}/api/rooms/{code}", headers=headers[0]).json()
            page.wait_for_function(
                "(seats) => document.querySelector('.turn-marks').getAttribute('data-to-act') === seats",
                arg=" ".join(str(seat) for seat in room["to_act"]),
            )
            marks = page.evaluate(TURN_MARKS)
            waited = [mark for mark in marks if mark["seat"] in room["to_act"]]
            others = [mark for mark in marks if mark["seat"] not in room["to_act"]]
            assert waited and all(mark["tag"] for mark in waited) and not any(mark["tag"] for mark in others)
            assert len({mark["pill"] for mark in waited}) == 1 and len({mark["card"] for mark in waited}) == 1
            assert all(
                mark["pill"] != waited[0]["pill"] and mark["card"] != waited[0]["card"] for mark in others
            )
            if any(mark["sealed"] for mark in marks):  # sealed bids: who is still deciding
                bidding += 1
                assert all(mark["sealed"] == "… still deciding" for mark in waited)
                assert {mark["sealed"] for mark in others} <= {None, "✓ sealed bid handed in"}
            if move == 1:
                page.screenshot(path=str(artifacts / f"turn-marks-{width}.png"), full_page=True)
            seat = room["to_act"][0]
            before = room["to_act"]
            mover = httpx.get(f"{turn_server}/api/rooms/{code}", headers=headers[seat]).json()
            answer = httpx.post(
                f"{turn_server}/api/rooms/{code}/actions",
                json={"version": mover["version"], "action": random_legal_action(mover["legal"], rng)},
                headers=headers[seat],
            )
            assert answer.status_code == 200, answer.text
            passed += answer.json()["to_act"] != before
            if any(mark["seat"] == seat and mark["sealed"] for mark in marks):
                # a bid handed in flashes its line, as a change drawn by the server does (bourse.js)
                flashed += page.wait_for_function(FLASHED_OR_GONE, arg=str(seat)).json_value() == "flashed"
        assert passed >= 3  # the turn moved on several times, not only within one sealed round
        assert bidding >= 2 and flashed >= 1
    finally:
        context.close()


def test_what_is_read_out_of_a_new_decision_is_what_the_seat_sees(browser: Any, turn_server: str) -> None:
    """The announcer (read by screen readers) and the turn's notification read the status line as it is
    shown: a seat heard "Rules for this decision" and the spectators' "You are watching this game"
    after every decision (the newcomer trial), which the page hides from its eyes."""
    created = httpx.post(
        f"{turn_server}/api/rooms", json={"game": "tulipmania-1637", "players": 3, "name": "Ann"}
    ).json()
    code, token = created["code"], created["token"]
    context, page = _seated(browser, turn_server, code, token)
    try:
        page.get_by_role("button", name="Fill with bots").click()
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_function("() => document.getElementById('announcer').textContent.trim() !== ''")
        page.wait_for_selector("#r-status .rules-help")  # the decision's "?" is on the status line
        said = page.evaluate("document.getElementById('announcer').textContent")
        shown = page.locator("#r-status .prompt-text").inner_text()
        assert shown.strip() and shown.strip() in said
        assert "watching" not in said and "Rules for this decision" not in said
    finally:
        context.close()


def test_a_question_before_an_irreversible_move_waits_to_be_read_and_a_tap_elsewhere_withdraws_it(
    browser: Any, turn_server: str
) -> None:
    """The first tap on such a button asks its question; 4 s later it used to take the question back
    before a newcomer had read it. It stays for longer, and a tap anywhere else takes it back."""
    created = httpx.post(f"{turn_server}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, token = created["code"], created["token"]
    context, page = _seated(browser, turn_server, code, token)
    try:
        page.get_by_role("button", name="Fill with bots").click()
        page.get_by_role("button", name="Start the game").click()
        button = page.locator("button[data-confirm]").first
        button.wait_for(timeout=20_000)
        label = button.inner_text()
        button.click()
        assert button.inner_text() == button.get_attribute("data-confirm")
        page.wait_for_timeout(5_000)
        assert "armed" in (button.get_attribute("class") or "")
        page.locator("h1").first.click()
        assert "armed" not in (button.get_attribute("class") or "") and button.inner_text() == label
    finally:
        context.close()
