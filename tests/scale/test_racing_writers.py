"""Two room services on one database (two processes' writers, each with its own parsed-room cache)
race on the same rooms from several threads: whatever the interleaving, every action is applied
once or refused cleanly, the version counts the applied actions, and the log replays to the stored
state. On SQLite and on PostgreSQL (where the writers queue on the room's row)."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import pytest

from app.db import Database
from app.games.base import random_legal_action
from app.games.registry import ENGINES
from app.migrate import upgrade_to_head
from app.rooms import RoomError, RoomService

pytestmark = [pytest.mark.both_databases, pytest.mark.timeout(300)]


@pytest.fixture
def two_services(database_url: str) -> Iterator[tuple[RoomService, RoomService]]:
    upgrade_to_head(database_url)
    databases = [Database(database_url), Database(database_url)]
    yield RoomService(databases[0]), RoomService(databases[1])
    for database in databases:
        database.dispose()


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_racing_writers_apply_each_action_once_and_the_log_replays(
    two_services: tuple[RoomService, RoomService], game: str
) -> None:
    first, second = two_services
    code, _, _ = first.seats.create_room(game, 3, {}, "Ann")
    tokens = [second.seats.join(code, name)[1] for name in ("Bob", "Cy")]
    assert len(tokens) == 2
    first.seats.start(code, 0)
    start = first.load(code).version
    applied, refused, failures = [0], [0], []
    count = threading.Lock()

    def player(number: int) -> None:
        rng = random.Random(f"{game}/{number}")
        for step in range(40):
            service = (first, second)[(number + step) % 2]
            try:
                room = service.load(code)
                if room.status != "playing":
                    return
                seat = rng.choice(room.to_act())
                legal = room.legal(seat)
                service.turns.act(code, seat, room.version, random_legal_action(legal, rng))
            except RoomError:
                with count:
                    refused[0] += 1  # stale, not this seat's turn any more, or refused by the rules
                continue
            except Exception as failure:  # anything else is a bug (a 500)
                failures.append(failure)
                return
            with count:
                applied[0] += 1

    threads = [threading.Thread(target=player, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert applied[0] > 10 and refused[0] > 0  # it did race
    for service in (first, second):
        room = service.load(code)
        assert room.version == start + applied[0]
        assert service.records.replay(code) == room.state
    assert len(first.records.action_log(code)) == room.actions == applied[0]
