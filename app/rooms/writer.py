"""The one writer: the only code that changes a room's version, applies actions and appends the log.

Everything that changes a room goes through a ``RoomWriter`` context: ``editing`` for the lobby
and the host's powers, ``acting`` for a decision. Either holds the per-room lock inside a ``BEGIN
IMMEDIATE`` transaction (on PostgreSQL the room's row is read ``FOR UPDATE``, so a room's writers
queue in any process), and the version compare-and-set keeps that true across processes. A new
snapshot is remembered, and so told to anyone, only once its transaction has committed.

The action log is the truth and the stored state is a cache of it: ``rooms.state`` holds the
state *without* its game log (it stays small however long the game runs), each action row keeps the
log events that action produced, and the events of the setup sit in ``rooms.opening_events``. The
writer also keeps each recent room's parsed snapshot in memory (``HOT_ROOMS``), checked against
the database version before use, so an action does not re-read and re-parse the room.

Staleness is judged per seat: every action names the room version it was made against, and it is
refused (409) if that seat's legal actions have changed since then (``Seat.legal_version``). So in
a simultaneous phase one player's sealed bid does not invalidate another's, while a double click,
or a raise made against an outbid price, is refused.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select

from app.db import LOCK_ROWS, Database, Statement, WriteCursor
from app.games.base import N_, Engine, IllegalAction
from app.games.registry import ENGINES
from app.models import Room, Seat, utcnow
from app.rooms.errors import Conflict, NotFound, Unprocessable
from app.rooms.names import is_room_code
from app.rooms.snapshot import Event, RoomSnapshot, SeatInfo

log = logging.getLogger(__name__)

HOT_ROOMS = 2000  # parsed rooms kept in memory (each a few KiB to a few tens of KiB)
RECENT_EVENTS = 24  # game-log events a snapshot carries so pushes need no database read
AWAY_TIMEOUTS = 2  # consecutive timeouts after which an away seat is handed to a bot
TIMED_OUT = N_("{seat}'s time ran out: a bot made that decision.")
HANDED_OVER = N_("{seat} has been away for two timeouts in a row: a bot plays for them now.")

# The statements of every move, in each driver's style (``Statement``), run on the driver's cursor.
# A write's first read: the room's version, and whether any of its seats has a push subscription as the
# change is written (the push sender reads a room's subscriptions only then: most rooms have none).
_ROOM_VERSION = (
    "SELECT version, EXISTS (SELECT 1 FROM push_subscriptions p JOIN seats s ON s.id = p.seat_id "
    "WHERE s.room_id = rooms.id) FROM rooms WHERE code = :code"
)
ROOM_VERSION = Statement(_ROOM_VERSION)
# PostgreSQL: the room's writers queue on this read, in any process.
ROOM_VERSION_FOR_UPDATE = Statement(_ROOM_VERSION + " FOR UPDATE")
PEEK_ROOM_VERSION = "SELECT version FROM rooms WHERE code = ?"  # Database.peek's placeholder
ROOM_EXISTS = text("SELECT 1 FROM rooms WHERE code = :code")
INSERT_ACTION = Statement(
    "INSERT INTO actions (room_id, seq, seat, action, events, created_at) "
    "VALUES (:room, :seq, :seat, :action, :events, :now)"
)
UPDATE_SEAT = Statement(
    "UPDATE seats SET legal_version = :version, deadline = :deadline, timeouts = :timeouts, "
    "bot_turns = :bot_turns, bot_controlled = :bot_controlled WHERE room_id = :room AND seat = :seat"
)
UPDATE_ROOM = Statement(
    "UPDATE rooms SET state = :state, version = :new, status = :status, "
    "event_count = :events, updated_at = :now WHERE id = :room AND version = :old"
)


def dumps(data: Any) -> str:
    """JSON as stored: compact, and text kept as itself."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def room_id(room: Room) -> int:
    """A stored room's id (set once the room is flushed)."""
    assert room.id is not None
    return room.id


@dataclass(eq=False)
class _RoomLock:
    """A room's writer lock and how many threads hold it or wait for it."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0


@dataclass(eq=False)
class Edit:
    """A change to a room's rows (lobby, host powers) under way inside its write transaction. The
    room's version moves on when the edit ends, unless it calls ``nothing_changed``."""

    session: Session
    room: Room
    seats: list[Seat]
    moves_version: bool = True

    def nothing_changed(self) -> None:
        self.moves_version = False


class Turn:
    """One decision being applied to a room inside its write transaction: ``room`` is the snapshot
    it is made against, ``after`` the new one (remembered once the transaction has committed);
    ``subscribed``: whether a seat of the room has a push subscription, read in the same transaction."""

    def __init__(self, write: WriteCursor, room: RoomSnapshot, subscribed: bool = True) -> None:
        self.write = write
        self.room = room
        self.subscribed = subscribed
        self.after: RoomSnapshot | None = None

    def apply(
        self, seat: int, action: dict[str, Any], timed_out: bool = False, away: bool = False
    ) -> RoomSnapshot:
        """Apply, append to the log and move the version on; the new snapshot (not yet remembered).

        ``timed_out``: a bot made this decision because the seat's clock ran out (the log says so;
        an ``away`` seat that timed out ``AWAY_TIMEOUTS`` times in a row is handed to a bot). Each
        seat the game now waits for gets a deadline when its decision is new (with a clock).

        The work does not grow with the game: the state carries no log, the new events go into the
        action's own row, and each seat's legal actions are computed once per version.
        """
        after, new_events = _advanced(self.room, seat, action, timed_out, away)
        _store(self.write, self.room, after, seat, action, new_events)
        self.after = after
        return after


class RoomWriter:
    """The store of rooms: reads snapshots (kept hot in memory) and holds the one way to write."""

    def __init__(self, db: Database, engines: dict[str, Engine] | None = None) -> None:
        self.db = db
        self.engines = engines if engines is not None else ENGINES
        self._locks: dict[str, _RoomLock] = {}  # only rooms someone is writing to right now
        self._locks_guard = threading.Lock()
        self._hot: OrderedDict[str, RoomSnapshot] = OrderedDict()
        self._hot_guard = threading.Lock()
        # Told of each committed decision (with the new snapshot) and of a game starting (None), and
        # whether a seat of the room has a push subscription (True when not known), in the writer's
        # thread: it must only take note (the Web Push sender queues the room).
        self.committed: Callable[[str, RoomSnapshot | None, bool], None] | None = None

    def load(self, code: str) -> RoomSnapshot:
        """The room as it is now: the parsed snapshot in memory if the database has no newer version
        (one look at the version, no session), else read and parsed."""
        row = self.db.peek(PEEK_ROOM_VERSION, code) if is_room_code(code) else None
        if row is None:
            raise NotFound(N_("There is no room with this code."))
        hot = self._hot_at(code, row[0])
        if hot is not None:
            return hot
        with self.db.read() as session:
            snapshot = self._snapshot(session, self.room(session, code))
        self._remember(snapshot)
        return snapshot

    @contextmanager
    def editing(self, code: str) -> Iterator[Edit]:
        """Change the room's rows as one writer, then move its version on (readers look again)."""
        with self._lock(code):
            with self.db.write() as session:
                room = self.room(session, code)
                status = room.status
                edit = Edit(session, room, self.seats(session, room))
                yield edit
                if edit.moves_version:
                    room.version += 1
                    room.updated_at = utcnow()
                    session.add(room)
            if room.status != status and self.committed is not None:  # the game started
                self.committed(code, None, True)

    @contextmanager
    def acting(self, code: str) -> Iterator[Turn]:
        """Apply a decision to the room as it is now, as its one writer; the new snapshot is
        remembered (and so may be told) only once committed."""
        with self._lock(code):
            with self.db.writing() as write:
                turn = Turn(write, *self._current(write, code))
                yield turn
            if turn.after is not None:
                self._remember(turn.after)
                if self.committed is not None:
                    self.committed(code, turn.after, turn.subscribed)

    def forget(self, codes: Iterable[str]) -> None:
        """Drop deleted rooms from memory."""
        with self._hot_guard:
            for code in codes:
                self._hot.pop(code, None)

    @staticmethod
    def room(session: Session, code: str) -> Room:
        query = select(Room).where(Room.code == code)
        if session.info.get(LOCK_ROWS):
            query = query.with_for_update()  # PostgreSQL: this room's writers queue here, in any process
        room = session.exec(query).first() if is_room_code(code) else None
        if room is None:
            raise NotFound(N_("There is no room with this code."))
        return room

    @staticmethod
    def seats(session: Session, room: Room) -> list[Seat]:
        return list(session.exec(select(Seat).where(Seat.room_id == room.id).order_by(col(Seat.seat))).all())

    def _current(self, write: WriteCursor, code: str) -> tuple[RoomSnapshot, bool]:
        """The room's snapshot inside a write: the one in memory when the database holds no newer
        version (on PostgreSQL this read locks the room's row: its writers queue here); and whether
        a seat of the room has a push subscription."""
        query = ROOM_VERSION_FOR_UPDATE if write.lock_rows else ROOM_VERSION
        row = write.execute(query, {"code": code}).fetchone() if is_room_code(code) else None
        if row is None:
            raise NotFound(N_("There is no room with this code."))
        version, subscribed = row[0], bool(row[1])
        hot = self._hot_at(code, version)
        if hot is not None:
            return hot, subscribed
        with write.session() as session:
            snapshot = self._snapshot(session, self.room(session, code))
        self._remember(snapshot)
        return snapshot, subscribed

    def _hot_at(self, code: str, version: int) -> RoomSnapshot | None:
        """The snapshot in memory, if it is of ``version``."""
        with self._hot_guard:
            hot = self._hot.get(code)
            if hot is None or hot.version != version:
                return None
            self._hot.move_to_end(code)
            return hot

    def _remember(self, snapshot: RoomSnapshot) -> None:
        with self._hot_guard:
            known = self._hot.get(snapshot.code)
            if known is not None and known.version > snapshot.version:
                return
            self._hot[snapshot.code] = snapshot
            self._hot.move_to_end(snapshot.code)
            while len(self._hot) > HOT_ROOMS:
                self._hot.popitem(last=False)

    @contextmanager
    def _lock(self, code: str) -> Iterator[None]:
        """Hold the room's writer lock. Only rooms that exist get one, and it is dropped as soon as
        nobody holds or waits for it: what anyone may ask about never grows this map."""
        self._require_room(code)
        with self._locks_guard:
            entry = self._locks.get(code)
            if entry is None:
                entry = self._locks[code] = _RoomLock()
            entry.users += 1
        try:
            with entry.lock:
                yield
        finally:
            with self._locks_guard:
                entry.users -= 1
                if entry.users == 0:
                    del self._locks[code]

    def _require_room(self, code: str) -> None:
        """``NotFound`` unless the room exists (a room in memory exists; others cost one query)."""
        if not is_room_code(code):
            raise NotFound(N_("There is no room with this code."))
        with self._hot_guard:
            if code in self._hot:
                return
        with self.db.read() as session:
            found = session.execute(ROOM_EXISTS, {"code": code}).first()
        if found is None:
            raise NotFound(N_("There is no room with this code."))

    def _snapshot(self, session: Session, room: Room) -> RoomSnapshot:
        """Read a room whole (a cold load): its log's newest events, not all of them."""
        assert room.id is not None
        recent: list[Event] = []
        actions = 0
        if room.state is not None:
            rows = session.execute(
                text("SELECT seq, events FROM actions WHERE room_id = :room ORDER BY seq DESC LIMIT :n"),
                {"room": room.id, "n": RECENT_EVENTS},
            ).all()
            actions = rows[0].seq if rows else 0
            for row in rows:
                recent[:0] = json.loads(row.events)
                if len(recent) >= RECENT_EVENTS:
                    break
            if len(rows) == actions and len(recent) < RECENT_EVENTS:  # the log is short: all of it
                recent[:0] = json.loads(room.opening_events or "[]")
        seats = self.seats(session, room)
        return RoomSnapshot(
            code=room.code,
            game=room.game,
            players=room.players,
            options=json.loads(room.options),
            seed=room.seed,
            status=room.status,
            version=room.version,
            seats=[
                SeatInfo(
                    s.seat,
                    s.name,
                    s.is_bot,
                    s.bot_controlled,
                    s.is_host,
                    s.legal_version,
                    deadline=s.deadline,
                    timeouts=s.timeouts,
                    bot_turns=s.bot_turns,
                )
                for s in seats
            ],
            seat_of_token={s.token_hash: s.seat for s in seats if s.token_hash},
            bot_strengths={s.seat: s.bot_strength for s in seats if s.is_bot},
            core=json.loads(room.state) if room.state else None,
            next_code=room.next_code,
            engine=self.engines[room.game],
            room_id=room.id,
            actions=actions,
            events_total=room.event_count,
            recent_events=tuple(recent[-RECENT_EVENTS:]),
            load_events=self._events_of,
            clock=room.clock,
            full_record=room.full_record,
            imported=room.imported,
            hints=room.hints,
            clock_paused_at=room.clock_paused_at,
        )

    def _events_of(self, room_id: int, actions: int) -> list[Event]:
        """The game log up to action ``actions``: the setup's events, then each action's."""
        with self.db.read() as session:
            opening = session.execute(
                text("SELECT opening_events FROM rooms WHERE id = :room"), {"room": room_id}
            ).scalar_one()
            events: list[Event] = json.loads(opening or "[]")
            for (chunk,) in session.execute(
                text("SELECT events FROM actions WHERE room_id = :room AND seq <= :upto ORDER BY seq"),
                {"room": room_id, "upto": actions},
            ):
                events.extend(json.loads(chunk))
            return events


def _advanced(
    room: RoomSnapshot, seat: int, action: dict[str, Any], timed_out: bool, away: bool
) -> tuple[RoomSnapshot, list[Event]]:
    """The room after ``seat``'s action, and the events the action logs (nothing stored yet)."""
    assert room.core is not None
    engine = room.engine
    try:
        new_state = engine.apply(room.core, seat, action)
    except IllegalAction as refused:
        raise Unprocessable(refused.message, **refused.params) from refused
    except Exception as bug:  # an engine bug must not lose the room or answer 500
        log.exception("engine %s failed on %r", room.game, action)
        raise Unprocessable(N_("That action could not be applied.")) from bug
    new_events = new_state["events"]
    mine = room.seat(seat)
    hand_over = timed_out and away and mine is not None and mine.timeouts + 1 >= AWAY_TIMEOUTS
    if timed_out:  # platform lines: public, and they say only that the clock ran out
        new_events = [{"text": TIMED_OUT, "params": {"seat": {"seat": seat}}, "to": None}, *new_events]
        if hand_over:
            new_events.append({"text": HANDED_OVER, "params": {"seat": {"seat": seat}}, "to": None})
    new_core = {**new_state, "events": []}
    new_version = room.version + 1
    status = "finished" if engine.result(new_core) is not None else "playing"
    after = RoomSnapshot(
        code=room.code,
        game=room.game,
        players=room.players,
        options=room.options,
        seed=room.seed,
        status=status,
        version=new_version,
        seats=room.seats,
        core=new_core,
        next_code=room.next_code,
        engine=engine,
        room_id=room.room_id,
        actions=room.actions + 1,
        events_total=room.events_total + len(new_events),
        recent_events=(*room.recent_events, *new_events)[-RECENT_EVENTS:],
        load_events=room.load_events,
        seat_of_token=room.seat_of_token,
        bot_strengths=room.bot_strengths,
        clock=room.clock,
        full_record=room.full_record,
        imported=room.imported,
        hints=room.hints,
        clock_paused_at=room.clock_paused_at,
    )
    changed = [
        other.seat
        for other in room.seats
        if other.seat == seat or room.legal(other.seat) != after.legal(other.seat)
    ]
    waited_for = set(after.to_act())
    now = room.clock_now
    seats = []
    for s in room.seats:
        new = replace(s, legal_version=new_version) if s.seat in changed else s
        if s.seat == seat and not s.is_bot:
            by_bot = timed_out or s.bot_controlled
            new = replace(
                new,
                timeouts=s.timeouts + 1 if timed_out and not hand_over else 0,
                bot_turns=s.bot_turns + by_bot,
                bot_controlled=s.bot_controlled or hand_over,
            )
        if not room.clock or new.is_bot or new.seat not in waited_for:
            deadline = None
        elif new.deadline is None or new.seat in changed:
            # A new decision: a fresh clock, unless a bot plays the seat for now.
            deadline = None if new.bot_controlled else now + room.clock * 1000
        else:
            # Still the same decision (another seat moved). Kept while a bot plays the seat, so a
            # player who takes it back resumes their clock rather than starting a fresh one.
            deadline = new.deadline
        if deadline != new.deadline:
            new = replace(new, deadline=deadline)
        seats.append(new)
    after.seats = seats
    return after, new_events


def _store(
    write: WriteCursor,
    room: RoomSnapshot,
    after: RoomSnapshot,
    seat: int,
    action: dict[str, Any],
    new_events: list[Event],
) -> None:
    """Write one applied action: its log row, the seats it changed, and the room's new state, on
    the condition that the room is still at the version the action was applied to."""
    rewritten = [new for old, new in zip(room.seats, after.seats, strict=True) if new is not old]
    now = write.timestamp(utcnow())
    write.execute(
        INSERT_ACTION,
        {
            "room": room.room_id,
            "seq": after.actions,
            "seat": seat,
            "action": dumps(action),
            "events": dumps(new_events),
            "now": now,
        },
    )
    write.executemany(
        UPDATE_SEAT,
        [
            {
                "version": s.legal_version,
                "deadline": s.deadline,
                "timeouts": s.timeouts,
                "bot_turns": s.bot_turns,
                "bot_controlled": s.bot_controlled,
                "room": room.room_id,
                "seat": s.seat,
            }
            for s in rewritten
        ],
    )
    updated = write.execute(
        UPDATE_ROOM,
        {
            "state": dumps(after.core),
            "new": after.version,
            "status": after.status,
            "events": after.events_total,
            "now": now,
            "room": room.room_id,
            "old": room.version,
        },
    )
    if updated.rowcount != 1:
        raise Conflict(N_("The table changed before your move arrived; look again and retry."))
