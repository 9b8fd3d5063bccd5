"""Deleting the rooms nobody will come back to (``app.cleanup`` runs this on a timer)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import and_, delete, or_, update
from sqlmodel import col, select

from app.models import ActionRecord, ChatMessage, ChatMute, Room, Seat, utcnow
from app.rooms.writer import RoomWriter

SWEEP_BATCH = 500  # rooms deleted per write transaction by the cleanup sweep


class Sweeper:
    """Deletes old rooms in short batches, so play goes on meanwhile."""

    def __init__(self, writer: RoomWriter) -> None:
        self.writer = writer

    def sweep(
        self, waiting_before: datetime | None, games_before: datetime | None, batch: int = SWEEP_BATCH
    ) -> list[str]:
        """Delete rooms (with their seats and action log) that nobody will come back to: rooms never
        started and untouched since ``waiting_before``, and, if ``games_before`` is given, finished
        games untouched since then. ``None`` keeps those; a game still being played is never deleted.
        A room is touched by a move, a chat line and the tabs open on it (``touch``). Returns the
        codes deleted. Each batch is one short write transaction, so play goes on meanwhile; a room
        touched in between is not deleted (the condition is checked inside the transaction)."""
        wanted = []
        if waiting_before is not None:
            wanted.append(and_(col(Room.status) == "waiting", col(Room.updated_at) < waiting_before))
        if games_before is not None:
            wanted.append(and_(col(Room.status) == "finished", col(Room.updated_at) < games_before))
        if not wanted:
            return []
        condition = or_(*wanted)
        deleted: list[str] = []
        db = self.writer.db
        while True:
            with db.read() as session:  # most sweeps find nothing: no write transaction then
                if session.exec(select(Room.id).where(condition).limit(1)).first() is None:
                    break
            with db.write() as session:
                rows = session.exec(select(Room.id, Room.code).where(condition).limit(batch)).all()
                ids = [row[0] for row in rows]
                codes = [row[1] for row in rows]
                session.execute(delete(ActionRecord).where(col(ActionRecord.room_id).in_(ids)))
                session.execute(delete(ChatMessage).where(col(ChatMessage.room_id).in_(ids)))
                session.execute(delete(ChatMute).where(col(ChatMute.room_id).in_(ids)))
                session.execute(delete(Seat).where(col(Seat.room_id).in_(ids)))
                session.execute(delete(Room).where(col(Room.id).in_(ids)))
                # A finished game offering a new one that is now gone no longer offers it.
                session.execute(
                    update(Room)
                    .where(col(Room.next_code).in_(codes))
                    .values(next_code=None, version=col(Room.version) + 1)
                )
            self.writer.forget(codes)
            deleted.extend(codes)
            if len(rows) < batch:
                break
        return deleted

    def touch(self, codes: Collection[str]) -> None:
        """Note that the rooms ``codes`` are in use (tabs are open on them) now: the sweep keeps them."""
        with self.writer.db.write() as session:
            session.execute(update(Room).where(col(Room.code).in_(codes)).values(updated_at=utcnow()))
