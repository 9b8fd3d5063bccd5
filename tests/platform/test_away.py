"""Away players (issue 11): a seat offline longer than the grace period shows as away to everyone
(a push says so); only then may the host hand it to a bot; its player takes it back at any time."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from app.config import Settings
from app.web.app import create_app
from app.web.live import LiveRooms
from tests.platform.test_api import auth
from tests.platform.test_live_sync import received

GRACE = 0.4  # seconds: the away grace period in most of these tests
LONG_GRACE = 30.0  # for the test that must stay inside it


def app_client(database_url: str, grace: float) -> TestClient:
    settings = Settings(
        BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0, BOURSE_AWAY_GRACE=grace, BOURSE_CLOCK_TICK=0.05
    )
    return TestClient(create_app(settings))


@pytest.fixture
def client(database_url: str, toy_game: str) -> Iterator[TestClient]:
    with app_client(database_url, GRACE) as test_client:
        yield test_client


@pytest.fixture
def patient_client(database_url: str, toy_game: str) -> Iterator[TestClient]:
    with app_client(database_url, LONG_GRACE) as test_client:
        yield test_client


def started(client: TestClient, game: str) -> tuple[str, str, str]:
    created = client.post("/api/rooms", json={"game": game, "players": 2, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    assert client.post(f"/api/rooms/{code}/start", headers=auth(ann)).status_code == 200
    return code, ann, bob


def hand_bob_to_a_bot(client: TestClient, code: str, ann: str) -> int:
    return client.post(f"/api/rooms/{code}/bots", json={"seat": 1}, headers=auth(ann)).status_code


def bob_seat(client: TestClient, code: str) -> dict[str, object]:
    return client.get(f"/api/rooms/{code}").json()["seats"][1]


def pushed_within(tab: WebSocketTestSession, told: Callable[[str], bool], seconds: float) -> str:
    """What the tab was pushed until ``told`` holds of it (or ``seconds`` pass): the timer ticks on
    its own, later than the grace period by as long as a busy machine makes it wait."""
    pushed = ""
    deadline = time.monotonic() + seconds
    while not told(pushed) and time.monotonic() < deadline:
        time.sleep(0.05)
        pushed += "".join(received(tab))
    return pushed


def test_the_host_cannot_hand_a_connected_or_briefly_disconnected_seat_to_a_bot(
    patient_client: TestClient, toy_game: str
) -> None:
    client = patient_client
    code, ann, bob = started(client, toy_game)
    with client.websocket_connect(
        f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={bob}"}
    ) as tab:
        received(tab)  # its tab has joined (the connect returns once the socket is accepted)
        received_once = bob_seat(client, code)
        assert received_once["connected"] and not received_once["away"]
        refused = client.post(f"/api/rooms/{code}/bots", json={"seat": 1}, headers=auth(ann))
        assert refused.status_code == 409 and "shown as away" in refused.json()["detail"]
    # Bob's tab just closed (a reload, a tunnel): still not away
    assert not bob_seat(client, code)["away"]
    assert hand_bob_to_a_bot(client, code, ann) == 409
    page = client.get(f"/r/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"}).text
    assert "/host/hand-to-bot" not in page  # the host is not offered it either
    refused_form = client.post(
        f"/r/{code}/host/hand-to-bot",
        data={"seat": "1"},
        headers={"cookie": f"bourse_seat_{code}={ann}"},
        follow_redirects=False,
    )
    assert refused_form.status_code == 303 and "error=" in refused_form.headers["location"]
    assert not bob_seat(client, code)["bot_controlled"]


def test_an_away_seat_is_shown_to_everyone_can_be_handed_to_a_bot_and_taken_back(
    client: TestClient, toy_game: str
) -> None:
    code, ann, bob = started(client, toy_game)
    with client.websocket_connect(
        f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"}
    ) as tab:
        with client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={bob}"}):
            pass
        received(tab)
        # the timer notices Bob turned away and tells the room
        pushed = pushed_within(tab, lambda text: 'id="r-seats"' in text and "away" in text, GRACE + 10)
        assert 'id="r-seats"' in pushed and "away" in pushed
        assert bob_seat(client, code)["away"]
        spectator_page = client.get(f"/r/{code}").text
        assert 'class="tag away"' in spectator_page
        host_page = client.get(f"/r/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"}).text
        assert "/host/hand-to-bot" in host_page

        assert hand_bob_to_a_bot(client, code, ann) == 200
        assert bob_seat(client, code)["bot_controlled"]

        # Bob comes back on another device with his personal link and takes his seat back
        other = TestClient(client.app)
        resumed = other.post(f"/r/{code}/resume", data={"token": bob}, follow_redirects=False)
        assert resumed.status_code == 303
        taken = other.post(f"/r/{code}/host/take-back", follow_redirects=False)
        assert taken.status_code == 303
        assert not bob_seat(client, code)["bot_controlled"]  # human again
        version = client.get(f"/api/rooms/{code}").json()["version"]
        if 1 in client.get(f"/api/rooms/{code}").json()["to_act"]:
            acted = client.post(
                f"/api/rooms/{code}/actions",
                json={"version": version, "action": {"type": "pick", "number": 1}},
                headers=auth(bob),
            )
            assert acted.status_code == 200  # he plays himself again


def test_the_host_may_hand_their_own_seat_to_a_bot_at_once(client: TestClient, toy_game: str) -> None:
    code, ann, _ = started(client, toy_game)
    answer = client.post(f"/api/rooms/{code}/bots", json={"seat": 0}, headers=auth(ann))
    assert answer.status_code == 200
    assert answer.json()["seats"][0]["bot_controlled"]


def test_the_end_screen_marks_seats_a_bot_played(client: TestClient, toy_game: str) -> None:
    code, ann, bob = started(client, toy_game)
    time.sleep(GRACE + 0.1)
    assert hand_bob_to_a_bot(client, code, ann) == 200
    live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
    assert client.portal is not None  # inside `with TestClient(...)`
    for _ in range(20):
        room = client.get(f"/api/rooms/{code}", headers=auth(ann)).json()
        if room["status"] == "finished":
            break
        if 0 in room["to_act"]:
            client.post(
                f"/api/rooms/{code}/actions",
                json={"version": room["version"], "action": {"type": "pick", "number": 3}},
                headers=auth(ann),
            )
        client.portal.call(live.idle)
    room = client.get(f"/api/rooms/{code}").json()
    assert room["status"] == "finished"
    assert room["seats"][1]["bot_turns"] == 3 and room["seats"][0]["bot_turns"] == 0
    page = client.get(f"/r/{code}?lang=en").text
    assert page.count('class="tag bot-helped"') == 0  # Bob's seat is still the bot's: "played by a bot"
    assert "played by a bot" in page
    client.post(f"/api/rooms/{code}/takeback", headers=auth(bob))  # too late: the game is over
    assert client.get(f"/api/rooms/{code}").json()["seats"][1]["bot_controlled"]
