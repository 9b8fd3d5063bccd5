"""Who is watching (issue 20): the table sees how many spectators it has, by name where they gave one
in chat, counted on every process; shown every few seconds at most, and only to the tabs whose line
changed (a crowd arriving must not cost everyone a push per spectator)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.web.app import create_app
from app.web.deps import VIEWER_COOKIE
from app.web.live import LiveRooms
from tests.platform.test_api import auth
from tests.platform.test_live_sync import received


@pytest.fixture
def client(database_url: str, toy_game: str) -> Iterator[TestClient]:
    settings = Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0, BOURSE_CLOCK_TICK=3600)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def watchers_lines(texts: list[str]) -> list[str]:
    return [text for text in texts if 'id="watchers"' in text]


def test_the_table_sees_its_spectators_counted_named_and_from_other_processes(
    client: TestClient, toy_game: str
) -> None:
    live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
    created = client.post("/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    page = client.get(f"/r/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"}).text
    assert 'id="watchers"' in page and "watching" not in page.lower()
    # Cy writes in chat under a name; her browser is known by its viewer key from then on
    assert client.post(f"/r/{code}/chat", data={"text": "hi", "name": "Cy"}).status_code in (200, 303)
    cy = client.cookies.get(VIEWER_COOKIE)
    client.cookies.clear()
    assert cy
    with (
        client.websocket_connect(
            f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"}
        ) as seat,
        client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": f"{VIEWER_COOKIE}={cy}"}) as named,
        client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": f"{VIEWER_COOKIE}={cy}"}),
        client.websocket_connect(f"/ws/rooms/{code}") as unnamed,
    ):
        received(seat), received(named), received(unnamed)
        seat.portal.call(live.timers.show_crowds)
        shown = watchers_lines(received(seat))
        assert len(shown) == 1 and "Watching: Cy and 1 more" in shown[0]  # Cy's two tabs count once
        assert watchers_lines(received(unnamed)) == shown  # a public line: the same bytes for all
        seat.portal.call(live.timers.show_crowds)
        assert watchers_lines(received(seat)) == []  # nothing changed: nothing sent

        # another process has five spectators' tabs, one of them Zed's
        other = {"from": "other", "kind": "presence", "room": code, "seats": []}
        seat.portal.call(live.remote.heard, {**other, "spectators": 5, "names": ["Zed"]})
        seat.portal.call(live.timers.show_crowds)
        assert "Watching: Cy, Zed and 5 more" in "".join(watchers_lines(received(seat)))
        seat.portal.call(live.remote.heard, {**other, "spectators": 0, "names": []})
    with client.websocket_connect(
        f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"}
    ) as seat:
        received(seat)
        seat.portal.call(live.timers.show_crowds)
        assert watchers_lines(received(seat)) == []  # no spectators: the page's empty line stands
        with client.websocket_connect(f"/ws/rooms/{code}"):
            seat.portal.call(live.timers.show_crowds)
            assert "1 spectator is watching" in "".join(watchers_lines(received(seat)))


def test_a_tab_back_after_a_while_is_told_what_it_missed_and_only_that_tab(
    client: TestClient, toy_game: str
) -> None:
    created = client.post("/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    client.post(f"/api/rooms/{code}/start", headers=auth(ann))
    before = client.get(f"/api/rooms/{code}").json()
    shown = (
        len(client.get(f"/r/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"}).text.split("<li>")) - 1
    )
    for token in (ann, bob):
        version = client.get(f"/api/rooms/{code}").json()["version"]
        acted = client.post(
            f"/api/rooms/{code}/actions",
            json={"version": version, "action": {"type": "pick", "number": 1}},
            headers=auth(token),
        )
        assert acted.status_code == 200
    ann_cookie = {"cookie": f"bourse_seat_{code}={ann}"}
    back = f"/ws/rooms/{code}?v={before['version']}"
    with client.websocket_connect(back, headers=ann_cookie) as quick:  # a reload, a tunnel: no note
        assert not any("away-note" in text for text in received(quick))
    with (
        client.websocket_connect(f"{back}&away={shown}", headers=ann_cookie) as returning,
        client.websocket_connect(f"/ws/rooms/{code}?v={before['version']}") as spectator,
    ):
        notes = [text for text in received(returning) if "away-note" in text]
        assert len(notes) == 1 and "While you were away:" in notes[0]
        assert "Ann" in notes[0] and "<li" in notes[0]  # the log's lines, as the seat may read them
        assert not any("away-note" in text for text in received(spectator))


def test_a_page_opened_again_is_told_what_happened_since_its_last_visit(
    client: TestClient, toy_game: str
) -> None:
    """The page is new (its version is the room's), but it names the log lines this browser showed
    at its last visit (``back=1``): it gets the note, with whom the lines were about."""
    created = client.post("/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    client.post(f"/api/rooms/{code}/start", headers=auth(ann))
    ann_cookie = {"cookie": f"bourse_seat_{code}={ann}"}
    shown = len(client.get(f"/r/{code}", headers=ann_cookie).text.split("<li>")) - 1
    for token in (ann, bob):
        version = client.get(f"/api/rooms/{code}").json()["version"]
        action = {"type": "pick", "number": 1}
        client.post(
            f"/api/rooms/{code}/actions", json={"version": version, "action": action}, headers=auth(token)
        )
    now = client.get(f"/api/rooms/{code}").json()["version"]
    with client.websocket_connect(f"/ws/rooms/{code}?v={now}&away={shown}", headers=ann_cookie) as fresh:
        assert not any("away-note" in text for text in received(fresh))  # a live tab up to date: nothing
    with client.websocket_connect(
        f"/ws/rooms/{code}?v={now}&away={shown}&back=1", headers=ann_cookie
    ) as reopened:
        notes: list[str] = []
        for _ in range(40):  # the note follows the socket's own read of the room
            notes += [text for text in received(reopened) if "away-note" in text]
            if notes:
                break
            time.sleep(0.05)
    assert len(notes) == 1 and "While you were away:" in notes[0]
    assert "Who they were about: " in notes[0] and "Bob (" in notes[0]


def test_a_show_of_crowds_looks_only_at_rooms_whose_crowd_may_have_changed(
    client: TestClient, toy_game: str
) -> None:
    """Every few seconds the timer shows who is watching; a room where no tab opened or closed, no
    other process's crowd changed and nobody wrote costs nothing (1000 rooms were ~15 ms a show)."""
    live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
    rooms = [
        client.post("/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann"}).json() for _ in "ab"
    ]
    (first, ann), (second, bea) = ((room["code"], room["token"]) for room in rooms)
    looked: list[str] = []
    show_one = live.timers._show_crowd

    async def looking(code: str) -> None:
        looked.append(code)
        await show_one(code)

    live.timers._show_crowd = looking  # type: ignore[method-assign]
    with (
        client.websocket_connect(
            f"/ws/rooms/{first}", headers={"cookie": f"bourse_seat_{first}={ann}"}
        ) as seat,
        client.websocket_connect(
            f"/ws/rooms/{second}", headers={"cookie": f"bourse_seat_{second}={bea}"}
        ) as other,
    ):
        received(seat), received(other)
        seat.portal.call(live.timers.show_crowds)
        assert sorted(looked) == sorted([first, second])  # a tab opened in each
        looked.clear()
        seat.portal.call(live.timers.show_crowds)
        assert looked == []
        with client.websocket_connect(f"/ws/rooms/{second}") as spectator:
            received(spectator)
            seat.portal.call(live.timers.show_crowds)
            assert looked == [second]
            assert "1 spectator is watching" in "".join(watchers_lines(received(other)))
            assert watchers_lines(received(seat)) == []
        looked.clear()
        seat.portal.call(
            live.remote.heard, {"from": "p2", "kind": "presence", "room": first, "seats": [], "spectators": 2}
        )
        seat.portal.call(live.timers.show_crowds)
        assert (
            second in looked and first in looked
        )  # the spectator left the one, another process's crowd came to the other
        assert "2 spectators are watching" in "".join(watchers_lines(received(seat)))
