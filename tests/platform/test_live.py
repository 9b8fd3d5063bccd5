"""Live pushes: each seat's tab receives its own regions after a change; a spectator the public ones."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from app.config import Settings
from app.web.app import create_app
from tests.platform.test_api import auth, new_qe_room
from tests.platform.test_live_sync import received

TURN_BADGE = '<span class="turn-badge">'  # the status marks the seat whose move it is
SECRET_BID = 987654321987


def drain(socket: WebSocketTestSession) -> str:
    """Everything pushed to this tab so far (once every tab's outbox has been sent)."""
    return "".join(received(socket))


def secret_forms(number: int) -> tuple[str, str]:
    return str(number), f"{number:,}"


@pytest.mark.both_databases
def test_each_seat_gets_its_own_push_and_spectators_the_public_view(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client, contextlib.ExitStack() as stack:
        code, tokens = new_qe_room(client, 3)
        room = client.get(f"/api/rooms/{code}").json()
        auctioneer = room["to_act"][0]
        winner, loser = (auctioneer + 1) % 3, (auctioneer + 2) % 3
        tabs = {
            seat: stack.enter_context(
                client.websocket_connect(
                    f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={tokens[seat]}"}
                )
            )
            for seat in range(3)
        }
        spectator = stack.enter_context(client.websocket_connect(f"/ws/rooms/{code}"))
        first = {seat: drain(tab) for seat, tab in tabs.items()}
        for seat, html in first.items():
            assert 'id="r-status"' in html and 'id="r-seats"' in html  # a full fresh view on connect
            assert (TURN_BADGE in html) == (seat == auctioneer)
        assert TURN_BADGE not in drain(spectator)

        def act(seat: int, action: dict[str, Any]) -> None:
            version = client.get(f"/api/rooms/{code}").json()["version"]
            answer = client.post(
                f"/api/rooms/{code}/actions",
                json={"version": version, "action": action},
                headers=auth(tokens[seat]),
            )
            assert answer.status_code == 200, answer.text

        act(auctioneer, {"type": "open_bid", "amount": 40})
        pushed = {seat: drain(tab) for seat, tab in tabs.items()}
        public = drain(spectator)
        assert all(pushed.values()) and public
        assert TURN_BADGE in pushed[winner] and TURN_BADGE in pushed[loser]
        assert TURN_BADGE not in pushed[auctioneer] and TURN_BADGE not in public
        assert 'id="r-lobby"' not in public  # unchanged regions are not re-sent

        act(winner, {"type": "bid", "amount": SECRET_BID})
        act(loser, {"type": "bid", "amount": 3})
        pushed = {seat: drain(tab) for seat, tab in tabs.items()}
        public = drain(spectator)
        for who in (auctioneer, winner):
            assert any(form in pushed[who] for form in secret_forms(SECRET_BID)), who
        for html in (pushed[loser], public):
            assert not any(form in html for form in secret_forms(SECRET_BID))


def test_another_sites_page_cannot_open_a_live_view(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, tokens = new_qe_room(client, 3)
        headers = {"cookie": f"bourse_seat_{code}={tokens[0]}", "origin": "https://evil.example"}
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(f"/ws/rooms/{code}", headers=headers) as tab,
        ):
            tab.receive_text()
        with client.websocket_connect(
            f"/ws/rooms/{code}", headers={**headers, "origin": "http://testserver"}
        ) as tab:
            assert 'id="r-status"' in tab.receive_text()


def test_a_tab_whose_page_is_current_is_not_redrawn_on_connect(settings: Settings) -> None:
    """Re-sending the whole table on connect would wipe a name or bid the person is already typing."""
    with TestClient(create_app(settings)) as client:
        created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
        code = created["code"]
        version = client.get(f"/api/rooms/{code}").json()["version"]
        with client.websocket_connect(f"/ws/rooms/{code}?v={version}") as current:
            first = current.receive_text()
            assert 'id="r-seats"' in first and 'id="r-lobby"' not in first and 'id="regions"' not in first
        with client.websocket_connect(f"/ws/rooms/{code}?v={version - 1}") as stale:
            assert 'id="regions"' in stale.receive_text()
