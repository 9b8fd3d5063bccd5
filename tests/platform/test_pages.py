"""Pages a visitor opens without playing: the start page, rules pages, unknown rooms, the API docs."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.games.registry import ENGINES
from app.web.app import create_app
from app.web.render import TEMPLATES

# A rules page is the game's templates/games/<id>/rules.html inside the platform's <article class="rules">
# (included with "ignore missing": without the file the page has only the game's name).
RULES_BLOCKS = 5  # paragraphs or list items: the least that explains how to play


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.mark.parametrize("locale", ["en", "zh_Hant", "zh_Hans"])
def test_every_game_has_a_rules_page_in_every_language(client: TestClient, locale: str) -> None:
    for game_id, engine in ENGINES.items():
        assert (TEMPLATES / "games" / game_id / "rules.html").is_file(), (
            f"templates/games/{game_id}/rules.html is missing"
        )
        page = client.get(f"/games/{game_id}/rules?lang={locale}")
        assert page.status_code == 200
        assert engine.info.name(locale) in page.text
        rules = page.text.split('<article class="rules">')[1].split("</article>")[0]
        blocks = len(re.findall(r"<(?:p|li)[\s>]", rules))
        assert blocks >= RULES_BLOCKS, (
            f"templates/games/{game_id}/rules.html in {locale} has {blocks} <p> or <li> elements: "
            f"the rules page needs at least {RULES_BLOCKS} (headings, tables and <div>s do not count)"
        )


def test_start_page_offers_every_game(client: TestClient) -> None:
    page = client.get("/?lang=en").text
    for game_id in ENGINES:
        assert f'id="game-{game_id}"' in page


def test_unknown_rooms_and_games_get_a_readable_404(client: TestClient) -> None:
    room = client.get("/r/nosuchroom2345")
    assert room.status_code == 404 and "There is no room with this code." in room.text
    assert client.get("/games/chess/rules").status_code == 404
    assert client.post("/r/nosuchroom2345/act", data={"version": "1", "type": "bid"}).status_code == 404


def test_malformed_room_creation_is_refused_readably(client: TestClient) -> None:
    for form in (
        {"game": "qe", "players": "9", "name": "Ann"},
        {"game": "qe", "players": "3", "name": ""},
        {"game": "nope", "players": "3", "name": "Ann"},
        {"players": "x"},
    ):
        answer = client.post("/rooms", data=form, follow_redirects=False)
        assert answer.status_code == 400, form


def test_api_docs_describe_the_legal_format(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "kind" in schema["info"]["description"] and "/api/rooms/{code}/actions" in schema["paths"]
    assert client.get("/docs").status_code == 200


def test_a_refused_form_answers_with_the_message_only(client: TestClient) -> None:
    """The tab's WebSocket brings the table; an answer carrying regions could land after a newer push."""
    client.post("/rooms", data={"game": "qe", "players": "3", "name": "Ann"})
    code = next(name for name in client.cookies if name.startswith("bourse_seat_"))[len("bourse_seat_") :]
    answer = client.post(
        f"/r/{code}/act", data={"version": "99", "type": "open_bid"}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 409
    assert 'id="r-flash"' in answer.text and "The game has not started yet." in answer.text
    assert 'id="r-status"' not in answer.text
