"""The cleanup sweep: forgotten waiting rooms go, games are kept unless a retention is set (issue 9)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.cleanup import sweep_once
from app.config import Settings
from app.models import utcnow
from app.rooms import NotFound, RoomService
from app.web.app import create_app


def age(service: RoomService, code: str, days: float) -> None:
    """Pretend the room was last touched ``days`` ago."""
    with service.db.write() as session:
        session.execute(
            text("UPDATE rooms SET updated_at = :when WHERE code = :code"),
            {"when": utcnow() - timedelta(days=days), "code": code},
        )


def touched_at(service: RoomService, code: str) -> object:
    with service.db.read() as session:
        return session.execute(
            text("SELECT updated_at FROM rooms WHERE code = :code"), {"code": code}
        ).scalar_one()


def counts(service: RoomService) -> tuple[int, int, int]:
    with service.db.read() as session:
        return tuple(
            session.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in ("rooms", "seats", "actions")
        )


def finished_game(service: RoomService, toy_game: str) -> str:
    code, _, _ = service.seats.create_room(toy_game, 2, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    while service.turns.bot_step(code):
        pass
    assert service.load(code).status == "finished"
    return code


def test_rooms_never_started_go_after_a_week_and_games_stay(
    service: RoomService, settings: Settings, toy_game: str
) -> None:
    forgotten, _, _ = service.seats.create_room(toy_game, 3, {}, "Ann")
    service.seats.join(forgotten, "Bob")
    fresh, _, _ = service.seats.create_room(toy_game, 2, {}, "Cy")
    finished = finished_game(service, toy_game)
    abandoned, _, _ = service.seats.create_room(toy_game, 2, {}, "Di")
    service.seats.add_bot(abandoned, 0)
    service.seats.start(abandoned, 0)
    service.load(forgotten)  # in memory too
    for code in (forgotten, finished, abandoned):
        age(service, code, 8)
    age(service, fresh, 6)

    assert sweep_once(service, settings) == [forgotten]
    with pytest.raises(NotFound):
        service.load(forgotten)
    for code in (fresh, finished, abandoned):
        service.load(code)
    rooms, seats, actions = counts(service)
    assert (rooms, seats) == (3, 1 + 2 + 2) and actions > 0  # Bob's and Ann's seats went with the room
    assert sweep_once(service, settings) == []


def test_a_retention_removes_old_finished_games_with_their_log(
    service: RoomService, settings: Settings, toy_game: str
) -> None:
    finished = finished_game(service, toy_game)
    recent = finished_game(service, toy_game)
    for code in (finished, recent):
        age(service, code, 40 if code == finished else 1)
    keep = settings.model_copy(update={"game_retention_days": 30})
    assert sweep_once(service, keep) == [finished]
    assert counts(service) == (1, 2, len(service.records.action_log(recent)))


def test_a_game_still_playing_is_never_deleted(
    service: RoomService, settings: Settings, toy_game: str
) -> None:
    """A game on a one-day clock may go a day without a move; one nobody plays now stays as well."""
    playing, _, _ = service.seats.create_room(toy_game, 2, {}, "Di", clock=86400)
    service.seats.add_bot(playing, 0)
    service.seats.start(playing, 0)
    age(service, playing, 40)
    assert sweep_once(service, settings.model_copy(update={"game_retention_days": 1})) == []
    assert service.load(playing).status == "playing"


def test_a_chat_keeps_a_waiting_room(service: RoomService, settings: Settings, toy_game: str) -> None:
    chatting, _, _ = service.seats.create_room(toy_game, 3, {}, "Ann")
    silent, _, _ = service.seats.create_room(toy_game, 3, {}, "Bob")
    for code in (chatting, silent):
        age(service, code, 8)
    service.chat.post(chatting, None, "viewer:someone", "anyone here?")
    assert sweep_once(service, settings) == [silent]


def test_open_tabs_keep_a_room_and_are_marked_in_use_while_they_stay(
    settings: Settings, toy_game: str
) -> None:
    quick = settings.model_copy(update={"clock_tick": 0.05})
    with TestClient(create_app(quick)) as client:
        service: RoomService = client.app.state.service  # type: ignore[attr-defined]
        timers = client.app.state.live.timers  # type: ignore[attr-defined]
        watched, _, _ = service.seats.create_room(toy_game, 2, {}, "Ann")
        forgotten, _, _ = service.seats.create_room(toy_game, 2, {}, "Bob")
        for code in (watched, forgotten):
            age(service, code, 8)
        with client.websocket_connect(f"/ws/rooms/{watched}") as tab:
            tab.receive_text()  # the tab has joined: its first push
            assert sweep_once(service, settings) == [forgotten]  # the tab that opened touched it
            timers.activity_every = 0.05  # the open tab marks it in use again at the next ticks
            age(service, watched, 8)
            aged = touched_at(service, watched)
            deadline = time.monotonic() + 10  # a few ticks; a busy machine may make them late
            while touched_at(service, watched) == aged and time.monotonic() < deadline:
                time.sleep(0.05)
            assert sweep_once(service, settings) == []
        service.load(watched)


def test_a_finished_game_stops_offering_a_new_game_that_was_swept(
    service: RoomService, settings: Settings, toy_game: str
) -> None:
    code, _, _ = service.seats.create_room(toy_game, 2, {}, "Ann")
    service.seats.add_bot(code, 0)
    service.seats.start(code, 0)
    while (room := service.load(code)).status == "playing":
        seat = 0 if 0 in room.to_act() else None
        if seat is None:
            service.turns.bot_step(code)
        else:
            service.turns.act(code, 0, room.seats[0].legal_version, {"type": "pick", "number": 3})
    fresh, _ = service.records.play_again(code, 0)
    age(service, fresh, 8)
    before = service.load(code).version
    assert sweep_once(service, settings) == [fresh]
    after = service.load(code)
    assert after.next_code is None and after.version == before + 1


def test_the_app_sweeps_periodically(settings: Settings, toy_game: str) -> None:
    quick = settings.model_copy(update={"cleanup_interval": 0.05, "waiting_room_days": 0.5 / 86400})
    with TestClient(create_app(quick)) as client:
        service: RoomService = client.app.state.service  # type: ignore[attr-defined]
        code, _, _ = service.seats.create_room(toy_game, 2, {}, "Ann")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                service.load(code)
            except NotFound:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the room was not swept")
        assert client.get(f"/r/{code}").status_code == 404
