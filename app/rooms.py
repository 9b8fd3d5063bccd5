"""Rooms: seats, the host's powers, and the one writer that applies actions.

Everything that changes a room goes through ``RoomService``. An action is applied under a
per-room lock, inside a ``BEGIN IMMEDIATE`` transaction, and committed together with its log
entry and the new state snapshot; the version compare-and-set keeps that true across processes.

The action log is the truth and the stored state is a cache of it: ``rooms.state`` holds the
state *without* its game log (it stays small however long the game runs), each action row keeps the
log events that action produced, and the events of the setup sit in ``rooms.opening_events``. The
service also keeps each recent room's parsed snapshot in memory (``HOT_ROOMS``), checked against
the database version before use, so an action does not re-read and re-parse the room.

Staleness is judged per seat: every action names the room version it was made against, and it is
refused (409) if that seat's legal actions have changed since then (``Seat.legal_version``). So in
a simultaneous phase one player's sealed bid does not invalidate another's, while a double click,
or a raise made against an outbid price, is refused.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import secrets
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from typing import Any

from sqlalchemy import and_, delete, func, or_, text, update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from app.bots import safe_decision
from app.db import LOCK_ROWS, Database
from app.games.base import (
    DEFAULT_STRENGTH,
    N_,
    STRENGTHS,
    Budget,
    Engine,
    IllegalAction,
    Result,
    State,
    random_bot_action,
)
from app.games.registry import ENGINES
from app.models import ActionRecord, ChatMessage, ChatMute, Health, Room, Seat, utcnow

log = logging.getLogger(__name__)

CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i look-alikes
CODE_LENGTH = 13  # 13 * log2(31) ≈ 64 bits
ROOM_CODE = re.compile(f"[0-9a-z]{{{CODE_LENGTH}}}")
NAME_MAX = 24
# Characters a name may not hold: control (Cc), format (Cf: zero-width, bidi overrides), surrogate,
# private-use and unassigned; and letters that draw as blanks (Hangul fillers, the braille blank).
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
ACTION_TYPE_MAX = 64  # characters in an action's type (engines use short words)
BOT_NAMES = ("Ada", "Bernoulli", "Cantor", "Dedekind", "Euler", "Fermat", "Gauss", "Hilbert")
HOT_ROOMS = 2000  # parsed rooms kept in memory (each a few KiB to a few tens of KiB)
HEALTH_EVERY = 1.0  # seconds: /healthz commits a write at most this often
WRITE_FAILURE_MEMORY = 30.0  # seconds /healthz reports a failed write
SWEEP_BATCH = 500  # rooms deleted per write transaction by the cleanup sweep
RECENT_EVENTS = 24  # game-log events a snapshot carries so pushes need no database read
CLOCK_MAX = 7 * 86400  # seconds: the longest clock a room may have
AWAY_TIMEOUTS = 2  # consecutive timeouts after which an away seat is handed to a bot
CHAT_MAX = 280  # characters in a chat message
CHAT_KEPT = 100  # chat messages a room page shows (the newest)
REACTIONS = ("👍", "👏", "😄", "😮", "🤝", "⏳")  # the quick reactions, stored as themselves
# Characters a chat message may not hold: controls and the bidi overrides that turn text around.
CHAT_HIDDEN = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
TIMED_OUT = N_("{seat}'s time ran out: a bot made that decision.")
HANDED_OVER = N_("{seat} has been away for two timeouts in a row: a bot plays for them now.")

Event = dict[str, Any]


class RoomError(Exception):
    """A refusal with an HTTP status and a translatable message for the player."""

    status = 400

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message.format(**params) if params else message)
        self.message = message
        self.params = params


class NotFound(RoomError):
    status = 404


class Forbidden(RoomError):
    status = 403


class Conflict(RoomError):
    status = 409


class Unprocessable(RoomError):
    status = 422


@dataclass(eq=False)
class _RoomLock:
    """A room's writer lock and how many threads hold it or wait for it."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0


@dataclass
class SeatInfo:
    seat: int
    name: str
    is_bot: bool
    bot_controlled: bool
    is_host: bool
    legal_version: int
    deadline: int | None = None  # with a clock: when its decision times out (epoch ms)
    timeouts: int = 0  # consecutive timeouts
    bot_turns: int = 0  # decisions a bot made for this person

    @property
    def played_by_bot(self) -> bool:
        return self.is_bot or self.bot_controlled


@dataclass(frozen=True)
class MatchScore:
    """Wins per seat over the games a group played one after another (``RoomService.match_score``)."""

    games: int
    wins: tuple[int, ...]

    def adding(self, winners: list[int]) -> MatchScore:
        wins = tuple(won + (seat in winners) for seat, won in enumerate(self.wins))
        return MatchScore(self.games + 1, wins)


@dataclass(eq=False)
class RoomSnapshot:
    """A consistent read of one room at one version: what routes render and answer with.

    ``core`` is the game state without its game log (``events`` empty): everything rules, views
    and bots need. The log is ``recent_events`` (the newest events, numbered from
    ``events_total - len(recent_events)``) and, read from the database on first use, ``events``.
    Snapshots are shared between threads and never changed after they are made.
    """

    code: str
    game: str
    players: int
    options: dict[str, Any]
    seed: str
    status: str
    version: int
    seats: list[SeatInfo]
    core: State | None
    next_code: str | None
    engine: Engine = field(repr=False)
    room_id: int = 0
    actions: int = 0  # rows in the action log
    events_total: int = 0
    recent_events: tuple[Event, ...] = ()
    load_events: Callable[[int, int], list[Event]] | None = field(default=None, repr=False)  # (room, upto)
    seat_of_token: dict[str, int] = field(default_factory=dict, repr=False)  # by token hash
    bot_strengths: dict[int, str] = field(default_factory=dict, repr=False)  # bot seats: easy | normal
    clock: int = 0  # seconds per decision (0: no clock)
    _legal: dict[int, list[dict[str, Any]]] = field(default_factory=dict, repr=False)

    @property
    def events(self) -> list[Event]:
        """The whole game log, read from the database (not kept: a long log is most of a room's size)."""
        if self.core is None or self.load_events is None:
            return []
        return self.load_events(self.room_id, self.actions)

    @property
    def state(self) -> State | None:
        """The full state, game log included, as the engine left it."""
        return None if self.core is None else {**self.core, "events": self.events}

    def events_since(self, seen: int) -> list[Event] | None:
        """The events after the first ``seen``, if this snapshot still carries them all."""
        first = self.events_total - len(self.recent_events)
        if seen < first:
            return None
        return list(self.recent_events[seen - first :])

    def legal(self, seat: int | None) -> list[dict[str, Any]]:
        """``seat``'s legal actions (computed once per snapshot; empty unless playing)."""
        if seat is None or self.core is None or self.status != "playing":
            return []
        if seat not in self._legal:
            self._legal[seat] = self.engine.legal_actions(self.core, seat)
        return self._legal[seat]

    def seat(self, number: int | None) -> SeatInfo | None:
        if number is None:
            return None
        return next((s for s in self.seats if s.seat == number), None)

    def name_of(self, number: int) -> str:
        info = self.seat(number)
        return info.name if info else f"#{number + 1}"

    @cached_property
    def result(self) -> Result | None:
        return self.engine.result(self.core) if self.core is not None else None

    def to_act(self) -> list[int]:
        if self.core is None or self.status != "playing":
            return []
        return self.engine.to_act(self.core)


@dataclass(frozen=True)
class ChatLine:
    """One chat message as every reader sees it (``name`` empty: an unnamed spectator)."""

    id: int
    seat: int | None  # None: a spectator's
    name: str
    text: str
    reaction: bool

    @property
    def spectator(self) -> bool:
        return self.seat is None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seat": self.seat,
            "name": self.name,
            "spectator": self.spectator,
            "text": self.text,
            "reaction": self.reaction,
        }


def now_ms() -> int:
    """The wall clock in epoch milliseconds: what deadlines are (a restart must not move them)."""
    return int(time.time() * 1000)


def clean_chat(raw: Any) -> str:
    """A chat message as stored: runs of white space one space, without control characters or the
    marks that turn text around; refused if empty or too long (it is escaped when drawn)."""
    if not isinstance(raw, str):
        raise RoomError(N_("Please write a message."))
    message = " ".join(
        "".join(c for c in raw if unicodedata.category(c) != "Cc" and c not in CHAT_HIDDEN).split()
    )
    if not message:
        raise RoomError(N_("Please write a message."))
    if len(message) > CHAT_MAX:
        raise RoomError(N_("A message can have at most {max} characters."), max=CHAT_MAX)
    return message


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _free_code(session: Session) -> str:
    """A room code no room has yet."""
    code = new_code()
    while session.exec(select(Room).where(Room.code == code)).first():
        code = new_code()
    return code


def is_room_code(code: Any) -> bool:
    """Whether ``code`` has a room code's shape: 13 lowercase ASCII letters or digits (``new_code``
    draws from a smaller alphabet). Anything else is no room, known without asking the database."""
    return isinstance(code, str) and ROOM_CODE.fullmatch(code) is not None


def clean_name(raw: Any) -> str:
    """A display name as stored: NFKC-normalised (full-width letters, ligatures and the like become
    their plain forms), runs of white space one space; refused if empty, too long, or holding a
    character that shows nothing or something else (control, format such as zero-width or
    right-to-left marks, private-use, unassigned, or a blank that is not white space)."""
    if not isinstance(raw, str):
        raise RoomError(N_("Please give a name."))
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    if not name:
        raise RoomError(N_("Please give a name."))
    if any(unicodedata.category(c) in HIDDEN_CATEGORIES or c in BLANKS for c in name):
        raise RoomError(N_("A name cannot contain invisible or control characters."))
    if len(name) > NAME_MAX:
        raise RoomError(N_("A name can have at most {max} characters."), max=NAME_MAX)
    return name


def name_key(name: str) -> str:
    """What two names are compared by: "Ann", "ann" and "Ａｎｎ" are one name."""
    return unicodedata.normalize("NFKC", name).casefold()


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


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name (2)``... if a seat already has that name (compared by ``name_key``)."""
    keys = {name_key(other) for other in taken}
    if name_key(name) not in keys:
        return name
    suffix = 2
    while name_key(f"{name} ({suffix})") in keys:
        suffix += 1
    return f"{name} ({suffix})"


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class RoomService:
    bot_budget = Budget()  # what one bot decision may spend (the app sets it from the settings)

    def __init__(self, db: Database, engines: dict[str, Engine] | None = None) -> None:
        self.db = db
        self.engines = engines if engines is not None else ENGINES
        self._locks: dict[str, _RoomLock] = {}  # only rooms someone is writing to right now
        self._locks_guard = threading.Lock()
        self._hot: OrderedDict[str, RoomSnapshot] = OrderedDict()
        self._hot_guard = threading.Lock()
        self._previous: OrderedDict[str, str | None] = OrderedDict()  # room -> the room played again
        self._scores: OrderedDict[str, MatchScore] = OrderedDict()  # finished room -> its chain's score
        self._written_at = -HEALTH_EVERY  # when the health check last committed its write
        self._write_failed_at = -WRITE_FAILURE_MEMORY  # when a write last failed

    # ----------------------------------------------------------------- reading
    def load(self, code: str) -> RoomSnapshot:
        """The room as it is now: the parsed snapshot in memory if the database has no newer version."""
        with self.db.read() as session:
            return self._current(session, code)

    def ping(self) -> None:
        """Touch the database (health check)."""
        with self.db.read() as session:
            session.exec(select(func.count()).select_from(Room)).one()

    def write_failed(self) -> None:
        """Note that a write just failed in the database (the web layer calls this on its errors)."""
        self._write_failed_at = time.monotonic()

    def writable(self) -> bool:
        """Whether the database takes writes: no write failed in the last ``WRITE_FAILURE_MEMORY``
        seconds (a nearly full disk may still take a tiny write but not a room), and a tiny write
        (the health row's time, committed at most once a second) succeeds now."""
        now = time.monotonic()
        if now - self._write_failed_at < WRITE_FAILURE_MEMORY:
            return False
        try:
            self._probe_write(now)
        except OperationalError as failure:
            log.error("health check: the database cannot be written: %s", failure.orig)
            self.write_failed()
            return False
        return True

    def _probe_write(self, now: float) -> None:
        if now - self._written_at < HEALTH_EVERY:
            return
        with self.db.write() as session:
            session.execute(update(Health).where(col(Health.id) == 1).values(checked_at=utcnow()))
        self._written_at = now

    def playing_rooms(self) -> list[str]:
        with self.db.read() as session:
            return list(session.exec(select(Room.code).where(Room.status == "playing")).all())

    def rooms_with_bots(self) -> list[str]:
        """Playing rooms with a seat a bot plays (one query; processes look for rooms to drive)."""
        with self.db.read() as session:
            rows = session.execute(
                text(
                    "SELECT DISTINCT rooms.code FROM rooms JOIN seats ON seats.room_id = rooms.id "
                    "WHERE rooms.status = 'playing' AND (seats.is_bot OR seats.bot_controlled)"
                )
            ).all()
        return [row.code for row in rows]

    def seat_for_token(self, code: str, token: str | None) -> int | None:
        """The seat ``token`` holds in the room (``NotFound`` for an unknown room)."""
        room = self.load(code)
        return room.seat_of_token.get(hash_token(token)) if token else None

    def action_log(self, code: str) -> list[tuple[int, dict[str, Any]]]:
        return self.action_log_with_events(code)[0]

    def action_log_with_events(self, code: str) -> tuple[list[tuple[int, dict[str, Any]]], list[list[Event]]]:
        """The action log and, beside it, the events each action logged (the platform's lines included)."""
        with self.db.read() as session:
            room = self._room(session, code)
            rows = session.exec(
                select(ActionRecord).where(ActionRecord.room_id == room.id).order_by(col(ActionRecord.seq))
            ).all()
            return [(row.seat, json.loads(row.action)) for row in rows], [
                json.loads(row.events) for row in rows
            ]

    def replay(self, code: str) -> State | None:
        """Rebuild the state from the seed and the action log (it must equal the snapshot's)."""
        snapshot = self.load(code)
        if snapshot.status == "waiting":
            return None
        return replay_actions(
            snapshot.engine, snapshot.players, snapshot.options, snapshot.seed, self.action_log(code)
        )

    # ----------------------------------------------------------------- lobby
    def create_room(
        self, game: str, players: Any, options: Any, host_name: Any, clock: Any = 0
    ) -> tuple[str, int | None, str | None]:
        """Create a room; the creator (if named) takes seat 0 and is host. Returns code, seat, token.
        ``clock``: the seconds each decision may take (0: no clock)."""
        engine = self.engines.get(game) if isinstance(game, str) else None
        if engine is None:
            raise RoomError(N_("Unknown game."))
        count = _as_int(players)
        info = engine.info
        if count is None or not info.min_players <= count <= info.max_players:
            raise RoomError(
                N_("This game takes {min} to {max} players."), min=info.min_players, max=info.max_players
            )
        chosen = _clean_options(engine, options)
        seconds = _as_int(clock)
        if seconds is None or not 0 <= seconds <= CLOCK_MAX:
            raise RoomError(N_("A turn clock is a number of seconds, up to a week."))
        name = clean_name(host_name) if host_name is not None else None
        token = secrets.token_urlsafe(24) if name is not None else None
        with self.db.write() as session:
            code = _free_code(session)
            room = Room(
                code=code,
                game=game,
                players=count,
                options=dumps(chosen),
                seed=str(secrets.randbits(62)),
                clock=seconds,
            )
            session.add(room)
            session.flush()
            if name is not None and token is not None:
                session.add(
                    Seat(room_id=_id(room), seat=0, name=name, token_hash=hash_token(token), is_host=True)
                )
        return code, (0 if name is not None else None), token

    def join(self, code: str, raw_name: Any) -> tuple[int, str]:
        name = clean_name(raw_name)
        token = secrets.token_urlsafe(24)
        with self._lock(code), self.db.write() as session:
            room = self._room(session, code)
            seats = self._seats(session, room)
            if room.status != "waiting":
                raise Conflict(N_("This game has already started; you can watch it."))
            if len(seats) >= room.players:
                raise Conflict(N_("This room is full; you can watch the game."))
            seat = Seat(
                room_id=_id(room),
                seat=len(seats),
                name=unique_name(name, {s.name for s in seats}),
                token_hash=hash_token(token),
                is_host=not any(s.is_host for s in seats),
            )
            session.add(seat)
            self._bump(session, room)
            return seat.seat, token

    def add_bot(
        self, code: str, actor: int | None, fill: bool = False, strength: Any = DEFAULT_STRENGTH
    ) -> list[int]:
        """Seat a bot of this strength (``easy`` or ``normal``) at the next free seat, or at every one."""
        if strength not in STRENGTHS:
            raise RoomError(N_("A bot plays easy or normal."))
        with self._lock(code), self.db.write() as session:
            room = self._room(session, code)
            seats = self._seats(session, room)
            self._require_host(seats, actor)
            if room.status != "waiting":
                raise Conflict(N_("Bots can only be added before the game starts."))
            free = room.players - len(seats)
            if free <= 0:
                raise Conflict(N_("Every seat is taken."))
            added = []
            taken = {s.name for s in seats}
            for number in range(len(seats), len(seats) + (free if fill else 1)):
                name = unique_name(f"Bot {BOT_NAMES[number % len(BOT_NAMES)]}", taken)
                taken.add(name)
                session.add(
                    Seat(room_id=_id(room), seat=number, name=name, is_bot=True, bot_strength=strength)
                )
                added.append(number)
            self._bump(session, room)
            return added

    def remove_seat(self, code: str, actor: int | None, target: Any) -> None:
        with self._lock(code), self.db.write() as session:
            room = self._room(session, code)
            seats = self._seats(session, room)
            self._require_host(seats, actor)
            number = _as_int(target)
            victim = next((s for s in seats if s.seat == number), None)
            if room.status != "waiting":
                raise Conflict(N_("Players can only be removed before the game starts."))
            if victim is None:
                raise RoomError(N_("There is no such seat."))
            if victim.is_host:
                raise RoomError(N_("The host cannot remove themselves."))
            session.delete(victim)
            session.flush()
            for later in sorted((s for s in seats if s.seat > victim.seat), key=lambda s: s.seat):
                later.seat -= 1
                session.add(later)
                session.flush()
            self._bump(session, room)

    def start(self, code: str, actor: int | None) -> None:
        with self._lock(code), self.db.write() as session:
            room = self._room(session, code)
            seats = self._seats(session, room)
            self._require_host(seats, actor)
            if room.status != "waiting":
                raise Conflict(N_("The game has already started."))
            if len(seats) != room.players:
                raise Conflict(
                    N_("Every seat must be taken first ({taken} of {players})."),
                    taken=len(seats),
                    players=room.players,
                )
            engine = self.engines[room.game]
            state = engine.setup(room.players, json.loads(room.options), int(room.seed))
            room.status = "finished" if engine.result(state) else "playing"
            if room.clock and room.status == "playing":
                waited_for = set(engine.to_act(state))
                for seat in seats:
                    if seat.seat in waited_for and not seat.is_bot:
                        seat.deadline = now_ms() + room.clock * 1000
                        session.add(seat)
            room.state = dumps({**state, "events": []})
            room.opening_events = dumps(state["events"])
            room.event_count = len(state["events"])
            self._bump(session, room)

    def set_bot_control(
        self, code: str, actor: int | None, target: Any, bot: bool, away: AbstractSet[int] | None = None
    ) -> None:
        """Host hands a seat to a bot (bot=True); the seat's own player takes it back (bot=False),
        from any device their personal link opened. ``away``: the seats away long enough to be
        handed over (the live layer knows who is connected); ``None`` when nobody knows (tests). The
        host may always hand their own seat to a bot."""
        with self._lock(code), self.db.write() as session:
            room = self._room(session, code)
            seats = self._seats(session, room)
            number = _as_int(target)
            seat = next((s for s in seats if s.seat == number), None)
            if seat is None or seat.is_bot:
                raise RoomError(N_("There is no such player."))
            if bot:
                self._require_host(seats, actor)
            elif actor != seat.seat:
                raise Forbidden(N_("Only that player can take their seat back."))
            if room.status != "playing":
                raise Conflict(N_("The game is not running."))
            if seat.bot_controlled == bot:
                return  # already so: nothing changes, so the version does not move either
            if bot and away is not None and seat.seat not in away and seat.seat != actor:
                raise Conflict(
                    N_(
                        "{player} is still connected or left only moments ago; a bot can take over "
                        "once they are shown as away."
                    ),
                    player=seat.name,
                )
            seat.bot_controlled = bot
            seat.timeouts = 0
            seat.deadline = None
            if not bot and room.clock and room.state is not None:
                waited_for = self.engines[room.game].to_act(json.loads(room.state))
                if seat.seat in waited_for:
                    seat.deadline = now_ms() + room.clock * 1000  # a fresh clock for the decision
            session.add(seat)
            self._bump(session, room)

    def play_again(self, code: str, actor: int | None, token: str | None = None) -> tuple[str, str]:
        """A new room with the same game and options and the same people in the same seats: each seat
        keeps its name, its bot, and its token, so a person's cookie and personal link open their seat
        in the new room too. Returns the new code and the host's token: ``token`` if it is the host's
        own, else a new one for the host's seat (an API host is answered with it)."""
        with self._lock(code), self.db.write() as session:
            room = self._room(session, code)
            seats = self._seats(session, room)
            host = self._require_host(seats, actor)
            if host is None:
                raise Forbidden(N_("Only the host can do that."))
            if room.status != "finished":
                raise Conflict(N_("The game is not over yet."))
            if room.next_code:
                raise Conflict(N_("A new game has already been set up."))
            if token is None or hash_token(token) != host.token_hash:
                token = secrets.token_urlsafe(24)
            fresh = Room(
                code=_free_code(session),
                game=room.game,
                players=room.players,
                options=room.options,
                seed=str(secrets.randbits(62)),
                clock=room.clock,
            )
            session.add(fresh)
            session.flush()
            for seat in seats:
                session.add(
                    Seat(
                        room_id=_id(fresh),
                        seat=seat.seat,
                        name=seat.name,
                        token_hash=hash_token(token) if seat.is_host else seat.token_hash,
                        is_bot=seat.is_bot,
                        bot_strength=seat.bot_strength,
                        is_host=seat.is_host,
                    )
                )
            room.next_code = fresh.code
            self._bump(session, room)
            self._previous[fresh.code] = code
            return fresh.code, token

    def match_score(self, snapshot: RoomSnapshot) -> MatchScore | None:
        """The running score of the games this room's group played one after another ("Play again"):
        wins per seat (a shared win counts for each winner), this room's game included once it is over.
        ``None`` for a room no other room led to. A room's predecessor and each finished room's tally
        are read once (neither ever changes): after that, this costs no database read, so a publish
        may ask it for every version."""
        previous = self._previous_of(snapshot.code)
        if previous is None:
            return None
        before = self._score_upto(previous, snapshot.players)
        if snapshot.status != "finished" or snapshot.result is None:
            return before
        return before.adding(snapshot.result.winners)

    def _score_upto(self, code: str, players: int) -> MatchScore:
        """The score of the chain ending with finished room ``code``."""
        with self._hot_guard:
            known = self._scores.get(code)
        if known is not None:
            return known
        with self.db.read() as session:
            row = session.execute(
                text("SELECT game, players, status, state FROM rooms WHERE code = :code"), {"code": code}
            ).first()
        if row is None:  # swept away: the chain starts after it
            return MatchScore(0, (0,) * players)
        previous = self._previous_of(code)
        score = self._score_upto(previous, players) if previous is not None else MatchScore(0, (0,) * players)
        engine = self.engines.get(row.game)
        result = engine.result(json.loads(row.state)) if engine and row.status == "finished" else None
        if result is not None:
            score = score.adding(result.winners)
        with self._hot_guard:
            self._scores[code] = score
            while len(self._scores) > HOT_ROOMS:
                self._scores.popitem(last=False)
        return score

    def _previous_of(self, code: str) -> str | None:
        """The room whose "Play again" made this one (fixed when the room is made)."""
        with self._hot_guard:
            if code in self._previous:
                return self._previous[code]
        with self.db.read() as session:
            previous = session.execute(
                text("SELECT code FROM rooms WHERE next_code = :code"), {"code": code}
            ).scalar()
        with self._hot_guard:
            self._previous[code] = previous
            while len(self._previous) > HOT_ROOMS:
                self._previous.popitem(last=False)
        return previous

    def import_finished(
        self,
        game: str,
        options: dict[str, Any],
        seed: str,
        seats: list[tuple[str, bool]],
        opening_events: list[Event],
        log: list[tuple[int, dict[str, Any], list[Event]]],
        final: State,
    ) -> str:
        """Store a game replayed from a record (``app.replay.parse_record`` checked it) as a new
        finished room with no host and no seat tokens: it can be watched and replayed. Returns its code."""
        engine = self.engines[game]
        status = "finished" if engine.result(final) is not None else "playing"
        assert status == "finished", "only whole games are imported"
        with self.db.write() as session:
            code = _free_code(session)
            room = Room(
                code=code,
                game=game,
                players=len(seats),
                options=dumps(options),
                seed=seed,
                status=status,
                state=dumps({**final, "events": []}),
                opening_events=dumps(opening_events),
                event_count=len(opening_events) + sum(len(events) for _, _, events in log),
                version=1 + len(log),
            )
            session.add(room)
            session.flush()
            for number, (name, bot) in enumerate(seats):
                session.add(Seat(room_id=_id(room), seat=number, name=name, is_bot=bot))
            now = utcnow()
            if log:
                session.execute(
                    text(
                        "INSERT INTO actions (room_id, seq, seat, action, events, created_at) "
                        "VALUES (:room, :seq, :seat, :action, :events, :now)"
                    ),
                    [
                        {
                            "room": _id(room),
                            "seq": seq,
                            "seat": seat,
                            "action": dumps(action),
                            "events": dumps(events),
                            "now": now,
                        }
                        for seq, (seat, action, events) in enumerate(log, start=1)
                    ],
                )
        with self._hot_guard:
            self._previous[code] = None
        return code

    # ----------------------------------------------------------------- acting
    def act(self, code: str, seat: int | None, version: Any, action: Any) -> RoomSnapshot:
        """Apply one player's action, or refuse it and change nothing."""
        made_against = _as_int(version)
        if made_against is None:
            raise RoomError(N_("The action must name the room version it was made against."))
        if (
            not isinstance(action, dict)
            or not isinstance(action.get("type"), str)
            or len(action["type"]) > ACTION_TYPE_MAX
        ):
            raise RoomError(N_("The action must be an object with a type."))
        with self._lock(code):
            with self.db.write() as session:
                room = self._current(session, code)
                mine = room.seat(seat)
                if seat is None or mine is None:
                    raise Forbidden(N_("Only seated players can act; join the room first."))
                if room.status != "playing":
                    raise Conflict(
                        N_("The game has not started yet.")
                        if room.status == "waiting"
                        else N_("The game is over.")
                    )
                if mine.bot_controlled:
                    raise Conflict(N_("A bot is playing for you; take your seat back first."))
                if made_against > room.version or made_against < mine.legal_version:
                    raise Conflict(N_("The table changed before your move arrived; look again and retry."))
                if not room.legal(seat):
                    raise Forbidden(N_("It is not your turn."))
                after = self._apply(session, room, seat, normalised_action(action, room.legal(seat)))
            self._remember(after)  # only once committed
            return after

    def window_open_for_people(self, code: str) -> bool:
        """Whether a seat played by a person has an out-of-turn option marked ``window``."""
        snapshot = self.load(code)
        return any(
            template.get("window")
            for seat in snapshot.seats
            if not seat.played_by_bot
            for template in snapshot.legal(seat.seat)
        )

    def bot_step(self, code: str) -> bool:
        """Let one bot seat that the game waits for act. Returns whether a bot acted."""
        if self._bot_to_act(self.load(code)) is None:
            return False  # known without taking the write lock
        with self._lock(code):
            with self.db.write() as session:
                room = self._current(session, code)
                seat = self._bot_to_act(room)
                if seat is None or room.core is None:
                    return False
                rng = random.Random(f"{room.seed}/bot/{room.version}/{seat}")
                strength = room.bot_strengths.get(seat, DEFAULT_STRENGTH)  # a person's seat: normal
                view = room.engine.view(room.core, seat)  # the bot gets this seat's view, never the state
                action = safe_decision(
                    room.engine, view, seat, room.legal(seat), rng, strength, self.bot_budget
                )
                try:
                    after = self._apply(session, room, seat, action)
                except Unprocessable:
                    log.exception(
                        "bot of %s in room %s chose an illegal action; playing at random", room.game, code
                    )
                    action = random_bot_action(room.engine, room.core, seat, rng)
                    after = self._apply(session, room, seat, action)
            self._remember(after)
            return True

    # ----------------------------------------------------------------- clocks
    def due_deadlines(self, now: int | None = None) -> list[tuple[str, int, int]]:
        """(room, seat, legal version) of each playing seat whose clock has run out (by ``now``, epoch
        ms). One indexed query: the timer asks it every tick, whatever the number of rooms."""
        with self.db.read() as session:
            rows = session.execute(
                text(
                    "SELECT rooms.code, seats.seat, seats.legal_version FROM seats "
                    "JOIN rooms ON rooms.id = seats.room_id "
                    "WHERE seats.deadline IS NOT NULL AND seats.deadline <= :now AND rooms.status = 'playing' "
                    "ORDER BY seats.deadline"
                ),
                {"now": now_ms() if now is None else now},
            ).all()
        return [(row.code, row.seat, row.legal_version) for row in rows]

    def time_out(self, code: str, seat: int, legal_version: int, away: bool = False) -> RoomSnapshot | None:
        """The seat's clock ran out on the decision it has had since ``legal_version``: its bot makes
        that one decision, and the log says so. After ``AWAY_TIMEOUTS`` in a row an ``away`` seat is
        handed to a bot. Fires at most once per decision: nothing happens unless the seat still has
        that decision and its deadline has passed (checked in the write transaction, whose version
        compare-and-set also holds across processes). The new snapshot, or ``None``."""
        with self._lock(code):
            with self.db.write() as session:
                room = self._current(session, code)
                info = room.seat(seat)
                if (
                    room.status != "playing"
                    or room.core is None
                    or info is None
                    or info.played_by_bot
                    or info.deadline is None
                    or info.deadline > now_ms()
                    or info.legal_version != legal_version
                    or seat not in room.to_act()
                ):
                    return None
                rng = random.Random(f"{room.seed}/timeout/{room.version}/{seat}")
                strength = room.bot_strengths.get(seat, DEFAULT_STRENGTH)  # as the seat's bot would play
                view = room.engine.view(room.core, seat)  # the bot gets this seat's view, never the state
                try:
                    action = safe_decision(
                        room.engine, view, seat, room.legal(seat), rng, strength, self.bot_budget
                    )
                    after = self._apply(session, room, seat, action, timed_out=True, away=away)
                except Unprocessable:
                    log.exception(
                        "bot of %s in room %s chose an illegal action; playing at random", room.game, code
                    )
                    action = random_bot_action(room.engine, room.core, seat, rng)
                    after = self._apply(session, room, seat, action, timed_out=True, away=away)
            self._remember(after)
            return after

    # ----------------------------------------------------------------- chat
    def post_chat(
        self, code: str, seat: int | None, author: str, raw: Any, name: Any = None, reaction: bool = False
    ) -> ChatLine:
        """Keep one chat message (or quick reaction) of ``author`` (a seat's token hash, or a
        spectator's key); refused if the host muted them."""
        if reaction:
            if raw not in REACTIONS:
                raise RoomError(N_("There is no such reaction."))
            message = str(raw)
        else:
            message = clean_chat(raw)
        spectator_name = "" if seat is not None or not name else clean_name(name)
        with self.db.write() as session:
            room = self._room(session, code)
            muted = session.exec(
                select(ChatMute.id).where(ChatMute.room_id == room.id, ChatMute.author == author)
            ).first()
            if muted is not None:
                raise Forbidden(N_("The host has muted you at this table."))
            shown = spectator_name
            if seat is not None:
                row = session.exec(select(Seat).where(Seat.room_id == room.id, Seat.seat == seat)).first()
                if row is None:
                    raise Forbidden(N_("Only seated players and spectators can chat."))
                shown = row.name
            line = ChatMessage(
                room_id=_id(room), seat=seat, author=author, name=shown, text=message, reaction=reaction
            )
            session.add(line)
            session.flush()
            assert line.id is not None
            return ChatLine(line.id, seat, shown, message, reaction)

    def chat_lines(self, code: str, limit: int = CHAT_KEPT) -> list[ChatLine]:
        """The room's newest chat messages, oldest first."""
        with self.db.read() as session:
            room = self._room(session, code)
            rows = session.exec(
                select(ChatMessage)
                .where(ChatMessage.room_id == room.id)
                .order_by(col(ChatMessage.id).desc())
                .limit(limit)
            ).all()
            return [
                ChatLine(_id_of(row), row.seat, row.name, row.text, row.reaction) for row in reversed(rows)
            ]

    def mute(self, code: str, actor: int | None, message_id: Any) -> None:
        """The host mutes the author of a chat message: they can no longer write at this table."""
        number = _as_int(message_id)
        with self.db.write() as session:
            room = self._room(session, code)
            seats = self._seats(session, room)
            host = self._require_host(seats, actor)
            line = (
                session.exec(
                    select(ChatMessage).where(ChatMessage.room_id == room.id, ChatMessage.id == number)
                ).first()
                if number is not None
                else None
            )
            if line is None:
                raise NotFound(N_("There is no such message."))
            if host is not None and host.token_hash and line.author == chat_author(host.token_hash):
                raise RoomError(N_("You cannot mute yourself."))
            exists = session.exec(
                select(ChatMute.id).where(ChatMute.room_id == room.id, ChatMute.author == line.author)
            ).first()
            if exists is None:
                session.add(ChatMute(room_id=_id(room), author=line.author))

    # ----------------------------------------------------------------- cleaning up
    def sweep(
        self, waiting_before: datetime | None, games_before: datetime | None, batch: int = SWEEP_BATCH
    ) -> list[str]:
        """Delete rooms (with their seats and action log) that nobody will come back to: rooms never
        started and untouched since ``waiting_before``, and, if ``games_before`` is given, games
        (finished, or abandoned mid-play) untouched since then. ``None`` keeps those. Returns the
        codes deleted. Each batch is one short write transaction, so play goes on meanwhile; a room
        touched in between is not deleted (the condition is checked inside the transaction)."""
        wanted = []
        if waiting_before is not None:
            wanted.append(and_(col(Room.status) == "waiting", col(Room.updated_at) < waiting_before))
        if games_before is not None:
            wanted.append(and_(col(Room.status) != "waiting", col(Room.updated_at) < games_before))
        if not wanted:
            return []
        condition = or_(*wanted)
        deleted: list[str] = []
        while True:
            with self.db.read() as session:  # most sweeps find nothing: no write transaction then
                if session.exec(select(Room.id).where(condition).limit(1)).first() is None:
                    break
            with self.db.write() as session:
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
            with self._hot_guard:
                for code in codes:
                    self._hot.pop(code, None)
            deleted.extend(codes)
            if len(rows) < batch:
                break
        return deleted

    # ----------------------------------------------------------------- internals
    @staticmethod
    def _bot_to_act(room: RoomSnapshot) -> int | None:
        """The first seat played by a bot that the game waits for."""
        robots = {s.seat for s in room.seats if s.played_by_bot}
        return next((number for number in room.to_act() if number in robots), None)

    def _apply(
        self,
        session: Session,
        room: RoomSnapshot,
        seat: int,
        action: dict[str, Any],
        timed_out: bool = False,
        away: bool = False,
    ) -> RoomSnapshot:
        """Apply, append to the log and move the version on; the new snapshot (not yet remembered).

        ``timed_out``: a bot made this decision because the seat's clock ran out (the log says so;
        an ``away`` seat that timed out ``AWAY_TIMEOUTS`` times in a row is handed to a bot). Each
        seat the game now waits for gets a deadline when its decision is new (with a clock).

        The work does not grow with the game: the state carries no log, the new events go into the
        action's own row, and each seat's legal actions are computed once per version.
        """
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
        )
        changed = [
            other.seat
            for other in room.seats
            if other.seat == seat or room.legal(other.seat) != after.legal(other.seat)
        ]
        waited_for = set(after.to_act())
        now = now_ms()
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
            if not room.clock or new.played_by_bot or new.seat not in waited_for:
                deadline = None
            elif new.deadline is None or new.seat in changed:
                deadline = now + room.clock * 1000  # a new decision: a fresh clock
            else:
                deadline = new.deadline  # still the same decision (another seat moved)
            if deadline != new.deadline:
                new = replace(new, deadline=deadline)
            seats.append(new)
        after.seats = seats
        rewritten = [new for old, new in zip(room.seats, seats, strict=True) if new is not old]
        session.execute(
            text(
                "INSERT INTO actions (room_id, seq, seat, action, events, created_at) "
                "VALUES (:room, :seq, :seat, :action, :events, :now)"
            ),
            {
                "room": room.room_id,
                "seq": after.actions,
                "seat": seat,
                "action": dumps(action),
                "events": dumps(new_events),
                "now": utcnow(),
            },
        )
        session.execute(
            text(
                "UPDATE seats SET legal_version = :version, deadline = :deadline, timeouts = :timeouts, "
                "bot_turns = :bot_turns, bot_controlled = :bot_controlled WHERE room_id = :room AND seat = :seat"
            ),
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
        updated = session.execute(
            text(
                "UPDATE rooms SET state = :state, version = :new, status = :status, "
                "event_count = :events, updated_at = :now WHERE id = :room AND version = :old"
            ),
            {
                "state": dumps(new_core),
                "new": new_version,
                "status": status,
                "events": after.events_total,
                "now": utcnow(),
                "room": room.room_id,
                "old": room.version,
            },
        )
        if updated.rowcount != 1:  # type: ignore[attr-defined]
            raise Conflict(N_("The table changed before your move arrived; look again and retry."))
        return after

    def _current(self, session: Session, code: str) -> RoomSnapshot:
        """The room's snapshot: the one in memory when the database holds no newer version."""
        query = "SELECT id, version FROM rooms WHERE code = :code"
        if session.info.get(LOCK_ROWS):
            query += " FOR UPDATE"  # PostgreSQL: this room's writers queue here, in any process
        row = session.execute(text(query), {"code": code}).first() if is_room_code(code) else None
        if row is None:
            raise NotFound(N_("There is no room with this code."))
        with self._hot_guard:
            hot = self._hot.get(code)
            if hot is not None and hot.version == row.version:
                self._hot.move_to_end(code)
                return hot
        snapshot = self._snapshot(session, self._room(session, code))
        self._remember(snapshot)
        return snapshot

    def _remember(self, snapshot: RoomSnapshot) -> None:
        with self._hot_guard:
            known = self._hot.get(snapshot.code)
            if known is not None and known.version > snapshot.version:
                return
            self._hot[snapshot.code] = snapshot
            self._hot.move_to_end(snapshot.code)
            while len(self._hot) > HOT_ROOMS:
                self._hot.popitem(last=False)

    def _bump(self, session: Session, room: Room) -> None:
        room.version += 1
        room.updated_at = utcnow()
        session.add(room)

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
            found = session.execute(text("SELECT 1 FROM rooms WHERE code = :code"), {"code": code}).first()
        if found is None:
            raise NotFound(N_("There is no room with this code."))

    @staticmethod
    def _room(session: Session, code: str) -> Room:
        query = select(Room).where(Room.code == code)
        if session.info.get(LOCK_ROWS):
            query = query.with_for_update()  # PostgreSQL: this room's writers queue here, in any process
        room = session.exec(query).first() if is_room_code(code) else None
        if room is None:
            raise NotFound(N_("There is no room with this code."))
        return room

    @staticmethod
    def _seats(session: Session, room: Room) -> list[Seat]:
        return list(session.exec(select(Seat).where(Seat.room_id == room.id).order_by(col(Seat.seat))).all())

    @staticmethod
    def _require_host(seats: list[Seat], actor: int | None) -> Seat | None:
        """The host's seat, if ``actor`` is the host. A room created without a host (a bots-only
        room made through the service) lets anyone manage it."""
        host = next((s for s in seats if s.is_host), None)
        if host is None and not any(not s.is_bot for s in seats):
            return None
        if host is None or actor is None or host.seat != actor:
            raise Forbidden(N_("Only the host can do that."))
        return host

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
        seats = self._seats(session, room)
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


def replay_actions(
    engine: Engine,
    players: int,
    options: dict[str, Any],
    seed: str,
    actions: list[tuple[int, dict[str, Any]]],
) -> State:
    """The state the seed and the action log lead to, game log included."""
    state = engine.setup(players, options, int(seed))
    for seat, action in actions:
        state = engine.apply(state, seat, action)
    return state


def chat_author(token_hash: str) -> str:
    """The author key of a seated person's chat messages (stable if seats are renumbered)."""
    return "seat:" + token_hash[:32]


def _id_of(line: ChatMessage) -> int:
    assert line.id is not None
    return line.id


def _id(room: Room) -> int:
    """A stored room's id (set once the room is flushed)."""
    assert room.id is not None
    return room.id


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 18:
        return int(value.strip())
    return None


def _clean_options(engine: Engine, options: Any) -> dict[str, bool]:
    given = options if isinstance(options, dict) else {}
    chosen = {}
    for option in engine.info.options:
        value = given.get(option.key, option.default)
        chosen[option.key] = value in (True, "true", "on", "1", 1)
    return chosen
