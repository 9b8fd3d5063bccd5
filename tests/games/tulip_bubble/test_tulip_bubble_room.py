"""Tulip Bubble through the platform: a room of bots plays a whole game, stored as JSON and replayable."""

from __future__ import annotations

from app.rooms import RoomService


def test_a_room_of_tulip_bubble_bots_plays_to_the_end(service: RoomService) -> None:
    code, _, _ = service.seats.create_room(
        "tulip-bubble", 5, {"no_margin_trading": True, "joining_mid_game": True}, None
    )
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    while service.turns.bot_step(code):
        pass
    snapshot = service.load(code)
    assert snapshot.status == "finished" and snapshot.result is not None
    assert service.records.replay(code) == snapshot.state
