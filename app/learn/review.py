"""The review after the game: the search over each of one seat's decisions, marking those where
another option was clearly better, and what it would have changed (as lichess marks a game's
inaccuracies and mistakes).

Each decision is weighed as a hint is (``app.learn.hints``): from the seat's view at that moment
alone, the move played among the candidates, every playout to the game's end. A review is kept
with the room (``models.Review``), filled in a decision at a time, so a restart resumes it; the
``Reviewer`` reviews one game at a time per process, each decision in the niced workers.
"""

from __future__ import annotations

import json
import logging
import math
import random
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import col, select

from app.bots.search import Candidate, Floor, weigh
from app.games.base import N_, Action, Budget, Engine, View, view_without_log
from app.games.registry import ENGINES, search_hooks_of
from app.learn.coaching import option_message
from app.learn.hints import hint_seed
from app.learn.workers import LearnWorkers
from app.models import Review, Room, utcnow
from app.replay import Replay, replay_game
from app.rooms import RoomError, RoomService, RoomSnapshot

log = logging.getLogger(__name__)

REVIEW_BUDGET = Budget(seconds=1.5, iterations=160)  # a decision's: a whole game's review in minutes
REVIEW_CANDIDATES = 4  # the move played and three others
REVIEW_FLOOR_ROUNDS = 3  # rounds the clock may not cut, unless REVIEW_HARD_SECONDS have gone
REVIEW_HARD_SECONDS = 6.0
INACCURACY = 0.15  # the share of games won another option gains over the move played: marked
MISTAKE = 0.3  # ... and called a mistake
MIN_ROUNDS = 3  # an option must have been compared with the move played over this many worlds
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


def review_decision(
    game_id: str,
    number: int,
    view: View,
    seat: int,
    legal: list[dict[str, Any]],
    played: Action,
    seed: int,
    budget: Budget = REVIEW_BUDGET,
    deadline: float = math.inf,
) -> dict[str, Any] | None:
    """A mark for this decision if another option was clearly better than the move played: by at
    least ``INACCURACY`` of the games won, over at least ``MIN_ROUNDS`` worlds; else None."""
    engine = ENGINES[game_id]
    hooks = replace(search_hooks_of(game_id), playout_over=None, position_value=None)
    floor = Floor(REVIEW_FLOOR_ROUNDS, time.monotonic() + REVIEW_HARD_SECONDS)
    candidates = weigh(
        engine,
        view,
        seat,
        legal,
        random.Random(seed),
        budget,
        deadline,
        hooks,
        floor=floor,
        most=REVIEW_CANDIDATES,
        first=played,
    )
    mine, others = candidates[0], candidates[1:]
    best: Candidate | None = None
    best_gain = 0.0
    for other in others:
        rounds = [r for r in other.wins if r in mine.wins]
        if other.refused or len(rounds) < MIN_ROUNDS:
            continue
        gain = sum(other.wins[r] - mine.wins[r] for r in rounds) / len(rounds)
        if gain >= INACCURACY and gain > best_gain:
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


@dataclass(frozen=True)
class ReviewState:
    status: str  # none | queued | done
    decisions: int = 0
    reviewed: int = 0
    marks: tuple[dict[str, Any], ...] = ()


NO_REVIEW = ReviewState("none")


class Reviewer:
    """Reviews finished games one at a time, in a thread of its own, each decision in the workers;
    asked again, a review already kept is read back."""

    def __init__(self, service: RoomService, workers: LearnWorkers) -> None:
        self.service = service
        self.workers = workers
        self._queue: deque[tuple[str, int]] = deque()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def state(self, snapshot: RoomSnapshot, seat: int) -> ReviewState:
        with self.service.writer.db.read() as session:
            row = session.exec(
                select(Review).where(Review.room_id == snapshot.room_id, Review.seat == seat)
            ).first()
        if row is None:
            return NO_REVIEW
        return ReviewState(row.status, row.decisions, row.reviewed, tuple(json.loads(row.marks)))

    def ask(self, snapshot: RoomSnapshot, seat: int) -> ReviewState:
        """Queue the review of ``seat``'s game (once: a review asked again is the same one)."""
        if snapshot.status != "finished":
            raise RoomError(NOT_OVER)
        state = self.state(snapshot, seat)
        if state.status != "none":
            return state
        with self.service.writer.db.write() as session:
            if (
                session.exec(
                    select(Review).where(Review.room_id == snapshot.room_id, Review.seat == seat)
                ).first()
                is None
            ):
                session.add(Review(room_id=snapshot.room_id, seat=seat))
        self._enqueue(snapshot.code, seat)
        return ReviewState("queued")

    def resume(self) -> None:
        """Queue again every review a restart left unfinished."""
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
            except Exception:  # a review that fails stays queued for the next start; the rest go on
                log.exception("the review of seat %s in room %s failed", seat, code)
            with self._wake:
                self._queue.popleft()

    def review(self, code: str, seat: int) -> None:
        """Weigh the seat's decisions from the first not yet reviewed, saving after each."""
        snapshot = self.service.load(code)
        actions = self.service.records.action_log(code)
        replay = replay_game(snapshot.engine, snapshot.players, snapshot.options, snapshot.seed, actions)
        decisions = seat_decisions(snapshot.engine, replay, seat)
        state = self.state(snapshot, seat)
        marks = list(state.marks)
        for index in range(state.reviewed, len(decisions)):
            decision = decisions[index]
            seed = hint_seed(code, decision.number, seat)
            deadline = time.monotonic() + REVIEW_BUDGET.seconds
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
                deadline,
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
        with self.service.writer.db.write() as session:
            row = session.exec(
                select(Review).where(Review.room_id == snapshot.room_id, Review.seat == seat)
            ).one()
            row.decisions, row.reviewed, row.marks = decisions, reviewed, json.dumps(marks)
            row.status = "done" if done else "queued"
            row.updated_at = utcnow()
            session.add(row)
