"""The web's security basics (issue 9): cross-site requests, headers, what redirects and names may
carry, the resume link, the live socket's edges, errors that stay readable, and the API's schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.web.app import create_app
from tests.platform.test_api import auth, new_qe_room


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


def hosted_room(client: TestClient) -> str:
    """A Q.E. room for three hosted by this client (its cookie holds the host's seat)."""
    answer = client.post("/rooms", data={"game": "qe", "players": "3", "name": "Ann"})
    assert answer.status_code == 200, answer.text
    return str(answer.url).rsplit("/", 1)[1]


# ---------------------------------------------------------------- cross-site requests
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": "https://games.evil.example"},
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver"},  # a forged Origin loses
    ],
)
def test_a_cross_site_post_is_refused_and_changes_nothing(
    client: TestClient, headers: dict[str, str]
) -> None:
    code = hosted_room(client)
    before = client.get(f"/api/rooms/{code}").json()
    refused = client.post(f"/r/{code}/host/bot", headers=headers, follow_redirects=False)
    assert refused.status_code == 403 and "another site" in refused.text
    htmx = client.post(f"/r/{code}/host/fill", headers={**headers, "HX-Request": "true"})
    assert htmx.status_code == 403 and 'id="r-flash"' in htmx.text
    assert (
        client.post("/rooms", data={"game": "qe", "players": "3", "name": "X"}, headers=headers).status_code
        == 403
    )
    assert client.get(f"/api/rooms/{code}").json() == before


def test_same_origin_posts_and_the_bearer_api_are_unaffected(client: TestClient) -> None:
    code = hosted_room(client)
    for headers in (
        {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"},
        {"Origin": "http://testserver"},
        {"Sec-Fetch-Site": "same-origin"},
        {},  # not a browser
    ):
        answer = client.post(f"/r/{code}/host/bot", headers=headers, follow_redirects=False)
        assert answer.status_code == 303, (headers, answer.text)
    assert len(client.get(f"/api/rooms/{code}").json()["seats"]) == 3

    api_code, tokens = new_qe_room(client, 3)
    started = client.get(f"/api/rooms/{api_code}").json()
    seat = started["to_act"][0]
    answer = client.post(
        f"/api/rooms/{api_code}/actions",
        json={"version": started["version"], "action": {"type": "open_bid", "amount": 5}},
        headers={**auth(tokens[seat]), "Origin": "https://bot.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert answer.status_code == 200, answer.text
