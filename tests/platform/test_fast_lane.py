"""The fast lane (``app/web/fast_lane.py``): a move's two requests reach the routers' own endpoints
ahead of the routing, behind every guard, and are answered as the router would answer them."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.web import api, pages
from app.web.app import create_app
from app.web.fast_lane import ROUTES
from tests.platform.test_api import auth, new_qe_room
from tests.support import declared_routes


def test_the_lane_serves_only_what_the_routers_declare(settings: Settings) -> None:
    declared = {
        (method, path): endpoint for method, path, endpoint in declared_routes(create_app(settings).routes)
    }
    assert declared[("POST", "/r/{code}/act")] is pages.act is ROUTES["POST"][1]
    assert declared[("GET", "/api/rooms/{code}")] is api.get_room  # what room_answer calls
    assert ROUTES["GET"][1] is api.room_answer
    for pattern, _ in ROUTES.values():  # one path segment for the code, as Starlette's {code}
        assert pattern.fullmatch("/api/rooms/abc/def") is None
        assert pattern.fullmatch("/r/abc/def/act") is None


def test_its_answers_are_the_routers(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, tokens = new_qe_room(client, 3)
        spectator = client.get(f"/api/rooms/{code}")
        assert spectator.status_code == 200 and spectator.json()["you"] is None
        assert "frame-ancestors 'none'" in spectator.headers["content-security-policy"]  # the guards ran
        assert client.get(f"/api/rooms/{code}", headers=auth(tokens[1])).json()["you"] == 1
        assert client.get("/api/rooms/nosuchroom234").status_code == 404
        refused = client.get(f"/api/rooms/{code}", headers=auth("not-a-seat"))
        assert refused.status_code == 403 and refused.json() == {
            "detail": "This token is not a seat of this room."
        }
        stale = client.post(  # made against a version the room has not reached: refused for anyone
            f"/r/{code}/act",
            data={"version": "999", "type": "bid"},
            headers={"HX-Request": "true", "Cookie": f"bourse_seat_{code}={tokens[0]}"},
        )
        assert stale.status_code == 409 and 'id="r-flash"' in stale.text  # a flash, as before
        cross_site = client.post(
            f"/r/{code}/act", data={"version": "1"}, headers={"Origin": "https://evil.example"}
        )
        assert cross_site.status_code == 403  # refused by the guards before the lane


@pytest.mark.parametrize("path", ["/api/rooms/{code}", "/r/{code}/act"])
def test_a_failure_in_the_lane_is_the_server_error_answer(settings: Settings, path: str) -> None:
    app = create_app(settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        code, _ = new_qe_room(client, 3)

        def broken(*_: object) -> None:
            raise ValueError("a bug")

        app.state.service.load = broken
        app.state.service.turns.act_as = broken
        answer = client.request("GET" if path.startswith("/api/") else "POST", path.format(code=code))
        assert answer.status_code == 500
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
