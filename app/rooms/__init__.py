"""Rooms: seats, the host's powers, chat, records, and the one writer that applies actions.

``RoomService`` is a composition of one object per concern, all sharing one ``RoomWriter``
(``writer.py``), the only code that changes a room's version or applies an action, where the
writer's rules live: one writer per room (a per-room lock, and on PostgreSQL the room's row read
for update), each change committed before anyone is told, and the version compare-and-set that
also holds across processes.

- ``service.load(code)``: the room as it is now (a ``RoomSnapshot``);
- ``service.seats``: creating a room, joining, bots, removing seats, starting, bot control;
- ``service.turns``: a player's action, a bot's step, clocks that ran out;
- ``service.chat``: messages, reactions, mutes;
- ``service.clocks``: the host pausing and resuming the turn clock;
- ``service.records``: action logs, replays, "Play again" and its match score, imports;
- ``service.sweeper``: deleting rooms nobody will come back to;
- ``service.push``: the seats' Web Push subscriptions and who is due a push;
- ``service.health``: whether the database answers and takes writes.
"""

from __future__ import annotations

from app.db import Database
from app.games.base import Engine
from app.rooms.chat import CHAT_MAX, REACTIONS, Chat, ChatLine, chat_author
from app.rooms.clocks import Clocks
from app.rooms.errors import Conflict, Forbidden, NotFound, RoomError, Unprocessable
from app.rooms.health import HealthCheck
from app.rooms.names import CODE_ALPHABET, clean_name, hash_token, new_code, unique_name
from app.rooms.push import PushStore
from app.rooms.records import MatchScore, Records
from app.rooms.seats import Seats
from app.rooms.snapshot import RoomSnapshot, SeatInfo
from app.rooms.sweep import Sweeper
from app.rooms.turns import Turns, normalised_action
from app.rooms.writer import RECENT_EVENTS, TIMED_OUT, RoomWriter, dumps

__all__ = [
    "CHAT_MAX",
    "CODE_ALPHABET",
    "REACTIONS",
    "RECENT_EVENTS",
    "TIMED_OUT",
    "Chat",
    "ChatLine",
    "Clocks",
    "Conflict",
    "Forbidden",
    "HealthCheck",
    "MatchScore",
    "NotFound",
    "Records",
    "RoomError",
    "RoomService",
    "RoomSnapshot",
    "RoomWriter",
    "SeatInfo",
    "Seats",
    "Sweeper",
    "Turns",
    "Unprocessable",
    "chat_author",
    "clean_name",
    "dumps",
    "hash_token",
    "new_code",
    "normalised_action",
    "unique_name",
]


class RoomService:
    """Every room, one attribute per concern (see the module's docstring)."""

    def __init__(self, db: Database, engines: dict[str, Engine] | None = None) -> None:
        self.db = db
        self.writer = RoomWriter(db, engines)
        self.engines = self.writer.engines
        self.seats = Seats(self.writer)
        self.turns = Turns(self.writer)
        self.chat = Chat(self.writer)
        self.clocks = Clocks(self.writer)
        self.records = Records(self.writer)
        self.sweeper = Sweeper(self.writer)
        self.push = PushStore(self.writer)
        self.health = HealthCheck(db)

    def load(self, code: str) -> RoomSnapshot:
        """The room as it is now (``RoomWriter.load``): what nearly every caller reads first."""
        return self.writer.load(code)
