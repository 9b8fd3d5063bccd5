"""Starting a game set up by "Play again" without the people not back yet: their bots play their
seats until they take them back; nobody else's seat (the host's, a bot's) is touched."""

from __future__ import annotations

from app.rooms import RoomService


def test_seats_started_without_are_played_by_their_bots_until_taken_back(
    service: RoomService, toy_game: str
) -> None:
    code, _, _ = service.seats.create_room(toy_game, 3, {}, "Ann", clock=60)
    service.seats.join(code, "Bob")
    service.seats.add_bot(code, 0)
    service.seats.start(code, 0, without={0, 1, 2})
    snapshot = service.load(code)
    assert snapshot.status == "playing"
    by_seat = {s.seat: s for s in snapshot.seats}
    assert not by_seat[0].bot_controlled  # the host is here: never started without
    assert by_seat[1].bot_controlled and by_seat[1].deadline is None  # no clock runs while a bot plays
    assert not by_seat[2].bot_controlled  # a bot's own seat

    service.seats.set_bot_control(code, 1, 1, False)
    back = next(s for s in service.load(code).seats if s.seat == 1)
    assert not back.bot_controlled and back.deadline is not None  # back: his clock starts now
