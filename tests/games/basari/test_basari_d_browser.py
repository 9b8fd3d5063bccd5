"""Action D at a 5-player Basari table, through the room page's own forms (rulebook, action D for five
players: never blocked, never bargained for). Five people, no bots, so the cards fall as scripted:
turn 1 two of them share D and each takes one gem; turn 2 one of them is alone on D, returns one gem
and takes two."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import create_room, join_room, wait_live
from tests.games.basari.test_basari_browser import PUSH_WAIT, act, form_of, gems_of, turn_of

pytestmark = pytest.mark.browser

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve")
COLOURS = ("red", "yellow", "green", "blue")


def everyone_chooses(pages: dict[str, Any], cards: dict[str, str], turn: int) -> None:
    for name, page in pages.items():
        page.wait_for_function(
            "t => (document.querySelector('#r-g-bank h2') || {}).textContent.includes(`turn ${t}`)",
            arg=turn,
            timeout=PUSH_WAIT,
        )
        assert turn_of(page) == (1, turn)
        choose = form_of(page, "choose")
        choose.wait_for(timeout=PUSH_WAIT)
        act(page, choose, choose.locator(f"button[name=card][value={cards[name]}]"))


def only_page_with(pages: dict[str, Any], kind: str, deadline: float) -> str:
    """The one person whose page offers a ``kind`` form (pushes may still be on their way)."""
    while True:
        holders = [name for name, page in pages.items() if form_of(page, kind).count()]
        if holders:
            assert len(holders) == 1, f"{holders} are all offered {kind}"
            return holders[0]
        assert time.monotonic() < deadline, f"nobody was offered {kind}"
        pages[NAMES[0]].wait_for_timeout(100)


def shared_d(pages: dict[str, Any], deadline: float) -> None:
    """Ann and Eve both chose D: each, in priority order, presses one gem button of the bank."""
    takers: list[str] = []
    for _ in range(2):
        taker = only_page_with(pages, "take", deadline)
        assert taker in ("Ann", "Eve") and taker not in takers
        takers.append(taker)
        page = pages[taker]
        before = gems_of(page, taker)
        form = form_of(page, "take")
        button = form.locator("button[name=colour]").first
        colour = str(button.get_attribute("value"))
        act(page, form, button)
        page.wait_for_selector(
            f"#event-list li:has-text('{taker} takes 1{colour[0].upper()} from the bank (card D).')",
            state="attached",  # the log may sit in a closed drawer
        )
        assert gems_of(page, taker) == dict(before, **{colour: before[colour] + 1})


def sole_d(pages: dict[str, Any], deadline: float, artifacts: Path) -> None:
    """Ann alone chose D: she returns the gem the form picks by default and takes a red and a yellow."""
    assert only_page_with(pages, "exchange", deadline) == "Ann"
    page = pages["Ann"]
    for name in NAMES[1:]:
        pages[name].wait_for_selector("#r-g-actions :text('Ann is exchanging gems')", timeout=PUSH_WAIT)
    form = form_of(page, "exchange")
    assert "Take 2 gems from the bank" in form.inner_text()
    given = str(form.locator("input[name=give]:checked").get_attribute("value"))
    before = gems_of(page, "Ann")
    for colour in ("red", "yellow"):
        chip = form.locator(f"input[name='take.{colour}'][value='1']")  # gem chips: one radio per count
        chip.check()
        assert chip.is_checked()
    page.screenshot(path=str(artifacts / "basari-d-exchange.png"), full_page=True)
    act(page, form, form.get_by_role("button", name="Exchange"))
    returned = f"1{given[0].upper()}"
    for other in pages.values():
        other.wait_for_selector(
            f"#event-list li:has-text('Ann performs card D: returns {returned} and takes 1R 1Y from the bank.')",
            timeout=PUSH_WAIT,
            state="attached",
        )
    after = dict(before)
    after["red"] += 1
    after["yellow"] += 1
    after[given] -= 1
    assert gems_of(page, "Ann") == after


def test_five_people_share_d_then_one_exchanges_alone(server_url: str, browser: Any, artifacts: Path) -> None:
    contexts = [browser.new_context(viewport={"width": 1100, "height": 900}) for _ in NAMES]
    pages = {name: context.new_page() for name, context in zip(NAMES, contexts, strict=True)}
    deadline = time.monotonic() + 90
    try:
        invite = create_room(pages["Ann"], server_url, "basari", "Ann", 5)
        for name in NAMES[1:]:
            join_room(pages[name], invite, name)
        for page in pages.values():
            wait_live(page)
        host = pages["Ann"]
        host.wait_for_function(
            "!document.querySelector('#r-lobby button.primary').disabled", timeout=PUSH_WAIT
        )
        host.locator("#r-lobby").get_by_role("button", name="Start the game").click()
        for page in pages.values():
            page.wait_for_selector("#r-g-actions .bs-actions", timeout=PUSH_WAIT, state="attached")

        # Three on A: nobody performs it; Ann and Eve share D.
        everyone_chooses(pages, dict(zip(NAMES, "DAAAD", strict=True)), turn=1)
        shared_d(pages, deadline)
        # Three on A again, Eve alone on B; Ann alone on D.
        everyone_chooses(pages, dict(zip(NAMES, "DAAAB", strict=True)), turn=2)
        sole_d(pages, deadline, artifacts)
        for page in pages.values():
            page.wait_for_function(
                "() => /turn 3/.test(document.querySelector('#r-g-bank h2').textContent)", timeout=PUSH_WAIT
            )
            assert re.search(r"Round 1 of 3, turn 3", page.locator("#r-g-bank h2").inner_text())
    except Exception:
        for name, page in pages.items():
            page.screenshot(path=str(artifacts / f"basari-d-failure-{name.lower()}.png"), full_page=True)
        raise
    for name, page in pages.items():
        page.screenshot(path=str(artifacts / f"basari-d-final-{name.lower()}.png"), full_page=True)
    for context in contexts:
        context.close()
