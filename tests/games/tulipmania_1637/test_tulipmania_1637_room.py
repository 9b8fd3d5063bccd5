"""Tulipmania 1637 through the platform: a room of bots plays a whole game, stored as JSON and replayable."""

from __future__ import annotations

import pytest

from app.rooms import RoomService


@pytest.mark.parametrize("players", [3, 5])
def test_a_room_of_tulipmania_bots_plays_to_the_end(service: RoomService, players: int) -> None:
    code, _, _ = service.seats.create_room("tulipmania-1637", players, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    while service.turns.bot_step(code):
        pass
    snapshot = service.load(code)
    assert snapshot.status == "finished" and snapshot.result is not None
    assert service.records.replay(code) == snapshot.state
