"""The socket lane (``app/web/socket_lane.py``): a tab's socket reaches the router's own endpoint past
the routing, behind every guard; a move's requests take the routers' way and answer as before."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from app.config import Settings
from app.web import pages, socket_lane
from app.web.app import create_app
from app.web.limits import live_socket_code
from tests.platform.test_api import auth, new_qe_room
from tests.support import declared_routes


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
        assert cross_site.status_code == 403  # refused by the guards


@pytest.mark.parametrize("path", ["/api/rooms/{code}", "/r/{code}/act"])
def test_a_failure_in_a_moves_request_is_the_server_error_answer(settings: Settings, path: str) -> None:
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


def test_a_tabs_socket_is_served_by_the_lane(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The room's socket reaches ``pages.room_socket`` through the lane (no router, no dependency
    solving: a frame per layer for the socket's whole life), behind the guards, and works as before."""
    declared = {
        (method, path): endpoint for method, path, endpoint in declared_routes(create_app(settings).routes)
    }
    assert declared[("WEBSOCKET", "/ws/rooms/{code}")] is pages.room_socket
    assert live_socket_code("/ws/rooms/abc/def") is None
    assert live_socket_code("/ws/rooms/abc") == "abc"
    served = []

    async def counted(*arguments: Any) -> None:
        served.append(arguments[1])
        await pages.room_socket(*arguments)

    monkeypatch.setattr(socket_lane, "room_socket", counted)
    with TestClient(create_app(settings)) as client:
        code, tokens = new_qe_room(client, 3)
        with client.websocket_connect(
            f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={tokens[0]}"}
        ) as tab:
            assert "r-status" in tab.receive_text()  # its page's regions
        assert served == [code]
        with (
            pytest.raises(WebSocketDisconnect) as unknown,
            client.websocket_connect(
                "/ws/rooms/nosuchroom234", headers={"cookie": "bourse_seat_nosuchroom234=x"}
            ),
        ):
            pass
        assert unknown.value.code == 4404
        evil = {"origin": "https://evil.example"}
        with (
            pytest.raises(WebSocketDisconnect) as cross_site,
            client.websocket_connect(f"/ws/rooms/{code}", headers=evil),
        ):
            pass
        assert cross_site.value.code == 4403


def test_a_database_failure_at_a_sockets_start_is_the_apps_503(settings: Settings) -> None:
    """The app's handler for the failure refuses the handshake with its 503 and /healthz reports it (the
    handler read the request's method, which a socket has not, so such a handshake used to fail with a
    server error); the next socket, the database back, is served."""
    app = create_app(settings)
    with TestClient(app) as client:
        code, tokens = new_qe_room(client, 3)
        seats = app.state.service.seats
        working = seats.seat_for_token

        def unreachable(*_: object) -> None:
            raise OperationalError("select", {}, sqlite3.OperationalError("disk I/O error"))

        seats.seat_for_token = unreachable
        cookie = {"cookie": f"bourse_seat_{code}={tokens[0]}"}
        with (
            pytest.raises(WebSocketDenialResponse) as refused,
            client.websocket_connect(f"/ws/rooms/{code}", headers=cookie),
        ):
            pass
        assert refused.value.status_code == 503
        assert client.get("/healthz").status_code == 503
        seats.seat_for_token = working
        with client.websocket_connect(f"/ws/rooms/{code}", headers=cookie) as tab:
            assert "r-status" in tab.receive_text()


def test_a_sockets_handshake_is_read_and_not_kept(settings: Settings) -> None:
    """The lane and ``room_socket`` read what a tab's handshake asks (its seat cookie, language, page
    version) through connections of their own: the tab's ``WebSocket``, which lives as long as the tab,
    keeps none of what Starlette's ``headers``, ``cookies`` and ``query_params`` parse (~1.5 KB a socket)."""
    app = create_app(settings)
    with TestClient(app) as client:
        code, tokens = new_qe_room(client, 3)
        with client.websocket_connect(
            f"/ws/rooms/{code}?v=2&lang=zh_Hant", headers={"cookie": f"bourse_seat_{code}={tokens[1]}"}
        ) as page:
            assert "r-status" in page.receive_text()
            (tab,) = app.state.live.rooms[code].tabs
            assert (tab.seat, tab.locale, tab.page_version) == (1, "zh_Hant", 2)
            assert {"_headers", "_cookies", "_query_params", "_url"}.isdisjoint(vars(tab.socket))


def test_a_tabs_socket_keeps_no_frame_of_the_middleware_stack(settings: Settings) -> None:
    """While a tab is open, its socket is awaited through the app's own call, the guards and the lane,
    and through none of the layers FastAPI and Starlette put around a connection (each of which only
    passes a socket on, and kept a frame open for the tab's whole life)."""
    app = create_app(settings)

    def chains() -> list[list[str]]:
        found = []
        for task in asyncio.all_tasks():
            names: list[str] = []
            awaited: Any = task.get_coro()
            while awaited is not None and hasattr(awaited, "cr_await"):
                names.append(awaited.__qualname__)
                awaited = awaited.cr_await
            found.append(names)
        return found

    with TestClient(app) as client:
        assert client.portal is not None  # inside `with TestClient(...)`
        code, tokens = new_qe_room(client, 3)
        with client.websocket_connect(
            f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={tokens[0]}"}
        ) as tab:
            assert "r-status" in tab.receive_text()
            [socket] = [chain for chain in client.portal.call(chains) if "room_socket" in chain]
    served = socket[socket.index("Bourse.__call__") :]  # under the test client's own calls
    assert served[:3] == ["Bourse.__call__", "Guards.__call__", "Limits.live_socket"], socket
    assert not {"Starlette.__call__", "ServerErrorMiddleware.__call__", "ExceptionMiddleware.__call__"} & set(
        socket
    )
