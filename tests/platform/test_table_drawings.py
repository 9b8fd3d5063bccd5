"""The table drawn as a game (issue 45): each game's components are symbols defined once a page and
placed by reference, pages and assets travel compressed, and a versioned asset is kept a year.

A room page holds its game's sprite once; every ``<use href="#…">`` of every region, in every phase a
random game passes through, names a symbol of that sprite (a missing one draws nothing, silently). The
room page comes gzip-compressed to a browser that asks for it; a static file named with its version is
cached as immutable, one without is revalidated.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.games.registry import ENGINES
from app.web.app import create_app
from app.web.render import TEMPLATES, event_line, render_seat_html

USE = re.compile(r'<use[^>]*\bhref="#([^"]+)"')
SYMBOL = re.compile(r'<symbol id="([^"]+)"')


def symbols(game_id: str) -> set[str]:
    return set(SYMBOL.findall((TEMPLATES / "games" / game_id / "_sprite.svg").read_text(encoding="utf-8")))


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_every_piece_a_region_places_is_a_symbol_of_its_game(game_id: str) -> None:
    engine, defined = ENGINES[game_id], symbols(game_id)
    assert defined, f"templates/games/{game_id}/_sprite.svg defines no symbol"
    rng = random.Random(45)
    state = engine.setup(3, {}, 45)
    used: set[str] = set()
    for _ in range(120):
        for seat in (None, 0, 1, 2):
            used |= set(USE.findall(render_seat_html(engine, state, seat, "en")))
        if engine.result(state) is not None:
            break
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng, "easy"))
    assert used, f"no region of {game_id} places a symbol"
    assert used <= defined, f"{game_id} places symbols its sprite lacks: {sorted(used - defined)}"


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


def started_room(client: TestClient, game_id: str) -> tuple[str, str]:
    created = client.post("/api/rooms", json={"game": game_id, "players": 3, "name": "Ann"}).json()
    headers = {"Authorization": f"Bearer {created['token']}"}
    client.post(f"/api/rooms/{created['code']}/bots", json={"fill": True}, headers=headers)
    assert client.post(f"/api/rooms/{created['code']}/start", headers=headers).status_code == 200
    return created["code"], created["token"]


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_a_room_page_holds_its_sprite_once_and_comes_compressed(client: TestClient, game_id: str) -> None:
    code, token = started_room(client, game_id)
    client.cookies.set(f"bourse_seat_{code}", token)
    answer = client.get(f"/r/{code}", headers={"Accept-Encoding": "gzip"})
    assert answer.status_code == 200
    assert answer.headers["content-encoding"] == "gzip"
    wire = int(answer.headers["content-length"])
    assert wire * 3 < len(answer.content), "the page is sent compressed, a third of its size or less"
    assert answer.text.count('<svg class="sprite"') == 1
    assert set(SYMBOL.findall(answer.text)) == symbols(game_id)


def test_a_versioned_asset_is_kept_a_year_and_an_unversioned_one_is_asked_again(client: TestClient) -> None:
    page = client.get("/?lang=en").text
    stylesheet = re.search(r'href="(/static/css/bourse\.css\?v=[0-9a-f]+)"', page)
    assert stylesheet, "the page names its stylesheet with its version"
    kept = client.get(stylesheet[1], headers={"Accept-Encoding": "gzip"})
    assert kept.status_code == 200
    assert kept.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert kept.headers["content-encoding"] == "gzip"
    plain = client.get("/static/css/bourse.css")
    assert plain.headers["cache-control"] == "no-cache" and plain.headers["etag"]
    again = client.get("/static/css/bourse.css", headers={"If-None-Match": plain.headers["etag"]})
    assert again.status_code == 304


def test_a_line_for_one_seat_alone_carries_that_seats_colour_disc() -> None:
    """Q.E.'s "You bid 12 in secret." is logged for the bidder alone: its line starts with the
    bidder's colour and number, as every line naming a seat does; a public line naming none has none."""
    own: dict[str, Any] = {"text": "You bid {amount} in secret.", "params": {"amount": 12}, "to": [2]}
    line = event_line(own, "en", "qe", lambda seat: f"P{seat}")
    assert line == (
        '<li><span class="seat-mark sc-2" data-n="3" aria-hidden="true"></span>You bid 12 in secret.</li>'
    )
    public: dict[str, Any] = {"text": "All companies are sold: final scoring.", "params": {}, "to": None}
    assert "seat-mark" not in event_line(public, "en", "qe", lambda seat: f"P{seat}")
