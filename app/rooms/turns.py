"""Decisions: a seated person's action, a bot's, and the one a bot makes when a seat's clock runs out.
Each is applied through the writer (``RoomWriter.acting``), which alone changes the game."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text
from sqlmodel import select

from app import metrics
from app.bots import Thought, safe_decision
from app.bots.search import Search, strong_action
from app.games.base import DEFAULT_STRENGTH, N_, Budget, random_bot_action, view_without_log
from app.models import Room
from app.rooms import wallclock
from app.rooms.errors import Conflict, Forbidden, RoomError, Unprocessable
from app.rooms.names import as_int
from app.rooms.snapshot import RoomSnapshot
from app.rooms.writer import RoomWriter, Turn

log = logging.getLogger(__name__)

ACTION_TYPE_MAX = 64  # characters in an action's type (engines use short words)
BOT_DECISION_TRIES = 3  # a bot decides again when the room moved while it thought


def normalised_action(action: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """What of a client's action the engine is given, and so what the log stores: its ``type`` and
    the params the seat's legal templates of that type name (of a ``counts`` param, only the keys its
    domain names). Anything else a client sends is dropped, so junk never reaches the log. An action of
    a type no template has keeps only its type (the engine refuses it with its own message)."""
    domains: dict[str, list[dict[str, Any]]] = {}
    for template in legal:
        if template.get("type") == action["type"]:
            for name, domain in (template.get("params") or {}).items():
                domains.setdefault(name, []).append(domain)
    kept: dict[str, Any] = {"type": action["type"]}
    for name, named in domains.items():
        if name not in action:
            continue
        value = action[name]
        if isinstance(value, dict) and all(domain.get("kind") == "counts" for domain in named):
            keys = {key for domain in named for key in domain.get("max") or {}}
            value = {key: count for key, count in value.items() if key in keys}
        kept[name] = value
    return kept


def bot_to_act(room: RoomSnapshot) -> int | None:
    """The first seat played by a bot that the game waits for."""
    robots = {s.seat for s in room.seats if s.played_by_bot}
    return next((number for number in room.to_act() if number in robots), None)


def _made_against(version: Any, action: Any) -> int:
    """The version a player's action names, once the action's shape is checked (before any lock)."""
    made_against = as_int(version)
    if made_against is None:
        raise RoomError(N_("The action must name the room version it was made against."))
    if (
        not isinstance(action, dict)
        or not isinstance(action.get("type"), str)
        or len(action["type"]) > ACTION_TYPE_MAX
    ):
        raise RoomError(N_("The action must be an object with a type."))
    return made_against


def _apply_players_action(
    turn: Turn, seat: int | None, made_against: int, action: dict[str, Any]
) -> RoomSnapshot:
    """Apply a person's action in its write transaction, or refuse it (changing nothing)."""
    room = turn.room
    mine = room.seat(seat)
    if seat is None or mine is None:
        raise Forbidden(N_("Only seated players can act; join the room first."))
    if room.status != "playing":
        raise Conflict(
            N_("The game has not started yet.") if room.status == "waiting" else N_("The game is over.")
        )
    if mine.bot_controlled:
        raise Conflict(N_("A bot is playing for you; take your seat back first."))
    if made_against > room.version or made_against < mine.legal_version:
        raise Conflict(N_("The table changed before your move arrived; look again and retry."))
    if not room.legal(seat):
        raise Forbidden(N_("It is not your turn."))
    return turn.apply(seat, normalised_action(action, room.legal(seat)))


class Turns:
    """Who decides next, and how each decision is applied."""

    bot_budget = Budget()  # what one bot decision may spend (the app sets it from the settings)
    strong_search: Search = staticmethod(strong_action)  # the app's: in its worker (app/bots/apart.py)

    def __init__(self, writer: RoomWriter) -> None:
        self.writer = writer

    def act(self, code: str, seat: int | None, version: Any, action: Any) -> RoomSnapshot:
        """Apply one player's action, or refuse it and change nothing."""
        with _counted_move() as move:
            made_against = _made_against(version, action)
            with self.writer.acting(code) as turn:
                after = move.after = _apply_players_action(turn, seat, made_against, action)
        return after

    def act_as(self, code: str, token: str | None, version: Any, action: Any) -> RoomSnapshot:
        """``act`` for the seat that ``token`` holds (a browser's seat cookie), found in the snapshot
        the write transaction reads anyway: a move needs no read of its own to learn its seat."""
        with _counted_move() as move:
            made_against = _made_against(version, action)
            with self.writer.acting(code) as turn:
                seat = turn.room.seat_for_token(token)
                after = move.after = _apply_players_action(turn, seat, made_against, action)
        return after

    def window_open_for_people(self, code: str) -> bool:
        """Whether a seat played by a person has an out-of-turn option marked ``window``."""
        snapshot = self.writer.load(code)
        return any(
            template.get("window")
            for seat in snapshot.seats
            if not seat.played_by_bot
            for template in snapshot.legal(seat.seat)
        )

    def playing_rooms(self) -> list[str]:
        with self.writer.db.read() as session:
            return list(session.exec(select(Room.code).where(Room.status == "playing")).all())

    def rooms_with_bots(self) -> list[str]:
        """Playing rooms with a seat a bot plays (one query; processes look for rooms to drive)."""
        with self.writer.db.read() as session:
            rows = session.execute(
                text(
                    "SELECT DISTINCT rooms.code FROM rooms JOIN seats ON seats.room_id = rooms.id "
                    "WHERE rooms.status = 'playing' AND (seats.is_bot OR seats.bot_controlled)"
                )
            ).all()
        return [row.code for row in rows]

    def bot_step(self, code: str) -> bool:
        """Let one bot seat that the game waits for act. Returns whether a bot acted.

        The bot decides before the write transaction opens: a strong bot searches for up to its
        budget, and on SQLite an open write transaction holds back every room's writes. Its move is
        applied only if the room has not moved meanwhile; otherwise it decides again on the new table
        (the same seeded decision it would have made inside the transaction)."""
        for _ in range(BOT_DECISION_TRIES):
            snapshot = self.writer.load(code)
            seat = bot_to_act(snapshot)
            if seat is None or snapshot.core is None:
                return False
            rng = random.Random(f"{snapshot.seed}/bot/{snapshot.version}/{seat}")
            action = self._bot_decision(snapshot, seat, rng)
            with self.writer.acting(code) as turn:
                room = turn.room
                if room.version != snapshot.version or room.core is None:
                    continue  # someone moved while the bot thought
                try:
                    turn.apply(seat, action)
                except Unprocessable:
                    log.exception(
                        "bot of %s in room %s chose an illegal action; playing at random", room.game, code
                    )
                    turn.apply(seat, random_bot_action(room.engine, room.core, seat, rng))
                return True
        return False  # the room kept moving: its next move asks the bots again

    def _bot_decision(self, room: RoomSnapshot, seat: int, rng: random.Random) -> dict[str, Any]:
        """What the seat's bot (or its level, for a person's seat) does, from the seat's view only."""
        assert room.core is not None
        strength = room.bot_strengths.get(seat, DEFAULT_STRENGTH)  # a person's seat: normal
        view = view_without_log(room.engine, room.core, seat)  # this seat's view, never the state
        thought = Thought()
        started = time.perf_counter()
        action = safe_decision(
            room.engine,
            view,
            seat,
            room.legal(seat),
            rng,
            strength,
            self.bot_budget,
            thought,
            search=self.strong_search,
        )
        seconds = time.perf_counter() - started
        metrics.bot_decided(strength, thought.fallback or "chosen", seconds, thought.playouts)
        return action

    def due_deadlines(self, now: int | None = None) -> list[tuple[str, int, int]]:
        """(room, seat, legal version) of each playing seat whose clock has run out (by ``now``, epoch
        ms). One indexed query: the timer asks it every tick, whatever the number of rooms."""
        with self.writer.db.read() as session:
            rows = session.execute(
                text(
                    "SELECT rooms.code, seats.seat, seats.legal_version FROM seats "
                    "JOIN rooms ON rooms.id = seats.room_id "
                    "WHERE seats.deadline IS NOT NULL AND seats.deadline <= :now AND rooms.status = 'playing' "
                    "AND rooms.clock_paused_at IS NULL "  # the host paused the table's clock
                    "AND NOT seats.bot_controlled "  # its bot moves anyway; the clock is kept for its player
                    "ORDER BY seats.deadline"
                ),
                {"now": wallclock.now_ms() if now is None else now},
            ).all()
        return [(row.code, row.seat, row.legal_version) for row in rows]

    def time_out(self, code: str, seat: int, legal_version: int, away: bool = False) -> RoomSnapshot | None:
        """The seat's clock ran out on the decision it has had since ``legal_version``: its bot makes
        that one decision, and the log says so. After ``AWAY_TIMEOUTS`` in a row an ``away`` seat is
        handed to a bot. Fires at most once per decision: nothing happens unless the seat still has
        that decision and its deadline has passed (checked again in the write transaction, whose
        version compare-and-set also holds across processes). As in ``bot_step``, the bot decides
        before the transaction opens, and again if the room moved meanwhile. The new snapshot, or
        ``None``."""
        for _ in range(BOT_DECISION_TRIES):
            snapshot = self.writer.load(code)
            if not _timed_out(snapshot, seat, legal_version):
                return None
            rng = random.Random(f"{snapshot.seed}/timeout/{snapshot.version}/{seat}")
            action = self._bot_decision(snapshot, seat, rng)  # as the seat's bot would play
            with self.writer.acting(code) as turn:
                room = turn.room
                if room.version != snapshot.version:
                    continue  # someone moved while the bot thought
                if not _timed_out(room, seat, legal_version):
                    return None  # the host paused the clock meanwhile
                assert room.core is not None
                try:
                    return turn.apply(seat, action, timed_out=True, away=away)
                except Unprocessable:
                    log.exception(
                        "bot of %s in room %s chose an illegal action; playing at random", room.game, code
                    )
                    action = random_bot_action(room.engine, room.core, seat, rng)
                    return turn.apply(seat, action, timed_out=True, away=away)
        return None  # the room kept moving: the timer asks again while the deadline stays passed


@dataclass
class _Move:
    """A person's move under way (``_counted_move``): when it reached the service, what it made."""

    started: float = field(default_factory=time.perf_counter)
    after: RoomSnapshot | None = None


@contextmanager
def _counted_move() -> Iterator[_Move]:
    """Count a person's move for /metrics once it is committed (with its time) or refused."""
    move = _Move()
    try:
        yield move
    except RoomError as refused:
        metrics.move_refused(refused.status)
        raise
    if move.after is not None:
        metrics.move_accepted(move.after.game, time.perf_counter() - move.started)


def _timed_out(room: RoomSnapshot, seat: int, legal_version: int) -> bool:
    """Whether the seat's clock has run out on the decision it has had since ``legal_version``."""
    info = room.seat(seat)
    return not (
        room.status != "playing"
        or room.core is None
        or info is None
        or info.played_by_bot
        or info.deadline is None
        or room.clock_paused_at is not None
        or info.deadline > wallclock.now_ms()
        or info.legal_version != legal_version
        or seat not in room.to_act()
    )
