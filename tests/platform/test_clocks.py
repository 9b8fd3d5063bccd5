"""Turn clocks (issue 11): a seat's clock running out lets its bot make that one decision, once, and
the log says so; deadlines are stored, so a restart neither loses nor resets them; in a simultaneous
phase each seat has its own clock. Time is moved by hand (``app.rooms.wallclock.now_ms``), not waited for."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.db import Database
from app.rooms import TIMED_OUT, RoomError, RoomService, RoomSnapshot, SeatInfo, wallclock
from app.web.app import create_app
from tests.platform.test_api import auth

CLOCK = 30  # seconds per decision in these rooms


class Clock:
    """The wall clock the room service reads, moved by the test."""

    def __init__(self) -> None:
        self.now = int(time.time() * 1000)

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1000)


def seat_of(room: RoomSnapshot, seat: int) -> SeatInfo:
    """The room's seat ``seat``, which every room here has."""
    info = room.seat(seat)
    assert info is not None, seat
    return info


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(wallclock, "now_ms", fake)
    return fake


def clocked_room(service: RoomService, game: str, players: int = 2, clock: int = CLOCK) -> str:
    code, _, _ = service.seats.create_room(game, players, {}, "Ann", clock=clock)
    for name in ("Bob", "Cy", "Di")[: players - 1]:
        service.seats.join(code, name)
    service.seats.start(code, 0)
    return code


def timeouts_logged(service: RoomService, code: str) -> list[dict[str, Any]]:
    return [event for event in service.load(code).events if event["text"] == TIMED_OUT]


def test_every_seat_of_a_simultaneous_choice_gets_its_own_clock(
    service: RoomService, toy_game: str, clock: Clock
) -> None:
    code = clocked_room(service, toy_game, players=3)
    room = service.load(code)
    assert room.to_act() == [0, 1, 2]
    assert {s.deadline for s in room.seats} == {clock.now + CLOCK * 1000}
    clock.advance(10)
    service.turns.act(code, 1, room.version, {"type": "pick", "number": 2})
    after = service.load(code)
    assert seat_of(after, 1).deadline is None  # it has decided: no clock
    running = seat_of(room, 0).deadline
    assert seat_of(after, 0).deadline == seat_of(after, 2).deadline == running  # theirs run on


def test_a_clock_running_out_makes_exactly_one_decision_for_exactly_that_seat_once(
    service: RoomService, toy_game: str, clock: Clock
) -> None:
    code = clocked_room(service, toy_game, players=3)
    room = service.load(code)
    service.turns.act(code, 1, room.version, {"type": "pick", "number": 2})  # seat 1 decides in time
    clock.advance(CLOCK - 1)
    assert service.turns.due_deadlines(clock.now) == []
    assert service.turns.time_out(code, 0, seat_of(service.load(code), 0).legal_version) is None  # not yet
    clock.advance(1)
    due = service.turns.due_deadlines(clock.now)
    assert sorted(seat for _, seat, _ in due) == [0, 2]
    before = service.load(code)
    fired = [service.turns.time_out(code, seat, version) for _, seat, version in due if seat == 0]
    fired += [service.turns.time_out(code, seat, version) for _, seat, version in due if seat == 0]  # again
    assert fired[0] is not None and fired[1] is None  # once
    after = service.load(code)
    assert after.actions == before.actions + 1
    assert [seat for seat, _ in service.records.action_log(code)] == [1, 0]  # seat 0's one decision
    assert after.to_act() == [2]  # seat 2's clock is its own: it still waits
    assert [e["params"]["seat"] for e in timeouts_logged(service, code)] == [{"seat": 0}]
    assert seat_of(after, 0).timeouts == 1 and seat_of(after, 0).bot_turns == 1
    assert seat_of(after, 2).bot_turns == 0


def test_a_timed_out_decision_is_made_outside_the_write_transaction_and_again_if_the_room_moved(
    service: RoomService, toy_game: str, clock: Clock
) -> None:
    """A strong bot's search for a timed-out seat takes up to its budget: inside the write transaction
    it would hold back every room's writes on SQLite for that long (as ``bot_step`` once did)."""
    code = clocked_room(service, toy_game, players=3)
    other, _, _ = service.seats.create_room(toy_game, 3, {}, "Eve")
    start = service.load(code).version
    clock.advance(CLOCK)
    decide = service.turns._bot_decision
    decided_at: list[int] = []
    others_wrote: list[bool] = []

    def deciding(room: RoomSnapshot, seat: int, rng: random.Random) -> dict[str, Any]:
        decided_at.append(room.version)
        if len(decided_at) == 1:
            writer = threading.Thread(target=service.seats.join, args=(other, "Fay"))  # another room's write
            writer.start()
            writer.join(timeout=5)
            others_wrote.append(not writer.is_alive())
            assert others_wrote == [True], "another room's write waited for this decision"
            service.turns.act(code, 1, room.version, {"type": "pick", "number": 2})  # seat 1 moves meanwhile
        return decide(room, seat, rng)

    service.turns._bot_decision = deciding  # type: ignore[method-assign]
    assert service.turns.time_out(code, 0, seat_of(service.load(code), 0).legal_version) is not None
    assert others_wrote == [True] and len(service.load(other).seats) == 2
    assert decided_at == [start, start + 1]  # decided again on the table seat 1's move left
    assert [seat for seat, _ in service.records.action_log(code)] == [1, 0]
    assert [e["params"]["seat"] for e in timeouts_logged(service, code)] == [{"seat": 0}]


def test_a_late_timer_for_a_decision_already_made_does_nothing(
    service: RoomService, toy_game: str, clock: Clock
) -> None:
    code = clocked_room(service, toy_game)
    room = service.load(code)
    decision = seat_of(room, 0).legal_version
    clock.advance(CLOCK + 5)  # the clock ran out, but the player's move arrives first
    service.turns.act(code, 0, room.version, {"type": "pick", "number": 3})
    assert service.turns.time_out(code, 0, decision) is None
    assert timeouts_logged(service, code) == []


def test_a_restart_in_the_middle_of_a_countdown_neither_loses_nor_resets_the_deadline(
    database_url: str, toy_game: str, clock: Clock
) -> None:
    from app.migrate import upgrade_to_head

    upgrade_to_head(database_url)
    first = Database(database_url)
    code = clocked_room(RoomService(first), toy_game)
    deadline = seat_of(RoomService(first).load(code), 0).deadline
    first.dispose()  # the process dies mid-countdown
    clock.advance(CLOCK / 2)
    second = Database(database_url)
    try:
        restarted = RoomService(second)
        assert seat_of(restarted.load(code), 0).deadline == deadline  # not reset by the restart
        assert restarted.turns.due_deadlines(clock.now) == []
        clock.advance(CLOCK / 2)
        due = restarted.turns.due_deadlines(clock.now)
        assert sorted(seat for _, seat, _ in due) == [0, 1]
        for _, seat, version in due:
            assert restarted.turns.time_out(code, seat, version) is not None
        # another restart finds nothing left to fire: each timeout happened once
        again = RoomService(second)
        assert again.turns.due_deadlines(clock.now) == []
        assert len(timeouts_logged(again, code)) == 2
        assert len(again.records.action_log(code)) == 2
    finally:
        second.dispose()


def test_an_away_seat_that_times_out_twice_in_a_row_is_handed_to_a_bot(
    service: RoomService, toy_game: str, clock: Clock
) -> None:
    code = clocked_room(service, toy_game)
    for round_ in (1, 2):
        room = service.load(code)
        clock.advance(CLOCK)
        assert service.turns.time_out(code, 0, seat_of(room, 0).legal_version, away=True) is not None
        room = service.load(code)
        if round_ == 1:
            assert not seat_of(room, 0).bot_controlled  # once is not yet
            service.turns.act(code, 1, room.version, {"type": "pick", "number": 1})
    after = service.load(code)
    assert seat_of(after, 0).bot_controlled and seat_of(after, 0).deadline is None
    assert any("away for two timeouts" in event["text"] for event in after.events)


def test_a_player_who_is_still_here_is_not_handed_to_a_bot_by_timeouts(
    service: RoomService, toy_game: str, clock: Clock
) -> None:
    code = clocked_room(service, toy_game)
    for _ in range(2):
        room = service.load(code)
        clock.advance(CLOCK)
        assert service.turns.time_out(code, 0, seat_of(room, 0).legal_version, away=False) is not None
        room = service.load(code)
        service.turns.act(code, 1, room.version, {"type": "pick", "number": 1})
    assert not seat_of(service.load(code), 0).bot_controlled
    assert seat_of(service.load(code), 0).timeouts == 2


def test_rooms_without_a_clock_have_no_deadlines(service: RoomService, toy_game: str) -> None:
    code = clocked_room(service, toy_game, clock=0)
    assert all(s.deadline is None for s in service.load(code).seats)
    assert service.turns.due_deadlines(int(time.time() * 1000) + 10**9) == []


def test_a_clock_is_off_unless_chosen_and_must_be_a_preset(settings: Settings, toy_game: str) -> None:
    with TestClient(create_app(settings)) as client:
        plain = client.post("/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann"}).json()
        assert client.get(f"/api/rooms/{plain['code']}").json()["clock"] == 0
        odd = client.post("/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann", "clock": 31})
        assert odd.status_code == 400 and "30, 120, 600, 86400" in odd.json()["detail"]
        daily = client.post(
            "/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann", "clock": 86400}
        )
        assert daily.status_code == 201
        assert client.get(f"/api/rooms/{daily.json()['code']}").json()["clock"] == 86400
        form = client.post(
            "/rooms",
            data={"game": toy_game, "players": "2", "name": "Bo", "clock": "120"},
            follow_redirects=False,
        )
        assert form.status_code == 303
        assert client.get(f"/api/rooms/{form.headers['location'].rsplit('/', 1)[1]}").json()["clock"] == 120
        assert 'name="clock"' in client.get("/?lang=en").text


def test_the_timer_lets_the_bot_decide_and_every_page_shows_the_deadline(
    database_url: str, toy_game: str
) -> None:
    settings = Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_BOT_DELAY=0,
        BOURSE_CLOCK_PRESETS="1,600",
        BOURSE_CLOCK_TICK=0.05,
    )
    with TestClient(create_app(settings)) as client:
        created = client.post(
            "/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann", "clock": 600}
        )
        code, ann = created.json()["code"], created.json()["token"]
        bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
        client.post(f"/api/rooms/{code}/start", headers=auth(ann))
        room = client.get(f"/api/rooms/{code}").json()
        deadlines = [seat["deadline"] for seat in room["seats"]]
        assert all(deadline and deadline > time.time() * 1000 + 590_000 for deadline in deadlines)
        page = client.get(f"/r/{code}").text  # a spectator sees every clock too
        assert all(f'data-deadline="{deadline}"' in page for deadline in deadlines)

        short = client.post("/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann", "clock": 1})
        code, ann = short.json()["code"], short.json()["token"]
        bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
        client.post(f"/api/rooms/{code}/start", headers=auth(ann))
        version = client.get(f"/api/rooms/{code}").json()["version"]
        picked = client.post(
            f"/api/rooms/{code}/actions",
            json={"version": version, "action": {"type": "pick", "number": 3}},
            headers=auth(bob),
        )
        assert picked.status_code == 200
        give_up = time.monotonic() + 10
        while time.monotonic() < give_up:
            log = client.get(f"/api/rooms/{code}/log").json()["events"]
            if any(event["message"] == TIMED_OUT for event in log):
                break
            time.sleep(0.05)
        texts = [event["text"] for event in client.get(f"/api/rooms/{code}/log").json()["events"]]
        assert "Ann's time ran out: a bot made that decision." in texts
        assert (
            "Bob's time ran out: a bot made that decision."
            not in texts[: texts.index("Ann's time ran out: a bot made that decision.")]
        )


def test_the_service_refuses_a_clock_longer_than_a_week(service: RoomService, toy_game: str) -> None:
    with pytest.raises(RoomError):
        service.seats.create_room(toy_game, 2, {}, "Ann", clock=8 * 86400)


def test_handing_a_seat_to_a_bot_and_taking_it_back_keeps_its_deadline(
    service: RoomService, toy_game: str, clock: Clock
) -> None:
    """The host could reset their own clock forever by handing their seat to a bot and back."""
    code = clocked_room(service, toy_game, players=3)
    deadline = seat_of(service.load(code), 0).deadline
    assert deadline == clock.now + CLOCK * 1000
    clock.advance(20)
    service.seats.set_bot_control(code, 0, 0, True)  # the host may always hand their own seat over
    assert service.turns.due_deadlines(clock.now + CLOCK * 1000) == [
        (code, seat, seat_of(service.load(code), seat).legal_version) for seat in (1, 2)
    ]  # a seat its bot plays has no clock that runs out
    room = service.load(code)
    service.turns.act(code, 1, room.version, {"type": "pick", "number": 2})  # the table moves on meanwhile
    service.seats.set_bot_control(code, 0, 0, False)
    assert seat_of(service.load(code), 0).deadline == deadline  # the same decision, the same clock
    clock.advance(CLOCK - 20)
    assert [seat for _, seat, _ in service.turns.due_deadlines()] == [0, 2]
