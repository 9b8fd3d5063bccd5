"""What a room looks like to its readers: one consistent, immutable read at one version."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from app.games.base import Engine, Result, State
from app.rooms import wallclock
from app.rooms.names import hash_token

Event = dict[str, Any]


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
    bot_strengths: dict[int, str] = field(
        default_factory=dict, repr=False
    )  # bot seats: easy | normal | strong
    clock: int = 0  # seconds per decision (0: no clock)
    full_record: bool = False  # the table agreed: once over, anyone's record holds every secret
    imported: bool = False  # made from an uploaded record
    hints: bool = False  # the table allows the coach and the search's hints
    clock_paused_at: int | None = None  # the host paused the clock then (epoch ms); None: it runs
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

    def seat_for_token(self, token: str | None) -> int | None:
        """The seat ``token`` (a seat's secret, from a cookie or a bearer header) holds here."""
        return self.seat_of_token.get(hash_token(token)) if token else None

    def name_of(self, number: int) -> str:
        info = self.seat(number)
        return info.name if info else f"#{number + 1}"

    @cached_property
    def result(self) -> Result | None:
        return self.engine.result(self.core) if self.core is not None else None

    @property
    def clock_now(self) -> int:
        """The moment the table's clock stands at (epoch ms): the wall clock, or while the host has
        the clock paused, the moment it was paused (a decision that comes meanwhile starts whole)."""
        return self.clock_paused_at if self.clock_paused_at is not None else wallclock.now_ms()

    def to_act(self) -> list[int]:
        if self.core is None or self.status != "playing":
            return []
        return self.engine.to_act(self.core)
