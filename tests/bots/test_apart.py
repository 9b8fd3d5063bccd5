"""Strong decisions in the server's worker process (``app/bots/apart.py``): the same move as in-process
for the same seed, and none waits for the worker to start."""

from __future__ import annotations

import random
import time

from app.bots import Thought, fits
from app.bots.apart import Thinkers
from app.bots.search import strong_action
from app.games.base import Budget, view_without_log
from app.games.registry import ENGINES

BUDGET = Budget(seconds=60, iterations=6)  # a clock that never cuts: the moves compare exactly


def test_the_worker_thinks_the_same_move_and_none_waits_for_it_to_start() -> None:
    engine = ENGINES["tulipmania-1637"]
    state = engine.setup(4, {}, 8)
    seat = engine.to_act(state)[0]
    view, legal = view_without_log(engine, state, seat), engine.legal_actions(state, seat)
    here = strong_action(engine, view, seat, legal, random.Random(4), BUDGET)
    thinkers = Thinkers()
    try:
        first = thinkers.search(engine, view, seat, legal, random.Random(4), BUDGET, Thought())
        assert first == here  # searched in this thread while the worker starts
        waited = time.monotonic()
        while not thinkers.ready:
            assert time.monotonic() - waited < 60, "the worker never started"
            time.sleep(0.05)
        thought = Thought()
        apart = thinkers.search(engine, view, seat, legal, random.Random(4), BUDGET, thought)
        assert apart == here and fits(apart, legal)
        assert thought.playouts == BUDGET.iterations and thought.candidates > 1
    finally:
        thinkers.stop()
