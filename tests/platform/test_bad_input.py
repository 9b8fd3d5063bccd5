"""Never a 500 for bad input (principle 6): every route the app declares, taken from the app itself so
that a new route is covered too, is sent bodies nested thousands deep, over the size limit (declared,
and sent in chunks without a length) and malformed, and cookies a sibling site could plant (names a
``Set-Cookie`` header cannot carry back, seat cookies of no room's shape); it answers each with a 4xx
or a success, never a server error."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.web.app import create_app
from app.web.bodies import MAX_DEPTH, json_depth
from tests.platform.test_api import new_qe_room
from tests.support import declared_routes

MAX_BODY = 16 * 1024
DEEP = b"[" * 5000 + b"]" * 5000
BODIES: dict[str, tuple[bytes, str | None]] = {  # what: (body, its Content-Type)
    "deep JSON": (b'{"endpoint": ' + DEEP + b', "name": "Ann"}', "application/json"),
    "deep objects": (b'{"a":' * 5000 + b"1" + b"}" * 5000, "application/json"),
    "deep, no type": (DEEP, None),
    "deep, as text": (DEEP, "text/plain"),
    "deep, as +json": (DEEP, "application/merge-patch+json"),
    "huge JSON": (b'{"name": "' + b"a" * MAX_BODY + b'"}', "application/json"),
    "truncated JSON": (b'{"name": "Ann", "players": [3', "application/json"),
    "not UTF-8": (b'{"name": "\xff\xfe\xc3"}', "application/json"),
    "a JSON list": (b"[1, 2, 3]", "application/json"),
    "a JSON string": (b'"Ann"', "application/json"),
    "null": (b"null", "application/json"),
    "huge numbers": (b'{"version": 1e999999, "players": 99999999999999999999999999}', "application/json"),
    "NaN": (b'{"version": NaN, "number": -Infinity}', "application/json"),
    "a broken form": (b"%zz=%%%&name=%ff%fe&&=&version=\xff", "application/x-www-form-urlencoded"),
    "a deep form name": (b"a" + b".a" * 5000 + b"=1", "application/x-www-form-urlencoded"),
    "a broken multipart": (
        b"--x\r\nContent-Disposition: form-data\r\n\r\n",
        "multipart/form-data; boundary=x",
    ),
}
PLANTED_COOKIES = [
    b"bourse_seat_a(b=1",
    b"bourse_seat_a b=1",
    "bourse_seat_é=1".encode(),
    "bourse_seat_\u4e2d=1".encode(),
    b"bourse_seat_=1; bourse_seat_x=\xff; bourse_seat_aaaaaaaaaaaaa=no-seat",
    b'bourse_lang="\\"zz; bourse_viewer=(); =; ;;',
]


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    unlimited = Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_BOT_DELAY=0,
        BOURSE_MAX_BODY_BYTES=MAX_BODY,
        BOURSE_RATE_CREATE="off",
        BOURSE_RATE_JOIN="off",
        BOURSE_RATE_ACT="off",
        BOURSE_RATE_CHAT="off",
    )
    with TestClient(create_app(unlimited), raise_server_exceptions=False) as client:
        yield client


def routes(client: TestClient, code: str) -> list[tuple[str, str]]:
    """(method, path) of every HTTP route the app declares, its path's parameters filled in: the
    room ``code`` (a started game), a seat, a game, an operation."""
    filled = {"{code}": code, "{target}": "1", "{game_id}": "qe", "{phase}": "bid", "{operation}": "bot"}
    found = []
    for method, path, _ in declared_routes(client.app.routes):  # type: ignore[attr-defined]
        if method in ("WEBSOCKET", "HEAD"):
            continue
        for name, value in filled.items():
            path = path.replace(name, value)
        assert "{" not in path, f"a new path parameter: fill it in ({path})"
        found.append((method, path))
    return found


def test_every_route_refuses_bad_bodies_with_a_4xx(client: TestClient) -> None:
    code, tokens = new_qe_room(client, 3)
    posts = [(method, path) for method, path in routes(client, code) if method not in ("GET", "HEAD")]
    assert ("POST", f"/r/{code}/push") in posts and ("POST", f"/api/rooms/{code}/actions") in posts
    seat = {"Cookie": f"bourse_seat_{code}={tokens[0]}", "Authorization": f"Bearer {tokens[0]}"}
    failures = []
    for method, path in posts:
        for what, (body, content_type) in BODIES.items():
            headers = {**seat, **({"Content-Type": content_type} if content_type else {})}
            answer = client.request(method, path, content=body, headers=headers)
            if answer.status_code >= 500:
                failures.append((method, path, what, answer.status_code, answer.text[:200]))
        chunked = client.request(
            method, path, content=iter([b'{"name": "', b"a" * MAX_BODY, b'"}']), headers=seat
        )
        if chunked.status_code >= 500:
            failures.append((method, path, "huge, in chunks", chunked.status_code, chunked.text[:200]))
    assert not failures, failures


@pytest.mark.parametrize(
    ("path", "language", "words"),
    [
        ("/r/{code}/push", "zh-Hant", "請求的資料巢狀太深"),
        ("/api/rooms/{code}/actions", "zh-Hant", "This request nests its data too deep (at most 32 levels)."),
    ],
)
def test_a_deep_body_is_refused_readably(client: TestClient, path: str, language: str, words: str) -> None:
    """400 with a message: in the page's language to a page's script (the Web Push opt-in), in
    English under ``/api/`` (the API speaks English)."""
    code, tokens = new_qe_room(client, 3)
    answer = client.post(
        path.format(code=code) + f"?lang={language}",
        content=DEEP,
        headers={"Content-Type": "application/json", "Cookie": f"bourse_seat_{code}={tokens[0]}"},
    )
    assert answer.status_code == 400
    assert words in answer.json()["detail"]


@pytest.mark.parametrize(
    ("path", "language", "words"),
    [
        (
            "/r/{code}/push",
            "zh-Hant",
            "訂閱必須以 JSON 送出。",
        ),  # the page's script: read by the route itself
        ("/api/rooms/{code}/actions", "zh-Hant", "This request's data could not be read."),
        ("/api/rooms", "zh-Hans", "This request's data could not be read."),
    ],
)
def test_a_body_that_is_not_utf_8_is_refused_readably(
    client: TestClient, path: str, language: str, words: str
) -> None:
    """FastAPI refused a JSON body it could not decode with 400 and words of its own ("There was an
    error parsing the body"); the visitor reads ours (in English under ``/api/``, which speaks English)."""
    code, tokens = new_qe_room(client, 3)
    answer = client.post(
        path.format(code=code) + f"?lang={language}",
        content=b'{"endpoint": "\xe9"}',
        headers={"Content-Type": "application/json", "Cookie": f"bourse_seat_{code}={tokens[0]}"},
    )
    assert answer.status_code == 400
    assert answer.json()["detail"] == words


def test_every_route_reads_planted_cookies_without_failing(client: TestClient) -> None:
    code, tokens = new_qe_room(client, 3)
    failures = []
    for method, path in routes(client, code):
        for cookie in PLANTED_COOKIES:
            answer = client.request(method, path, headers={"Cookie": cookie})
            if answer.status_code >= 500:
                failures.append((method, path, cookie, answer.status_code, answer.text[:200]))
    assert not failures, failures


def test_my_games_reads_only_seat_cookies_of_a_rooms_shape(client: TestClient) -> None:
    """A planted seat cookie is neither read nor deleted; a real seat is still listed, and the seat
    cookie of a room that is gone is still deleted."""
    code, tokens = new_qe_room(client, 3)
    cookie = (
        f"bourse_seat_a(b=1; bourse_seat_{code}={tokens[0]}; bourse_seat_é=2; bourse_seat_gone000000000=x"
    )
    for path in ("/my-games", "/my-games/list"):
        answer = client.get(path, headers={"Cookie": cookie.encode()})
        assert answer.status_code == 200
        assert f'data-room="{code}"' in answer.text
        deleted = answer.headers.get_list("set-cookie")
        assert [header.split("=")[0] for header in deleted] == ["bourse_seat_gone000000000"]


def test_the_depth_of_a_body_is_measured_outside_its_strings() -> None:
    assert json_depth(b'{"a": [1, {"b": "[[[[{{{{"}], "c": "\\"[["}') == 3
    assert json_depth(b"[" * (MAX_DEPTH + 1)) == MAX_DEPTH + 1
    assert json_depth(b"[" * 10_000) == MAX_DEPTH + 1  # it stops counting past the bound
    assert json_depth(b'"unterminated [[[') == 3  # a malformed body is the parser's to refuse
    assert json_depth(b"") == 0
