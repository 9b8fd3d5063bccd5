"""Each game's table at a decision, photographed at a phone's and a laptop's width (scripts/screenshots).

A room per game is made over the API with bots in the other seats; Ann plays a few random legal moves
(``random_legal_action``, as the random bot does) so the table has things on it, and is photographed when
the game next waits for her. The README's pictures are the first screen in English; ``--look`` adds the
other languages and the whole page.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from app.games.base import random_legal_action
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.support import ROOT, served

SCREENSHOTS = ROOT / "docs" / "screenshots"
GAMES = {"tulip-bubble": 3, "basari": 3, "tulipmania-1637": 3, "qe": 3}
SIZES = {"phone": {"width": 360, "height": 780}, "laptop": {"width": 1280, "height": 860}}
LANGUAGES = ("en", "zh-Hant", "zh-Hans")


def started_room(server_url: str, game: str, players: int) -> tuple[str, str]:
    """A room of ``game`` Ann created, its other seats bots, started: (code, Ann's token)."""
    created = httpx.post(
        f"{server_url}/api/rooms", json={"game": game, "players": players, "name": "Ann"}
    ).json()
    code, token = created["code"], created["token"]
    headers = {"Authorization": f"Bearer {token}"}
    httpx.post(f"{server_url}/api/rooms/{code}/bots", json={"fill": True}, headers=headers).raise_for_status()
    httpx.post(f"{server_url}/api/rooms/{code}/start", headers=headers).raise_for_status()
    return code, token


def play(server_url: str, code: str, token: str, moves: int, rng: random.Random) -> None:
    """Ann plays ``moves`` random legal moves (an illegal combination is tried again), then waits until
    the game waits for her."""
    headers = {"Authorization": f"Bearer {token}"}
    played = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        room = httpx.get(f"{server_url}/api/rooms/{code}", headers=headers).json()
        if room.get("status") == "finished":
            return
        if not room.get("legal"):
            time.sleep(0.2)
            continue
        if played >= moves:
            return
        action = random_legal_action(room["legal"], rng)
        answer = httpx.post(
            f"{server_url}/api/rooms/{code}/actions",
            json={"version": room["version"], "action": action},
            headers=headers,
        )
        if answer.status_code == 200:
            played += 1


def photograph(
    browser: Any, server_url: str, code: str, token: str, game: str, out: Path, look: bool
) -> list[Path]:
    taken = []
    for language in LANGUAGES if look else ("en",):
        for size, viewport in SIZES.items():
            # The README shows a laptop's table at half its width: taken at half the pixels, it is a
            # quarter of the bytes in the repository (--look keeps every pixel, to look at).
            scale = 0.5 if size == "laptop" and not look else 1
            context = browser.new_context(viewport=viewport, device_scale_factor=scale)
            context.add_cookies([{"name": f"bourse_seat_{code}", "value": token, "url": server_url}])
            page = context.new_page()
            page.goto(f"{server_url}/r/{code}?lang={language}")
            page.wait_for_selector("body.ws-online", timeout=10_000)
            page.wait_for_timeout(300)
            suffix = "" if language == "en" and not look else f"-{language}"
            path = out / f"{game}-{size}{suffix}.png"
            page.screenshot(path=str(path))
            taken.append(path)
            if look:
                whole = out / f"{game}-{size}{suffix}-page.png"
                page.screenshot(path=str(whole), full_page=True)
                taken.append(whole)
            context.close()
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--look", type=Path, help="also every language and the whole page, into this folder")
    parser.add_argument("--moves", type=int, default=3, help="Ann's random moves before the pictures")
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--seed", type=int, default=7)
    arguments = parser.parse_args()
    out = arguments.look or SCREENSHOTS
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, served(Path(folder)) as server_url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for game in arguments.games:
            code, token = started_room(server_url, game, GAMES[game])
            play(server_url, code, token, arguments.moves, random.Random(arguments.seed))
            for path in photograph(browser, server_url, code, token, game, out, arguments.look is not None):
                print(path)
        browser.close()


if __name__ == "__main__":
    main()
