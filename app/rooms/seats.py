"""A room's life cycle and the host's powers: creating it, taking and leaving seats, starting the
game, and handing seats to bots and back."""

from __future__ import annotations

import json
import secrets
from collections.abc import Set as AbstractSet
from typing import Any

from app.games.base import DEFAULT_STRENGTH, N_, STRENGTHS, Engine
from app.models import Room, Seat
from app.rooms import wallclock
from app.rooms.errors import Conflict, Forbidden, RoomError
from app.rooms.names import as_int, clean_name, free_code, hash_token, unique_name
from app.rooms.writer import RoomWriter, dumps, room_id

CLOCK_MAX = 7 * 86400  # seconds: the longest clock a room may have
# Stored in English ("Bot Ada"); app.i18n.person_name shows them in the reader's language.
BOT_NAMES = (
    N_("Ada"),
    N_("Bernoulli"),
    N_("Cantor"),
    N_("Dedekind"),
    N_("Euler"),
    N_("Fermat"),
    N_("Gauss"),
    N_("Hilbert"),
)


def require_host(seats: list[Seat], actor: int | None) -> Seat | None:
    """The host's seat, if ``actor`` is the host. A room created without a host (a bots-only
    room made through the service) lets anyone manage it."""
    host = next((s for s in seats if s.is_host), None)
    if host is None and not any(not s.is_bot for s in seats):
        return None
    if host is None or actor is None or host.seat != actor:
        raise Forbidden(N_("Only the host can do that."))
    return host


class Seats:
    """Seats and their people, from a room's creation to a seat handed to a bot and back."""

    def __init__(self, writer: RoomWriter) -> None:
        self.writer = writer

    def seat_for_token(self, code: str, token: str | None) -> int | None:
        """The seat ``token`` holds in the room (``NotFound`` for an unknown room)."""
        return self.writer.load(code).seat_for_token(token)

    def create_room(
        self,
        game: str,
        players: Any,
        options: Any,
        host_name: Any,
        clock: Any = 0,
        full_record: bool = False,
        hints: bool = False,
    ) -> tuple[str, int | None, str | None]:
        """Create a room; the creator (if named) takes seat 0 and is host. Returns code, seat, token.
        ``clock``: the seconds each decision may take (0: no clock). ``full_record``: the table agrees
        that once the game is over anyone may download its record with every secret. ``hints``: the
        table allows the coach and the search's hints (``app.learn``)."""
        engine = self.writer.engines.get(game) if isinstance(game, str) else None
        if engine is None:
            raise RoomError(N_("Unknown game."))
        count = as_int(players)
        info = engine.info
        if count is None or not info.min_players <= count <= info.max_players:
            raise RoomError(
                N_("This game takes {min} to {max} players."), min=info.min_players, max=info.max_players
            )
        chosen = _clean_options(engine, options)
        seconds = as_int(clock)
        if seconds is None or not 0 <= seconds <= CLOCK_MAX:
            raise RoomError(N_("A turn clock is a number of seconds, up to a week."))
        name = clean_name(host_name) if host_name is not None else None
        token = secrets.token_urlsafe(24) if name is not None else None
        with self.writer.db.write() as session:
            code = free_code(session)
            room = Room(
                code=code,
                game=game,
                players=count,
                options=dumps(chosen),
                seed=str(secrets.randbits(62)),
                clock=seconds,
                full_record=full_record,
                hints=hints,
            )
            session.add(room)
            session.flush()
            if name is not None and token is not None:
                session.add(
                    Seat(room_id=room_id(room), seat=0, name=name, token_hash=hash_token(token), is_host=True)
                )
        return code, (0 if name is not None else None), token

    def join(self, code: str, raw_name: Any) -> tuple[int, str]:
        name = clean_name(raw_name)
        token = secrets.token_urlsafe(24)
        with self.writer.editing(code) as edit:
            room, seats = edit.room, edit.seats
            if room.status != "waiting":
                raise Conflict(N_("This game has already started; you can watch it."))
            if len(seats) >= room.players:
                raise Conflict(N_("This room is full; you can watch the game."))
            seat = Seat(
                room_id=room_id(room),
                seat=len(seats),
                name=unique_name(name, {s.name for s in seats}),
                token_hash=hash_token(token),
                is_host=not any(s.is_host for s in seats),
            )
            edit.session.add(seat)
        return seat.seat, token

    def add_bot(
        self, code: str, actor: int | None, fill: bool = False, strength: Any = DEFAULT_STRENGTH
    ) -> list[int]:
        """Seat a bot of this strength (``easy``, ``normal`` or ``strong``) at the next free seat, or at every one."""
        if strength not in STRENGTHS:
            raise RoomError(N_("A bot plays easy, normal or strong."))
        with self.writer.editing(code) as edit:
            room, seats = edit.room, edit.seats
            require_host(seats, actor)
            if room.status != "waiting":
                raise Conflict(N_("Bots can only be added before the game starts."))
            free = room.players - len(seats)
            if free <= 0:
                raise Conflict(N_("Every seat is taken."))
            added = []
            taken = {s.name for s in seats}
            for number in range(len(seats), len(seats) + (free if fill else 1)):
                name = unique_name(N_("Bot {name}").format(name=BOT_NAMES[number % len(BOT_NAMES)]), taken)
                taken.add(name)
                edit.session.add(
                    Seat(room_id=room_id(room), seat=number, name=name, is_bot=True, bot_strength=strength)
                )
                added.append(number)
        return added

    def remove_seat(self, code: str, actor: int | None, target: Any) -> None:
        with self.writer.editing(code) as edit:
            room, seats, session = edit.room, edit.seats, edit.session
            require_host(seats, actor)
            number = as_int(target)
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

    def start(self, code: str, actor: int | None, without: AbstractSet[int] = frozenset()) -> None:
        """Start the game. ``without``: people's seats whose players are not back yet (a room set up
        by "Play again"): their bots play for them from the first move until they take their seats
        back, and their clock starts then."""
        with self.writer.editing(code) as edit:
            room, seats = edit.room, edit.seats
            require_host(seats, actor)
            if room.status != "waiting":
                raise Conflict(N_("The game has already started."))
            if len(seats) != room.players:
                raise Conflict(
                    N_("Every seat must be taken first ({taken} of {players})."),
                    taken=len(seats),
                    players=room.players,
                )
            for seat in seats:
                if seat.seat in without and not seat.is_bot and not seat.is_host:
                    seat.bot_controlled = True
                    edit.session.add(seat)
            engine = self.writer.engines[room.game]
            state = engine.setup(room.players, json.loads(room.options), int(room.seed))
            room.status = "finished" if engine.result(state) else "playing"
            if room.clock and room.status == "playing":
                waited_for = set(engine.to_act(state))
                for seat in seats:
                    if seat.seat in waited_for and not seat.is_bot and not seat.bot_controlled:
                        seat.deadline = wallclock.now_ms() + room.clock * 1000
                        edit.session.add(seat)
            room.state = dumps({**state, "events": []})
            room.opening_events = dumps(state["events"])
            room.event_count = len(state["events"])

    def set_bot_control(
        self, code: str, actor: int | None, target: Any, bot: bool, away: AbstractSet[int] | None = None
    ) -> None:
        """Host hands a seat to a bot (bot=True); the seat's own player takes it back (bot=False),
        from any device their personal link opened. ``away``: the seats away long enough to be
        handed over (the live layer knows who is connected); ``None`` when nobody knows (tests). The
        host may always hand their own seat to a bot."""
        with self.writer.editing(code) as edit:
            room, seats = edit.room, edit.seats
            number = as_int(target)
            seat = next((s for s in seats if s.seat == number), None)
            if seat is None or seat.is_bot:
                raise RoomError(N_("There is no such player."))
            if bot:
                require_host(seats, actor)
            elif actor != seat.seat:
                raise Forbidden(N_("Only that player can take their seat back."))
            if room.status != "playing":
                raise Conflict(N_("The game is not running."))
            if seat.bot_controlled == bot:
                edit.nothing_changed()  # already so: the version does not move either
                return
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
            # Handing over keeps the seat's deadline (its bot does not wait for it); taking back resumes
            # it for the same decision, so handing a seat to a bot and back never resets a clock. A
            # decision that came while the bot played gets a fresh clock.
            if not bot and room.clock and room.state is not None:
                waited_for = self.writer.engines[room.game].to_act(json.loads(room.state))
                if seat.seat not in waited_for:
                    seat.deadline = None
                elif seat.deadline is None:
                    now = room.clock_paused_at if room.clock_paused_at is not None else wallclock.now_ms()
                    seat.deadline = now + room.clock * 1000
            edit.session.add(seat)


def _clean_options(engine: Engine, options: Any) -> dict[str, bool]:
    given = options if isinstance(options, dict) else {}
    chosen = {}
    for option in engine.info.options:
        value = given.get(option.key, option.default)
        chosen[option.key] = value in (True, "true", "on", "1", 1)
    return chosen
