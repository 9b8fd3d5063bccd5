"""How a room is stored: the log is the truth, the snapshot a small cache, and old databases upgrade."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, text
from sqlmodel import select

from app.db import Database, Statement
from app.games.registry import ENGINES
from app.migrate import alembic_config, upgrade_to_head
from app.models import ActionRecord, Room
from app.rooms import RECENT_EVENTS, RoomService, dumps

pytestmark = pytest.mark.both_databases  # those that take a database_url run on PostgreSQL too


def bot_room(service: RoomService, game: str, players: int, steps: int) -> str:
    code, _, _ = service.seats.create_room(game, players, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    for _ in range(steps):
        if not service.turns.bot_step(code):
            break
    return code


def test_the_stored_snapshot_does_not_grow_with_the_game_log(service: RoomService, database_url: str) -> None:
    code = bot_room(service, "qe", 5, 60)
    engine = create_engine(database_url)
    with engine.connect() as connection:
        state, opening, count = connection.execute(
            text("SELECT state, opening_events, event_count FROM rooms WHERE code = :code"), {"code": code}
        ).one()
        chunks = [
            json.loads(row[0]) for row in connection.execute(text("SELECT events FROM actions ORDER BY seq"))
        ]
    engine.dispose()
    assert json.loads(state)["events"] == []
    full = service.load(code).state
    assert full is not None
    assert json.loads(opening) + [event for chunk in chunks for event in chunk] == full["events"]
    assert count == len(full["events"]) > RECENT_EVENTS


def test_a_cold_load_a_hot_snapshot_and_the_replay_agree(database_url: str, service: RoomService) -> None:
    for game in sorted(ENGINES):
        code = bot_room(service, game, ENGINES[game].info.max_players, 40)
        hot = service.load(code)
        cold = RoomService(Database(database_url)).load(code)
        assert hot.version == cold.version and hot.core == cold.core
        assert hot.state == cold.state == service.records.replay(code)
        assert hot.events_total == cold.events_total == len(cold.events)
        assert hot.events_since(max(0, hot.events_total - 3)) == cold.events[-3:]
        assert cold.events_since(0) == (cold.events if len(cold.events) <= RECENT_EVENTS else None)


def test_another_process_writing_is_seen_before_the_cache_is_used(
    database_url: str, service: RoomService
) -> None:
    code = bot_room(service, "tulip-bubble", 3, 5)
    before = service.load(code)
    other = RoomService(Database(database_url))
    assert other.turns.bot_step(code)
    assert service.load(code).version == before.version + 1
    assert service.load(code).state == other.load(code).state


def test_a_move_on_a_room_another_process_moved_reads_it_afresh_inside_its_write(
    database_url: str, service: RoomService
) -> None:
    code = bot_room(service, "tulip-bubble", 3, 5)
    before = service.load(code)  # kept in this process's memory
    other = RoomService(Database(database_url))
    assert other.turns.bot_step(code)
    with service.writer.acting(code) as turn:  # the room in memory is a version old: read inside the write
        assert turn.room.version == before.version + 1
        assert turn.room.core == other.load(code).core
    assert service.turns.bot_step(code)
    assert other.load(code).version == before.version + 2


def test_a_move_stores_times_the_models_read_back(database_url: str, service: RoomService) -> None:
    """A move's rows are written on the driver's cursor; their times read back through the ORM as
    the times it writes itself do (SQLite keeps them as text in SQLAlchemy's format)."""
    code = bot_room(service, "qe", 3, 3)
    db = Database(database_url)
    with db.read() as session:
        room = session.exec(select(Room).where(Room.code == code)).one()
        acted = session.exec(select(ActionRecord).where(ActionRecord.room_id == room.id)).all()
    db.dispose()
    assert len(acted) == 3
    assert all(room.created_at <= action.created_at <= room.updated_at for action in acted)
    assert room.updated_at - room.created_at < timedelta(minutes=5)


def test_a_hot_statement_is_kept_in_each_drivers_parameter_style() -> None:
    statement = Statement("UPDATE rooms SET version = :new WHERE id = :room_1 AND state::text = :old")
    assert statement.sqlite == "UPDATE rooms SET version = :new WHERE id = :room_1 AND state::text = :old"
    assert statement.postgres == (
        "UPDATE rooms SET version = %(new)s WHERE id = %(room_1)s AND state::text = %(old)s"
    )


def test_a_database_from_before_the_split_is_upgraded_by_replaying_its_log(tmp_path: Path) -> None:
    """Revision 0001 kept the whole state, game log included, in ``rooms.state``."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0001")
    engine = ENGINES["tulipmania-1637"]
    state = engine.setup(4, {}, 1234)
    rng = random.Random(5)
    actions = []
    for _ in range(30):
        seat = engine.to_act(state)[0]
        action = engine.bot_action(state, seat, rng)
        actions.append((seat, action))
        state = engine.apply(state, seat, action)
    old = create_engine(url)
    with old.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO rooms (code, game, players, options, seed, status, state, version, created_at, "
                "updated_at) VALUES ('oldroom234567', 'tulipmania-1637', 4, '{}', '1234', 'playing', :state, 31, "
                "'2026-11-30', '2026-11-30')"
            ),
            {"state": dumps(state)},
        )
        for number in range(4):
            connection.execute(
                text(
                    "INSERT INTO seats (room_id, seat, name, is_bot, bot_controlled, is_host, legal_version, "
                    "created_at) VALUES (1, :seat, :name, 1, 0, 0, 0, '2026-11-30')"
                ),
                {"seat": number, "name": f"Bot {number}"},
            )
        for seq, (seat, action) in enumerate(actions, start=1):
            connection.execute(
                text(
                    "INSERT INTO actions (room_id, seq, seat, action, created_at) "
                    "VALUES (1, :seq, :seat, :action, '2026-11-30')"
                ),
                {"seq": seq, "seat": seat, "action": dumps(action)},
            )
    old.dispose()
    upgrade_to_head(url)
    service = RoomService(Database(url))
    snapshot = service.load("oldroom234567")
    assert snapshot.state == state
    assert snapshot.core is not None and snapshot.core["events"] == []
    assert service.turns.bot_step("oldroom234567")  # and play goes on
    assert service.load("oldroom234567").state == service.records.replay("oldroom234567")
