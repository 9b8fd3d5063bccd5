"""Replays and game records: a finished game rebuilt from its seed and action log, step by step.

Nothing is stored twice: a replay is computed from the action log with the game's engine (as
18xx's viewer does) and kept in a bounded cache (``ReplayCache``), so stepping back and forth through
a long game costs one parse of one step's state, not a replay of the whole log per request.

A *game record* is the portable form of a finished game. A **full** record holds its game, options,
seed, seats (names, played by a bot or not) and every action: every secret, so a room gives it only if
its table agreed at creation. A **redacted** record (``redacted_record``) holds what one reader saw,
as the replay shows that reader: the seats, the result, and per move who made it, the move itself only
if it was the reader's own, and the log lines the reader could read; no seed (it foretells every hidden
card). ``parse_record`` checks one from outside (an upload) and replays it, refusing anything that is
not a whole, legal game of a known game; a redacted record cannot be replayed (it lacks the secrets the
engine needs), so only full records are imported. ``app.rooms`` then stores it as a new finished room,
marked imported. This module does no I/O.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.games.base import N_, Action, Engine, IllegalAction, State, visible_events
from app.rooms import RoomError, Unprocessable, clean_name, normalised_action

Event = dict[str, Any]

RECORD_FORMAT = "bourse-game-record"
RECORD_VERSION = 1
FULL = "full"  # a record's ``record`` field: every move (a record without the field is a full one)
REDACTED = "redacted"  # what one reader saw
RECORD_MAX_BYTES = 64 * 1024  # a five-player game's record is under 10 KB (and a request body at most 64 KB)
RECORD_MAX_ACTIONS = 5000  # the longest bot games take a few hundred
SEED_MAX_DIGITS = 40  # what a room stores
RECORD_MAX_NESTING = 16  # a record nests five deep (record, actions, move, action, a gem count's dict)
REPLAY_CACHE_BYTES = 32 * 1024 * 1024  # the replays kept in memory, counted as their states' JSON


@dataclass(frozen=True)
class Replay:
    """A game rebuilt step by step: step 0 is the setup, step ``k`` the table after ``k`` actions.

    Each step's state is kept as its JSON text without the game log (compact, and parsed only when
    that step is shown); the log is kept once, with the number of its events at each step.
    """

    engine: Engine
    states: tuple[str, ...]
    event_counts: tuple[int, ...]
    events: tuple[Event, ...]
    actions: tuple[tuple[int, Action], ...]  # (seat, action) as applied: step k is actions[k - 1]

    @property
    def last_step(self) -> int:
        return len(self.states) - 1

    @property
    def size(self) -> int:
        return sum(len(text) for text in self.states)

    def core(self, step: int) -> State:
        """The state after ``step`` actions, without its game log (as a room's snapshot holds it)."""
        return dict(json.loads(self.states[step]))

    def events_upto(self, step: int) -> list[Event]:
        return list(self.events[: self.event_counts[step]])

    def step_events(self, step: int, seat: int | None) -> list[Event]:
        """The events ``seat`` may read that the action of ``step`` logged (the setup's, for step 0)."""
        first = self.event_counts[step - 1] if step > 0 else 0
        return visible_events({"events": list(self.events[first : self.event_counts[step]])}, seat)


def replay_game(
    engine: Engine,
    players: int,
    options: dict[str, Any],
    seed: str | int,
    actions: list[tuple[int, Action]],
    checked: bool = False,
    logged: list[list[Event]] | None = None,
) -> Replay:
    """Replay ``actions`` from the seed. ``checked``: the actions come from outside, so each must be
    the acting seat's to make and legal (``Unprocessable`` names the first that is not); the log of a
    stored room is trusted and replayed as it is. ``logged``: the events each stored action logged,
    shown instead of the engine's, so lines the platform added (a clock running out) are replayed too.

    Each action is applied to the state without its log (what the engine copies stays small), so
    the whole replay is linear in the length of the game.
    """
    state = engine.setup(players, options, int(seed))
    events: list[Event] = list(state["events"])
    core = {**state, "events": []}
    states = [_dumps(core)]
    counts = [len(events)]
    applied = []
    for number, (seat, action) in enumerate(actions, start=1):
        if checked:
            action = _checked_action(engine, core, seat, action, number)
        try:
            after = engine.apply(core, seat, action)
        except IllegalAction as refused:
            raise Unprocessable(N_("Move {number} of the record is not legal."), number=number) from refused
        except Exception as bug:  # an engine refusing junk badly must not become a 500
            raise Unprocessable(N_("Move {number} of the record is not legal."), number=number) from bug
        applied.append((seat, action))
        events.extend(logged[number - 1] if logged is not None else after["events"])
        core = {**after, "events": []}
        states.append(_dumps(core))
        counts.append(len(events))
    return Replay(engine, tuple(states), tuple(counts), tuple(events), tuple(applied))


def _checked_action(engine: Engine, core: State, seat: int, action: Action, number: int) -> Action:
    if engine.result(core) is not None:
        raise Unprocessable(N_("The record goes on after the game ended (move {number})."), number=number)
    legal = engine.legal_actions(core, seat)
    if not legal:
        raise Unprocessable(N_("Move {number} of the record is not legal."), number=number)
    return normalised_action(action, legal)


def _dumps(state: State) -> str:
    return json.dumps(state, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------- game records
@dataclass(frozen=True)
class RecordSeat:
    name: str
    bot: bool


@dataclass(frozen=True)
class GameRecord:
    game: str
    options: dict[str, bool]
    seed: str
    seats: tuple[RecordSeat, ...]
    actions: tuple[tuple[int, Action], ...]

    def to_json(self, result: dict[str, Any] | None = None, imported: bool = False) -> dict[str, Any]:
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "record": FULL,
            "imported": imported,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "seats": [{"name": seat.name, "bot": seat.bot} for seat in self.seats],
            "actions": [{"seat": seat, "action": action} for seat, action in self.actions],
        }
        if result is not None:
            record["result"] = result
        return record


def redacted_record(
    record: GameRecord, replay: Replay, reader: int | None, result: dict[str, Any], imported: bool = False
) -> dict[str, Any]:
    """What ``reader`` (a seat, ``None`` for a spectator) saw of the finished game ``record``: its
    game, options, seats and result, the setup's log lines, and per move the seat that made it, the
    move itself only if it was the reader's, and the log lines it added that the reader could read."""
    moves = []
    for step, (seat, action) in enumerate(replay.actions, start=1):
        move: dict[str, Any] = {"seat": seat}
        if seat == reader:
            move["action"] = action
        move["log"] = [_log_line(event) for event in replay.step_events(step, reader)]
        moves.append(move)
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "record": REDACTED,
        "seen_by": reader,
        "imported": imported,
        "game": record.game,
        "options": record.options,
        "seats": [{"name": seat.name, "bot": seat.bot} for seat in record.seats],
        "opening": [_log_line(event) for event in replay.step_events(0, reader)],
        "moves": moves,
        "result": result,
    }


def _log_line(event: Event) -> Event:
    """A game-log event as a record gives it: its text and params (not whom else it was for)."""
    return {key: event[key] for key in ("text", "plural", "params") if key in event}


def parse_record(raw: bytes | str, engines: dict[str, Engine]) -> tuple[GameRecord, Replay]:
    """A record from outside, checked and replayed: it must be a whole game of a known game with its
    own options, and every move legal. Anything else is a ``RoomError`` a person can read (413 for a
    file too large, 422 otherwise)."""
    if len(raw) > RECORD_MAX_BYTES:
        raise RecordTooLarge(N_("A game record can be at most {kib} KB."), kib=RECORD_MAX_BYTES // 1024)
    if _nesting(raw) > RECORD_MAX_NESTING:  # json.loads would recurse once a level (RecursionError)
        raise Unprocessable(N_("This file is not a game record."))
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as bad:
        raise Unprocessable(N_("This file is not a game record.")) from bad
    _check_full_record(data)
    game = data.get("game")
    engine = engines.get(game) if isinstance(game, str) else None
    if engine is None or not isinstance(game, str):
        raise Unprocessable(N_("Unknown game."))
    options = _record_options(engine, data.get("options"))
    seed = data.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0:
        seed = str(seed)
    if not isinstance(seed, str) or not seed.isascii() or not seed.isdigit() or len(seed) > SEED_MAX_DIGITS:
        raise Unprocessable(N_("The record's seed is not valid."))
    seats = _record_seats(engine, data.get("seats"))
    actions = _record_actions(data.get("actions"), len(seats))
    replay = replay_game(engine, len(seats), options, seed, list(actions), checked=True)
    final = replay.core(replay.last_step)
    result = engine.result(final)
    if result is None:
        raise Unprocessable(N_("The record ends before the game does."))
    claimed = data.get("result")
    if claimed is not None and claimed != result.to_json():
        raise Unprocessable(N_("The record's result does not match its moves."))
    return GameRecord(game, options, seed, seats, actions), replay


def _check_full_record(data: Any) -> None:
    """A full game record of this version of Bourse (a redacted one cannot be replayed: it lacks the
    moves the reader did not see)."""
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise Unprocessable(N_("This file is not a game record."))
    if data.get("version") != RECORD_VERSION:
        raise Unprocessable(N_("This game record comes from another version of Bourse."))
    if data.get("record", FULL) == REDACTED:
        raise Unprocessable(
            N_("This record holds only what one reader saw: only a full record can be imported.")
        )
    if data.get("record", FULL) != FULL:
        raise Unprocessable(N_("This file is not a game record."))


def _nesting(raw: bytes | str) -> int:
    """How deep the JSON text's arrays and objects nest (brackets inside strings do not count)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


class RecordTooLarge(RoomError):
    status = 413


def _record_options(engine: Engine, raw: Any) -> dict[str, bool]:
    given = {} if raw is None else raw
    known = {option.key: option.default for option in engine.info.options}
    if (
        not isinstance(given, dict)
        or not set(given) <= set(known)
        or not all(isinstance(value, bool) for value in given.values())
    ):
        raise Unprocessable(N_("The record's options are not this game's."))
    return {**known, **given}


def _record_seats(engine: Engine, raw: Any) -> tuple[RecordSeat, ...]:
    info = engine.info
    if not isinstance(raw, list) or not info.min_players <= len(raw) <= info.max_players:
        raise Unprocessable(
            N_("This game takes {min} to {max} players."), min=info.min_players, max=info.max_players
        )
    seats = []
    for entry in raw:
        if not isinstance(entry, dict) or not isinstance(entry.get("bot", False), bool):
            raise Unprocessable(N_("The record's seats are not valid."))
        try:
            name = clean_name(entry.get("name"))
        except RoomError as refused:
            raise Unprocessable(refused.message, **refused.params) from refused
        seats.append(RecordSeat(name, bool(entry.get("bot", False))))
    return tuple(seats)


def _record_actions(raw: Any, players: int) -> tuple[tuple[int, Action], ...]:
    if not isinstance(raw, list):
        raise Unprocessable(N_("The record's moves are not valid."))
    if len(raw) > RECORD_MAX_ACTIONS:
        raise Unprocessable(N_("A game record can hold at most {max} moves."), max=RECORD_MAX_ACTIONS)
    actions = []
    for entry in raw:
        seat = entry.get("seat") if isinstance(entry, dict) else None
        action = entry.get("action") if isinstance(entry, dict) else None
        if (
            not isinstance(seat, int)
            or isinstance(seat, bool)
            or not 0 <= seat < players
            or not isinstance(action, dict)
            or not isinstance(action.get("type"), str)
        ):
            raise Unprocessable(N_("The record's moves are not valid."))
        actions.append((seat, action))
    return tuple(actions)


# --------------------------------------------------------------------------- the cache
class ReplayCache:
    """Replays of finished rooms, by room code, the least recently used dropped past a byte budget.

    A finished room's log never changes, so an entry never goes stale; a room deleted and a new one
    with its code is out of the question (codes are 64 random bits).
    """

    def __init__(self, budget: int = REPLAY_CACHE_BYTES) -> None:
        self.budget = budget
        self._entries: OrderedDict[str, Replay] = OrderedDict()
        self._size = 0
        self._guard = threading.Lock()
        self.builds = 0  # for tests

    def get(self, code: str, build: Callable[[], Replay]) -> Replay:
        with self._guard:
            replay = self._entries.get(code)
            if replay is not None:
                self._entries.move_to_end(code)
                return replay
        replay = build()  # outside the lock: two first requests may both build; one is kept
        with self._guard:
            self.builds += 1
            if code not in self._entries:
                self._entries[code] = replay
                self._size += replay.size
            while self._size > self.budget and len(self._entries) > 1:
                _, dropped = self._entries.popitem(last=False)
                self._size -= dropped.size
        return replay

    def __len__(self) -> int:
        return len(self._entries)
