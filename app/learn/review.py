"""The review after the game: the search over each of one seat's decisions, marking those where
another option was clearly better, and what it would have changed (as lichess marks a game's
inaccuracies and mistakes).

Each decision is weighed as a hint is (``app.learn.hints``): from the seat's view at that moment
alone, the move played among the candidates, every playout to the game's end. A review is kept
with the room (``models.Review``), filled in a decision at a time, so a restart resumes it; the
``Reviewer`` reviews one game at a time per process, each decision in the niced workers.

With several server processes on one database each may be asked for a review, and each resumes the
unfinished ones at its start: a review is run by the one whose conditional update claimed its row
(``Reviewer._claim``). The claim is renewed with every decision saved, and a save is refused once
the claim is another's; a claim not renewed for ``CLAIM_SECONDS`` is a dead process's, and the
next reviewer to look at the review (its start, or a page asking how far it is) takes it over.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import secrets
import socket
import statistics
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from app.bots.search import CLEARLY, CLEARLY_AFTER, Candidate, Floor, weigh
from app.games.base import N_, Action, Budget, Engine, View, view_without_log
from app.games.registry import ENGINES, search_hooks_of
from app.learn.coaching import option_message
from app.learn.hints import hint_seed
from app.learn.workers import LearnWorkers
from app.models import Review, Room, utcnow
from app.replay import Replay, replay_game
from app.rooms import RoomError, RoomService, RoomSnapshot

log = logging.getLogger(__name__)

REVIEW_CANDIDATES = 4  # the move played and three others
REVIEW_ROUNDS = 24  # worlds each option is played out in: a decision's work, whatever the host's load
REVIEW_CPU_SECONDS = 3.0  # ...capped by the worker's CPU time (a decision with long playouts)...
# ...and by the wall clock, a guard for a host too busy to give the review any CPU at all
REVIEW_BUDGET = Budget(seconds=30.0, iterations=REVIEW_CANDIDATES * REVIEW_ROUNDS)
INACCURACY = 0.15  # the share of games won another option gains over the move played: marked
MISTAKE = 0.3  # ... and called a mistake
MIN_ROUNDS = 3  # an option must have been compared with the move played over this many worlds...
CLAIM_SECONDS = 60.0  # a review's claim not renewed this long is a dead process's: taken over
NOT_OVER = N_("A game is reviewed once it is over.")


@dataclass(frozen=True)
class Decision:
    number: int  # the move's number in the game (1: the first move)
    view: View
    legal: list[dict[str, Any]]
    played: Action


def has_choice(legal: list[dict[str, Any]]) -> bool:
    """Whether the legal templates leave more than one move (a lone "Continue" is no decision)."""
    if len(legal) > 1:
        return True
    for domain in (legal[0].get("params", {}) if legal else {}).values():
        if domain["kind"] != "choice" or len(domain["options"]) > 1:
            return True
    return False


def seat_decisions(engine: Engine, replay: Replay, seat: int) -> list[Decision]:
    """``seat``'s decisions in a replayed game, each with its view and legal actions then."""
    decisions = []
    for number, (actor, action) in enumerate(replay.actions):
        if actor != seat:
            continue
        core = replay.core(number)
        legal = engine.legal_actions(core, seat)
        if has_choice(legal):
            decisions.append(Decision(number + 1, view_without_log(engine, core, seat), legal, action))
    return decisions


def decisions_of(
    game_id: str,
    players: int,
    options: dict[str, Any],
    seed: str | int,
    actions: list[tuple[int, Action]],
    seat: int,
) -> list[Decision]:
    """``seat_decisions`` of the game these ``actions`` played: in the reviews' worker, since the
    replay and a view for every decision would hold the server's interpreter lock (and its event
    loop) for a long game's tenths of a second."""
    engine = ENGINES[game_id]
    return seat_decisions(engine, replay_game(engine, players, options, seed, actions), seat)


def review_decision(
    game_id: str,
    number: int,
    view: View,
    seat: int,
    legal: list[dict[str, Any]],
    played: Action,
    seed: int,
    budget: Budget = REVIEW_BUDGET,
    deadline: float | None = None,
    cpu_seconds: float = REVIEW_CPU_SECONDS,
) -> dict[str, Any] | None:
    """A mark for this decision if another option was clearly better than the move played: by at
    least ``INACCURACY`` of the games won, over at least ``MIN_ROUNDS`` worlds, and by more than
    those worlds' noise (``clearly_ahead``); else None. Its work is ``budget.iterations`` playouts,
    cut short only by ``cpu_seconds`` of the worker's CPU time or by ``deadline`` (by default
    ``budget.seconds`` from now on the wall clock), never before ``MIN_ROUNDS`` rounds but by the
    wall clock."""
    engine = ENGINES[game_id]
    hooks = replace(search_hooks_of(game_id), playout_over=None, position_value=None)
    if deadline is None:
        deadline = time.monotonic() + budget.seconds
    candidates = weigh(
        engine,
        view,
        seat,
        legal,
        random.Random(seed),
        budget,
        deadline,
        hooks,
        floor=Floor(MIN_ROUNDS, deadline),
        most=REVIEW_CANDIDATES,
        first=played,
        cpu_seconds=cpu_seconds,
    )
    mine, others = candidates[0], candidates[1:]
    best: Candidate | None = None
    best_gain = 0.0
    for other in others:
        gain = None if other.refused else clearly_ahead(other, mine)
        if gain is not None and gain > best_gain:
            best, best_gain = other, gain
    if best is None or mine.win_share is None or best.win_share is None:
        return None
    return {
        "move": number,
        "kind": "mistake" if best_gain >= MISTAKE else "inaccuracy",
        "played": played,
        "played_said": list(option_message(game_id, played, view, seat, legal)),
        "played_won": mine.win_share,
        "better": best.action,
        "better_said": list(option_message(game_id, best.action, view, seat, legal)),
        "better_won": best.win_share,
        "playouts": len(mine.wins),
    }


def clearly_ahead(other: Candidate, mine: Candidate) -> float | None:
    """``other``'s mean gain in games won over the move played, round by round (the same worlds), if
    it is at least ``INACCURACY`` over at least ``MIN_ROUNDS`` rounds and clears zero by the search's
    ``CLEARLY`` standard errors (so that a review of a few playouts does not call a move a mistake
    on their luck, nor contradict itself from one decision to the next); else None."""
    gains = [other.wins[r] - mine.wins[r] for r in other.wins if r in mine.wins]
    if len(gains) < MIN_ROUNDS:
        return None
    gain = statistics.fmean(gains)
    error = statistics.stdev(gains) / math.sqrt(len(gains))
    if gain < INACCURACY or gain < CLEARLY.get(len(gains) - 1, CLEARLY_AFTER) * error:
        return None
    return gain


@dataclass(frozen=True)
class ReviewState:
    status: str  # none | queued | done
    decisions: int = 0
    reviewed: int = 0
    marks: tuple[dict[str, Any], ...] = ()


NO_REVIEW = ReviewState("none")


class ClaimLost(Exception):
    """Another process took the review over (this one was thought dead): it stops here."""


class Reviewer:
    """Reviews finished games one at a time, in a thread of its own, each decision in the workers;
    asked again, a review already kept is read back. ``name``: this reviewer's in the claims (one a
    server process)."""

    def __init__(self, service: RoomService, workers: LearnWorkers, name: str | None = None) -> None:
        self.service = service
        self.workers = workers
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._queue: deque[tuple[str, int]] = deque()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def state(self, snapshot: RoomSnapshot, seat: int) -> ReviewState:
        """How far the review of ``seat``'s game is; one whose process died is taken over here."""
        with self.service.writer.db.read() as session:
            row = session.exec(
                select(Review).where(Review.room_id == snapshot.room_id, Review.seat == seat)
            ).first()
        if row is None:
            return NO_REVIEW
        if row.status == "queued" and _abandoned(row.claimed_by, row.claimed_at, self.name):
            self._enqueue(snapshot.code, seat)
        return ReviewState(row.status, row.decisions, row.reviewed, tuple(json.loads(row.marks)))

    def ask(self, snapshot: RoomSnapshot, seat: int) -> ReviewState:
        """Queue the review of ``seat``'s game (once: a review asked again is the same one)."""
        if snapshot.status != "finished":
            raise RoomError(NOT_OVER)
        state = self.state(snapshot, seat)
        if state.status != "none":
            return state
        try:
            with self.service.writer.db.write() as session:
                session.add(Review(room_id=snapshot.room_id, seat=seat))
        except IntegrityError:  # asked at once on another process: the same review, its row made there
            return self.state(snapshot, seat)
        self._enqueue(snapshot.code, seat)
        return ReviewState("queued")

    def resume(self) -> None:
        """Queue again every review a restart left unfinished (each is run by whoever claims it)."""
        with self.service.writer.db.read() as session:
            waiting = session.exec(
                select(Room.code, Review.seat)
                .join(Review, col(Review.room_id) == col(Room.id))
                .where(col(Review.status) == "queued")
            ).all()
        for code, seat in waiting:
            self._enqueue(code, seat)

    def _enqueue(self, code: str, seat: int) -> None:
        with self._wake:
            if (code, seat) not in self._queue:
                self._queue.append((code, seat))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="reviewer", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                if not self._queue:
                    return
                code, seat = self._queue[0]
            try:
                self.review(code, seat)
            except ClaimLost:
                log.warning("the review of seat %s in room %s was taken over by another process", seat, code)
            except Exception:  # a review that fails stays queued for the next start; the rest go on
                log.exception("the review of seat %s in room %s failed", seat, code)
            with self._wake:
                self._queue.popleft()

    def _claim(self, room_id: int, seat: int) -> bool:
        """Whether this reviewer now runs the review: its row was unclaimed, already this reviewer's,
        or claimed by a process silent for ``CLAIM_SECONDS``. One conditional update: of two
        reviewers claiming at once, one changes the row and the other finds it taken."""
        now = utcnow()
        with self.service.writer.db.write() as session:
            claimed = session.execute(
                update(Review)
                .where(
                    col(Review.room_id) == room_id,
                    col(Review.seat) == seat,
                    col(Review.status) == "queued",
                    or_(
                        col(Review.claimed_by).is_(None),
                        col(Review.claimed_by) == self.name,
                        col(Review.claimed_at) < now - timedelta(seconds=CLAIM_SECONDS),
                    ),
                )
                .values(claimed_by=self.name, claimed_at=now)
            )
            return bool(claimed.rowcount == 1)  # type: ignore[attr-defined]

    def review(self, code: str, seat: int) -> None:
        """Weigh the seat's decisions from the first not yet reviewed, saving after each."""
        snapshot = self.service.load(code)
        if not self._claim(snapshot.room_id, seat):
            return  # done, or under way in another process
        actions = self.service.records.action_log(code)
        game = (snapshot.game, snapshot.players, snapshot.options, snapshot.seed, actions)
        decisions = self.workers.run(decisions_of, *game, seat)
        state = self.state(snapshot, seat)
        marks = list(state.marks)
        for index in range(state.reviewed, len(decisions)):
            decision = decisions[index]
            seed = hint_seed(code, decision.number, seat)
            mark = self.workers.run(
                review_decision,
                snapshot.game,
                decision.number,
                decision.view,
                seat,
                decision.legal,
                decision.played,
                seed,
                REVIEW_BUDGET,
            )
            if mark is not None:
                marks.append(mark)
            self._save(snapshot, seat, len(decisions), index + 1, marks)
        self._save(snapshot, seat, len(decisions), len(decisions), marks, done=True)

    def _save(
        self,
        snapshot: RoomSnapshot,
        seat: int,
        decisions: int,
        reviewed: int,
        marks: list[Any],
        done: bool = False,
    ) -> None:
        """Keep the review's progress, renewing the claim; ``ClaimLost`` if it is no longer ours."""
        now = utcnow()
        with self.service.writer.db.write() as session:
            saved = session.execute(
                update(Review)
                .where(
                    col(Review.room_id) == snapshot.room_id,
                    col(Review.seat) == seat,
                    col(Review.claimed_by) == self.name,
                )
                .values(
                    decisions=decisions,
                    reviewed=reviewed,
                    marks=json.dumps(marks),
                    status="done" if done else "queued",
                    updated_at=now,
                    claimed_at=now,
                )
            )
            if saved.rowcount != 1:  # type: ignore[attr-defined]
                raise ClaimLost(snapshot.code, seat)


def _abandoned(claimed_by: str | None, claimed_at: datetime | None, name: str) -> bool:
    """Whether a queued review waits for a reviewer other than ``name`` to run it: it is claimed by
    none yet (waiting in some process's queue), or its claim is too old (see ``Reviewer._claim``)."""
    if claimed_by is None or claimed_at is None:
        return True
    if claimed_by == name:  # under way here, or failed here: left for another process's reviewer
        return False
    if claimed_at.tzinfo is None:  # SQLite gives back what it kept, without the zone (UTC)
        claimed_at = claimed_at.replace(tzinfo=UTC)
    return utcnow() - claimed_at > timedelta(seconds=CLAIM_SECONDS)
