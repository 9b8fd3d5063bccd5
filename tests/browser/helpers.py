"""Steps a person takes in the browser, shared by the games' browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx


def create_room(page: Any, server_url: str, game_id: str, name: str, players: int) -> str:
    """Create a room from the start page; returns the invite link shown in the room."""
    page.goto(server_url + "/?lang=en")
    card = page.locator(f"#game-{game_id}")
    card.locator("input[name=name]").fill(name)
    card.locator("select[name=players]").select_option(str(players))
    card.get_by_role("button", name="Create a room").click()
    page.wait_for_url("**/r/*")
    return str(page.locator(".invite input.copy").first.input_value())


def join_room(page: Any, invite_url: str, name: str) -> None:
    page.goto(invite_url)
    page.locator("form.join input[name=name]").fill(name)
    page.get_by_role("button", name="Join the game").click()
    page.wait_for_selector(".seat.you")


def started_qe_room(server_url: str) -> tuple[str, str]:
    """A 3-seat Q.E. room Ann created over the API, its other seats bots, started: (code, Ann's token)."""
    created = httpx.post(f"{server_url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, token = created["code"], created["token"]
    headers = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"fill": True}, headers=headers)
    assert httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers).status_code == 200
    return code, token


def seated_phone(browser: Any, server_url: str, code: str, token: str) -> Any:
    """A 360x780 browser context holding the seat of ``token`` in room ``code``."""
    context = browser.new_context(viewport={"width": 360, "height": 780})
    context.add_cookies([{"name": f"bourse_seat_{code}", "value": token, "url": server_url}])
    return context


def wait_live(page: Any) -> None:
    """Wait until the page's WebSocket is connected (live updates flowing)."""
    page.wait_for_selector("body.ws-online", timeout=10_000)


def game_over(page: Any) -> bool:
    return bool(page.locator("#r-status .status-finished").count())


AXE_SCRIPT = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[dict[str, Any]]:
    """The accessibility violations axe-core finds on the page as it stands, of the given impacts.

    Each is axe's own record (id, impact, help, nodes), so a failing assertion says what to fix.
    """
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the driver, not as a <script> tag: the page's CSP allows no inline script.
        page.evaluate(AXE_SCRIPT.read_text(encoding="utf-8") + "\n;true")
    results = page.evaluate("async () => await window.axe.run(document, {resultTypes: ['violations']})")
    return [
        {
            "id": violation["id"],
            "impact": violation["impact"],
            "help": violation["help"],
            "nodes": [node["html"][:200] for node in violation["nodes"][:5]],
        }
        for violation in results["violations"]
        if violation["impact"] in impacts
    ]


def page_width_overflow(page: Any) -> int:
    """How many CSS pixels the page is wider than its window (0: it never scrolls sideways)."""
    return int(page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth"))


@dataclass
class Answer:
    status: int = 0


@contextmanager
def move_answered(page: Any, timeout: float) -> Iterator[Answer]:
    """The status of the answer to the move sent inside the block, whether the form was posted or
    sent over the tab's live line (``app/web/moves.py``): the page tells the form either way."""
    page.evaluate(
        """() => {
          window.__answers = [];
          if (!window.__listening) {
            window.__listening = true;
            document.addEventListener("bourse:answered", (event) => window.__answers.push(event.detail.status));
          }
        }"""
    )
    answer = Answer()
    yield answer
    page.wait_for_function("() => window.__answers.length > 0", timeout=timeout)
    answer.status = int(page.evaluate("() => window.__answers[0]"))
