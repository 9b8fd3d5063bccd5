"""The day clock is humane (issue 23): the host pauses the table's clock and resumes it. While it is
paused no clock runs out and every clock shows "paused"; resuming gives each seat the time it had
left; a decision that came meanwhile starts whole; the pause is stored with the room, so a restart
(or another process) keeps it, on SQLite and PostgreSQL; each pause and resume is a notice in the table chat. A long clock's
end is in the page as an ISO time for the reader's browser to show in their own time zone."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.db import Database
from app.rooms import Conflict, Forbidden, NotFound, RoomService, wallclock
from app.web.app import create_app
from app.web.render import iso_time
from tests.platform.test_api import auth
from tests.platform.test_clocks import CLOCK, Clock, clocked_room, seat_of


@pytest.fixture
def wall_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The wall clock the room service reads, moved by the test (as in test_clocks)."""
    fake = Clock()
    monkeypatch.setattr(wallclock, "now_ms", fake)
    return fake


@pytest.mark.both_databases
def test_no_clock_runs_out_while_paused_and_resuming_gives_back_the_time_left(
    service: RoomService, toy_game: str, wall_clock: Clock
) -> None:
    code = clocked_room(service, toy_game, players=2)
    deadline = seat_of(service.load(code), 0).deadline
    assert deadline is not None
    wall_clock.advance(10)
    notice = service.clocks.pause(code, 0)
    assert notice is not None and notice.notice and notice.text == "clock-paused"
    room = service.load(code)
    assert room.clock_paused_at == wall_clock.now
    wall_clock.advance(3600)  # an hour: well past every deadline
    assert service.turns.due_deadlines() == []
    assert service.turns.time_out(code, 0, seat_of(room, 0).legal_version) is None
    assert service.load(code).actions == 0  # no bot decided for anyone
    service.clocks.resume(code, 0)
    after = service.load(code)
    assert after.clock_paused_at is None
    assert seat_of(after, 0).deadline == deadline + 3600 * 1000  # the 20 s it had left, still left
    assert seat_of(after, 0).deadline == wall_clock.now + (CLOCK - 10) * 1000
    wall_clock.advance(CLOCK - 10 - 1)
    assert service.turns.due_deadlines() == []
    wall_clock.advance(1)
    assert {seat for _, seat, _ in service.turns.due_deadlines()} == {0, 1}


def test_a_decision_that_comes_during_a_pause_gets_its_whole_clock_from_the_resume(
    service: RoomService, toy_game: str, wall_clock: Clock
) -> None:
    code = clocked_room(service, toy_game, players=2)
    service.clocks.pause(code, 0)
    wall_clock.advance(500)
    room = service.load(code)
    for seat in (0, 1):  # both pick: the next round waits for both again, a new decision each
        room = service.load(code)
        service.turns.act(code, seat, room.version, {"type": "pick", "number": 2})
    wall_clock.advance(500)
    service.clocks.resume(code, 0)
    after = service.load(code)
    assert after.to_act() == [0, 1]
    assert {seat_of(after, seat).deadline for seat in (0, 1)} == {wall_clock.now + CLOCK * 1000}


def test_only_the_host_pauses_a_running_clock_and_twice_changes_nothing(
    service: RoomService, toy_game: str, wall_clock: Clock
) -> None:
    code = clocked_room(service, toy_game, players=2)
    with pytest.raises(Forbidden):
        service.clocks.pause(code, 1)
    service.clocks.pause(code, 0)
    version = service.load(code).version
    assert service.clocks.pause(code, 0) is None
    assert service.load(code).version == version
    service.clocks.resume(code, 0)
    assert service.clocks.resume(code, 0) is None
    untimed, _, _ = service.seats.create_room(toy_game, 2, {}, "Ann")
    service.seats.join(untimed, "Bob")
    service.seats.start(untimed, 0)
    with pytest.raises(Conflict):
        service.clocks.pause(untimed, 0)
    waiting, _, _ = service.seats.create_room(toy_game, 2, {}, "Ann", clock=CLOCK)
    with pytest.raises(Conflict):
        service.clocks.pause(waiting, 0)


def test_the_chat_says_who_paused_and_resumed_and_nobody_can_mute_a_notice(
    service: RoomService, toy_game: str, wall_clock: Clock
) -> None:
    code = clocked_room(service, toy_game, players=2)
    service.clocks.pause(code, 0)
    service.clocks.resume(code, 0)
    lines = service.chat.lines(code)
    assert [(line.text, line.name, line.notice, line.spectator) for line in lines] == [
        ("clock-paused", "Ann", True, False),
        ("clock-resumed", "Ann", True, False),
    ]
    with pytest.raises(NotFound):
        service.chat.mute(code, 0, lines[0].id)


@pytest.mark.both_databases
def test_a_pause_survives_a_restart(
    database_url: str, service: RoomService, toy_game: str, wall_clock: Clock
) -> None:
    code = clocked_room(service, toy_game, players=2)
    service.clocks.pause(code, 0)
    wall_clock.advance(3600)
    db = Database(database_url)
    try:
        restarted = RoomService(db)  # another process, or the same after a restart: a cold read
        assert restarted.load(code).clock_paused_at is not None
        assert restarted.turns.due_deadlines() == []
        restarted.clocks.resume(code, 0)
        assert service.load(code).clock_paused_at is None  # and the first sees the resume
    finally:
        db.dispose()


def test_the_table_shows_paused_clocks_and_only_the_host_may_pause(database_url: str, toy_game: str) -> None:
    settings = Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0, BOURSE_CLOCK_PRESETS="86400")
    with TestClient(create_app(settings)) as host, TestClient(create_app(settings)) as guest:
        created = host.post(
            "/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann", "clock": 86400}
        ).json()
        code, ann = created["code"], created["token"]
        host.cookies.set(f"bourse_seat_{code}", ann)
        bob = guest.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
        guest.cookies.set(f"bourse_seat_{code}", bob)
        host.post(f"/api/rooms/{code}/start", headers=auth(ann))
        deadlines = [seat["deadline"] for seat in host.get(f"/api/rooms/{code}").json()["seats"]]
        page = host.get(f"/r/{code}?lang=en").text
        assert 'id="f-clock"' in page and "Pause the clock" in page
        for deadline in deadlines:  # a day's clock: when it runs out, for the reader's browser to show
            assert f'<time class="clock-until" datetime="{iso_time(deadline)}">' in page
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", iso_time(deadlines[0]))
        assert 'data-clock-until="until {time}"' in page
        assert (
            'class="host-only clock-control" id="f-clock"' in page
        )  # a public region: the page shows it to the host
        refused = guest.post(f"/r/{code}/clock", data={"pause": "yes"}, headers={"HX-Request": "true"})
        assert refused.status_code == 403
        assert host.post(f"/r/{code}/clock", data={"pause": "yes"}, follow_redirects=False).status_code == 303
        paused = guest.get(f"/r/{code}?lang=zh-Hant").text
        assert "data-deadline" not in paused and 'class="clock-until"' not in paused
        assert paused.count('class="clock-state">已暫停<') == 3  # both seats, and Bob's own status
        assert "房主暫停了計時：在恢復之前，沒有人的時間會用完。" in paused
        assert "Ann 暫停了計時。" in paused
        assert "Resume the clock" in host.get(f"/r/{code}?lang=en").text
        assert host.post(f"/r/{code}/clock", data={"pause": "no"}, follow_redirects=False).status_code == 303
        resumed = guest.get(f"/r/{code}?lang=en").text
        assert resumed.count("data-deadline=") == 3 and "Ann resumed the clock." in resumed


def test_the_api_pauses_and_resumes_and_says_so(database_url: str, toy_game: str) -> None:
    settings = Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0, BOURSE_CLOCK_PRESETS="600")
    with TestClient(create_app(settings)) as client:
        created = client.post(
            "/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann", "clock": 600}
        )
        code, ann = created.json()["code"], created.json()["token"]
        bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
        client.post(f"/api/rooms/{code}/start", headers=auth(ann))
        assert client.get(f"/api/rooms/{code}").json()["clock_paused_at"] is None
        refused = client.post(f"/api/rooms/{code}/clock", json={"paused": True}, headers=auth(bob))
        assert refused.status_code == 403 and refused.json()["detail"] == "Only the host can do that."
        paused = client.post(f"/api/rooms/{code}/clock", json={"paused": True}, headers=auth(ann))
        assert paused.status_code == 200 and isinstance(paused.json()["clock_paused_at"], int)
        resumed = client.post(f"/api/rooms/{code}/clock", json={"paused": False}, headers=auth(ann)).json()
        assert resumed["clock_paused_at"] is None
        messages = client.get(f"/api/rooms/{code}/chat").json()["messages"]
        assert [(m["text"], m["notice"], m["name"]) for m in messages] == [
            ("clock-paused", True, "Ann"),
            ("clock-resumed", True, "Ann"),
        ]


def test_a_pause_is_said_in_the_chat_and_so_counts_against_the_chat_limit(
    database_url: str, toy_game: str
) -> None:
    """Each pause and resume writes a chat line: the host may not flood the chat with them where the
    chat limit would stop their words (the limit on moves is far higher)."""
    settings = Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_BOT_DELAY=0,
        BOURSE_CLOCK_PRESETS="600",
        BOURSE_RATE_CHAT="3/minute",
        BOURSE_RATE_ACT="off",
    )
    with TestClient(create_app(settings)) as client:
        created = client.post(
            "/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann", "clock": 600}
        )
        code, ann = created.json()["code"], created.json()["token"]
        client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        client.post(f"/api/rooms/{code}/start", headers=auth(ann))
        paused = [
            client.post(f"/api/rooms/{code}/clock", json={"paused": True}, headers=auth(ann)).status_code,
            client.post(f"/api/rooms/{code}/clock", json={"paused": False}, headers=auth(ann)).status_code,
        ]
        client.cookies.set(f"bourse_seat_{code}", ann)
        paused.append(
            client.post(f"/r/{code}/clock", data={"pause": "yes"}, follow_redirects=False).status_code
        )
        flood = client.post(f"/r/{code}/clock", data={"pause": "no"}, follow_redirects=False)
        assert paused == [200, 200, 303] and flood.status_code == 429
        assert "You are sending messages too fast" in flood.text and int(flood.headers["Retry-After"]) > 0
        assert len(client.get(f"/api/rooms/{code}/chat").json()["messages"]) == 3
