"""Pages a visitor opens without playing: the start page, rules pages, unknown rooms, the API docs."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.games.base import random_legal_action
from app.games.registry import ENGINES
from app.web.app import create_app
from app.web.moves import MAX_FORM_FIELDS
from app.web.render import TEMPLATES
from benchmarks.live_client import form_fields
from tests.platform.test_api import auth, new_qe_room

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


def test_a_move_reads_alike_from_a_url_encoded_and_a_multipart_form(client: TestClient) -> None:
    """The act route reads url-encoded bodies itself (``pages.posted_fields``): escapes, nested and
    repeated names mean what they mean in any other form, a multipart form still works, and a body of
    more fields than any form has is refused, changing nothing."""
    code, tokens = new_qe_room(client, 3)
    rng = random.Random(3)
    for encoding in ("url-encoded", "multipart"):
        room = client.get(f"/api/rooms/{code}").json()
        seat = room["to_act"][0]
        client.cookies.set(f"bourse_seat_{code}", tokens[seat])
        legal = client.get(f"/api/rooms/{code}", headers=auth(tokens[seat])).json()["legal"]
        fields = [("version", str(room["version"])), *form_fields(random_legal_action(legal, rng))]
        if encoding == "url-encoded":
            body = "&".join(
                f"{quote(name)}={''.join(f'%{byte:02X}' for byte in value.encode())}"
                for name, value in fields
            )
            headers = {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"}
            answer = client.post(f"/r/{code}/act", content=body, headers=headers)
        else:
            answer = client.post(
                f"/r/{code}/act",
                data=dict(fields),
                files={"ignored": ("a.txt", b"")},
                headers={"HX-Request": "true"},
            )
        assert answer.status_code == 200, (encoding, answer.text)
        assert client.get(f"/api/rooms/{code}").json()["version"] == room["version"] + 1
    before = client.get(f"/api/rooms/{code}").json()["version"]
    crowded = "&".join(f"f{number}=1" for number in range(MAX_FORM_FIELDS + 1))
    refused = client.post(
        f"/r/{code}/act",
        content=f"version={before}&type=pass&{crowded}",
        headers={"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"},
    )
    assert refused.status_code == 400 and "This form has too many fields." in refused.text
    assert client.get(f"/api/rooms/{code}").json()["version"] == before
