"""the game log moves out of the state snapshot into the action rows

Before, ``rooms.state`` held the whole state, game log included, rewritten on every action (a
blob that grew with the game). Now it holds the state without its log; each action row keeps the
events that action logged and ``rooms.opening_events`` those of the setup. Existing rooms are
split by replaying their action log from the seed (the log is the truth).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def upgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.add_column(sa.Column("opening_events", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("event_count", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("events", sa.Text(), nullable=False, server_default="[]"))

    from app.games.registry import ENGINES  # the engines replay what they logged

    connection = op.get_bind()
    rooms = connection.execute(
        sa.text("SELECT id, game, players, options, seed FROM rooms WHERE state IS NOT NULL")
    ).all()
    for room in rooms:
        engine = ENGINES[room.game]
        state = engine.setup(room.players, json.loads(room.options), int(room.seed))
        opening = state["events"]
        state = {**state, "events": []}
        actions = connection.execute(
            sa.text("SELECT id, seat, action FROM actions WHERE room_id = :room ORDER BY seq"),
            {"room": room.id},
        ).all()
        total = len(opening)
        for action in actions:
            state = engine.apply(state, action.seat, json.loads(action.action))
            connection.execute(
                sa.text("UPDATE actions SET events = :events WHERE id = :id"),
                {"events": _dumps(state["events"]), "id": action.id},
            )
            total += len(state["events"])
            state = {**state, "events": []}
        connection.execute(
            sa.text(
                "UPDATE rooms SET state = :state, opening_events = :opening, event_count = :total WHERE id = :id"
            ),
            {"state": _dumps(state), "opening": _dumps(opening), "total": total, "id": room.id},
        )


def downgrade() -> None:
    connection = op.get_bind()
    rooms = connection.execute(
        sa.text("SELECT id, state, opening_events FROM rooms WHERE state IS NOT NULL")
    ).all()
    for room in rooms:
        events = json.loads(room.opening_events or "[]")
        for (chunk,) in connection.execute(
            sa.text("SELECT events FROM actions WHERE room_id = :room ORDER BY seq"), {"room": room.id}
        ):
            events.extend(json.loads(chunk))
        state = {**json.loads(room.state), "events": events}
        connection.execute(
            sa.text("UPDATE rooms SET state = :state WHERE id = :id"), {"state": _dumps(state), "id": room.id}
        )
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_column("events")
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.drop_column("event_count")
        batch_op.drop_column("opening_events")
