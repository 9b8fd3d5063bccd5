"""The control that completes each decision is on the first screen (issue 20), on a phone (360×780)
and a laptop (1280×800), in every phase of every game.

Ann plays whole games against two bots; her moves go through the JSON API (random legal moves), so
the page changes by pushes alone. At each of her decisions the page, scrolled to its top, is measured:
every form of the decision must have its submit button inside the window. On the phone, each kind of
decision (its set of action types) is saved as a screenshot in the three languages, for review.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from app.games.registry import ENGINES
from tests.browser.helpers import create_room, wait_live
from tests.browser.test_table_browser import _api, _play_one, _token
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

GAMES = sorted(ENGINES)
SIZES = {360: 780, 1280: 800}
GAME_SECONDS = 150
LANGUAGES = ("en", "zh_Hant", "zh_Hans")

# The submit buttons of the decision's forms that lie (partly) below the first screen, or right of it.
BELOW_THE_FOLD = """() => {
  window.scrollTo(0, 0);
  const out = [];
  for (const form of document.querySelectorAll(".decision form")) {
    const buttons = [...form.querySelectorAll("button[type=submit], button:not([type])")]
      .filter((button) => button.getClientRects().length);
    if (!buttons.length) continue;
    const box = buttons[buttons.length - 1].getBoundingClientRect();
    if (box.bottom + window.scrollY > window.innerHeight || box.right > window.innerWidth) {
      out.push((form.id || form.action) + " at " + Math.round(box.bottom + window.scrollY) + " px");
    }
  }
  return out;
}"""


def _kind(room: dict[str, Any]) -> str:
    return "+".join(sorted({template["type"] for template in room["legal"]}))


def _screens(page: Any, game: str, kind: str) -> None:
    folder = ARTIFACTS / "screens"
    folder.mkdir(parents=True, exist_ok=True)
    address = page.url.split("?")[0]
    for lang in LANGUAGES:
        page.goto(f"{address}?lang={lang}")
        page.wait_for_selector("#r-status")
        page.screenshot(path=str(folder / f"{game}-decision-{kind}-360-{lang}.png"), full_page=False)
    page.goto(f"{address}?lang=en")
    wait_live(page)


CASES = [(game, width) for game in GAMES for width in sorted(SIZES)]


@pytest.mark.parametrize(("game", "width"), CASES)
def test_every_decision_completes_on_the_first_screen(
    browser: Any, server_url: str, game: str, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": SIZES[width]})
    page = context.new_page()
    try:
        create_room(page, server_url, game, "Ann", 3)
        code = page.url.rstrip("/").rsplit("/", 1)[1].split("?")[0]
        token = _token(page)
        page.get_by_role("button", name="Fill with bots").click()
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector("#r-status .status-playing, #r-status .status-finished")
        wait_live(page)
        rng = random.Random(f"first-screen/{game}/{width}")
        deadline = time.monotonic() + GAME_SECONDS
        problems: dict[str, list[str]] = {}
        shot: set[str] = set()
        decisions = 0
        while time.monotonic() < deadline and not page.locator("#r-status .status-finished").count():
            room = _api(page, server_url, code, token)
            if room["status"] != "playing" or 0 not in room["to_act"] or not room["legal"]:
                page.wait_for_timeout(60)
                continue
            page.wait_for_selector("#r-status [data-your-move=yes]", timeout=5_000)
            page.wait_for_timeout(50)  # the push that brought the decision has settled
            kind = _kind(room)
            below = page.evaluate(BELOW_THE_FOLD)
            if below:
                problems.setdefault(kind, below)
            if width < 500 and kind not in shot:
                shot.add(kind)
                _screens(page, game, kind)
            _play_one(page, server_url, code, token, room, rng)
            decisions += 1
        assert decisions > 0
        assert problems == {}, f"decisions ending below the first screen: {problems}"
    finally:
        context.close()
