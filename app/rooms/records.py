"""What a room leaves behind: its action log and replay, the group's score over games played one
after another ("Play again"), and finished games imported from records."""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select

from app.games.base import N_, Engine, State
from app.models import ActionRecord, Room, Seat, utcnow
from app.rooms.errors import Conflict, Forbidden
from app.rooms.names import free_code, hash_token
from app.rooms.seats import require_host
from app.rooms.snapshot import Event, RoomSnapshot
from app.rooms.writer import HOT_ROOMS, RoomWriter, dumps, room_id


@dataclass(frozen=True)
class MatchScore:
    """Wins per seat over the games a group played one after another (``Records.match_score``)."""

    games: int
    wins: tuple[int, ...]

    def adding(self, winners: list[int]) -> MatchScore:
        wins = tuple(won + (seat in winners) for seat, won in enumerate(self.wins))
        return MatchScore(self.games + 1, wins)


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


class Records:
    """Logs, replays, match scores and imports; it remembers which room led to which (that never changes)."""

    def __init__(self, writer: RoomWriter) -> None:
        self.writer = writer
        self._guard = threading.Lock()
        self._previous: OrderedDict[str, str | None] = OrderedDict()  # room -> the room played again
        self._scores: OrderedDict[str, MatchScore] = OrderedDict()  # finished room -> its chain's score

    def action_log(self, code: str) -> list[tuple[int, dict[str, Any]]]:
        return self.action_log_with_events(code)[0]

    def action_log_with_events(self, code: str) -> tuple[list[tuple[int, dict[str, Any]]], list[list[Event]]]:
        """The action log and, beside it, the events each action logged (the platform's lines included)."""
        with self.writer.db.read() as session:
            room = self.writer.room(session, code)
            rows = session.exec(
                select(ActionRecord).where(ActionRecord.room_id == room.id).order_by(col(ActionRecord.seq))
            ).all()
            return [(row.seat, json.loads(row.action)) for row in rows], [
                json.loads(row.events) for row in rows
            ]

    def replay(self, code: str) -> State | None:
        """Rebuild the state from the seed and the action log (it must equal the snapshot's)."""
        snapshot = self.writer.load(code)
        if snapshot.status == "waiting":
            return None
        return replay_actions(
            snapshot.engine, snapshot.players, snapshot.options, snapshot.seed, self.action_log(code)
        )

    def play_again(self, code: str, actor: int | None, token: str | None = None) -> tuple[str, str]:
        """A new room with the same game and options and the same people in the same seats: each seat
        keeps its name, its bot, and its token, so a person's cookie and personal link open their seat
        in the new room too. Returns the new code and the host's token: ``token`` if it is the host's
        own, else a new one for the host's seat (an API host is answered with it)."""
        with self.writer.editing(code) as edit:
            room, seats, session = edit.room, edit.seats, edit.session
            host = require_host(seats, actor)
            if host is None:
                raise Forbidden(N_("Only the host can do that."))
            if room.status != "finished":
                raise Conflict(N_("The game is not over yet."))
            if room.next_code:
                raise Conflict(N_("A new game has already been set up."))
            if token is None or hash_token(token) != host.token_hash:
                token = secrets.token_urlsafe(24)
            fresh = Room(
                code=free_code(session),
                game=room.game,
                players=room.players,
                options=room.options,
                seed=str(secrets.randbits(62)),
                clock=room.clock,
                full_record=room.full_record,
                hints=room.hints,
            )
            session.add(fresh)
            session.flush()
            for seat in seats:
                again = Seat(
                    room_id=room_id(fresh),
                    seat=seat.seat,
                    name=seat.name,
                    token_hash=hash_token(token) if seat.is_host else seat.token_hash,
                    is_bot=seat.is_bot,
                    bot_strength=seat.bot_strength,
                    is_host=seat.is_host,
                )
                session.add(again)
                session.flush()
                keep_push_subscriptions(session, seat, again)
            room.next_code = fresh.code
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
        with self._guard:
            known = self._scores.get(code)
            if known is not None:
                self._scores.move_to_end(code)
        if known is not None:
            return known
        with self.writer.db.read() as session:
            row = session.execute(
                text("SELECT game, players, status, state FROM rooms WHERE code = :code"), {"code": code}
            ).first()
        if row is None:  # swept away: the chain starts after it
            return MatchScore(0, (0,) * players)
        previous = self._previous_of(code)
        score = self._score_upto(previous, players) if previous is not None else MatchScore(0, (0,) * players)
        engine = self.writer.engines.get(row.game)
        result = engine.result(json.loads(row.state)) if engine and row.status == "finished" else None
        if result is not None:
            score = score.adding(result.winners)
        with self._guard:
            self._scores[code] = score
            while len(self._scores) > HOT_ROOMS:
                self._scores.popitem(last=False)
        return score

    def _previous_of(self, code: str) -> str | None:
        """The room whose "Play again" made this one (fixed when the room is made)."""
        with self._guard:
            if code in self._previous:
                self._previous.move_to_end(code)  # the rooms asked about last are kept, as the writer's are
                return self._previous[code]
        with self.writer.db.read() as session:
            previous = session.execute(
                text("SELECT code FROM rooms WHERE next_code = :code"), {"code": code}
            ).scalar()
        with self._guard:
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
        finished room with no host and no seat tokens, marked imported: it can be watched and replayed.
        Only a full record can be imported, so its record stays full. Returns its code."""
        engine = self.writer.engines[game]
        status = "finished" if engine.result(final) is not None else "playing"
        assert status == "finished", "only whole games are imported"
        with self.writer.db.write() as session:
            code = free_code(session)
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
                full_record=True,
                imported=True,
            )
            session.add(room)
            session.flush()
            for number, (name, bot) in enumerate(seats):
                session.add(Seat(room_id=room_id(room), seat=number, name=name, is_bot=bot))
            now = utcnow()
            if log:
                session.execute(
                    text(
                        "INSERT INTO actions (room_id, seq, seat, action, events, created_at) "
                        "VALUES (:room, :seq, :seat, :action, :events, :now)"
                    ),
                    [
                        {
                            "room": room_id(room),
                            "seq": seq,
                            "seat": seat,
                            "action": dumps(action),
                            "events": dumps(events),
                            "now": now,
                        }
                        for seq, (seat, action, events) in enumerate(log, start=1)
                    ],
                )
        with self._guard:
            self._previous[code] = None
        return code


def keep_push_subscriptions(session: Session, old: Seat, new: Seat) -> None:
    """The browsers told of ``old``'s turns ("Tell me when it's my turn") are told of ``new``'s, the
    same seat in the game played again, from its first turn on."""
    session.execute(
        text(
            "INSERT INTO push_subscriptions (seat_id, endpoint, p256dh, auth, locale, turn_told, "
            "clock_told, end_told, created_at) SELECT :new, endpoint, p256dh, auth, locale, -1, -1, "
            ":no, :now FROM push_subscriptions WHERE seat_id = :old"
        ),
        {"new": new.id, "old": old.id, "no": False, "now": utcnow()},
    )
