"""Strong decisions thought in a process of their own, at a lower priority, for the web server.

A search is pure Python: in one of the server's threads it would hold the interpreter lock for most of
its budget, and the event loop (every other room's moves, pushes and pages) would wait for it. Here
every room's strong decisions go to one worker process, niced (``NICENESS``, ``app.thinkers``), so the
server's own work comes first on a busy machine. A decision's latency cap runs from the moment it is asked: one that
waited behind other rooms' searches gets what is left of it (at worst the normal bot's move, never a
late one); its playouts and CPU allowance are counted in the worker (``app.bots.search``). The simulator and the tests search in-process (``app.bots.search``).
"""

from __future__ import annotations

import multiprocessing
import random
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from app.bots.search import LATENCY_SHARE, Thought, strong_action
from app.games.base import Action, Budget, Engine, View
from app.games.registry import ENGINES
from app.thinkers import start_worker

NICENESS = 10


class Thinkers:
    """The worker process strong bots think in: started by the first strong decision (a server whose
    rooms have no strong bot never starts it), stopped with the server. Until it is ready, which takes
    a moment, strong decisions are searched in the asking thread, so none waits for it."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()

    def _start(self) -> None:
        with self._lock:
            if self._pool is not None:
                return
            context = multiprocessing.get_context("spawn")  # no copy of the server's threads and sockets
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=start_worker, initargs=(NICENESS,)
            )
            self._pool.submit(_ready).add_done_callback(lambda _: self._ready.set())

    def stop(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
                self._ready.clear()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def search(
        self,
        engine: Engine,
        view: View,
        seat: int,
        legal: list[dict[str, Any]],
        rng: random.Random,
        budget: Budget,
        thought: Thought,
    ) -> Action:
        """``strong_action`` in the worker; ``thought`` is filled in with how it went."""
        self._start()
        if self._pool is None or not self._ready.is_set():
            return strong_action(engine, view, seat, legal, rng, budget, thought)
        deadline = time.monotonic() + LATENCY_SHARE * budget.seconds  # the wait for the worker counts
        job = self._pool.submit(_search, engine.info.id, view, seat, legal, rng.getstate(), budget, deadline)
        action, done = job.result()
        thought.playouts, thought.candidates, thought.cut_by_clock, thought.cpu_seconds = (
            done.playouts,
            done.candidates,
            done.cut_by_clock,
            done.cpu_seconds,
        )
        return action


def _ready() -> bool:
    return bool(ENGINES)


def _search(
    game: str,
    view: View,
    seat: int,
    legal: list[dict[str, Any]],
    rng_state: Any,
    budget: Budget,
    deadline: float,
) -> tuple[Action, Thought]:
    rng = random.Random()
    rng.setstate(rng_state)
    thought = Thought()
    action = strong_action(ENGINES[game], view, seat, legal, rng, budget, thought, deadline)
    return action, thought
