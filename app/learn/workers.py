"""Where hints and reviews are thought: niced worker processes of their own, capped in number.

A search is pure Python and would hold the server's interpreter lock (and so its event loop) for
its whole budget; here it runs in processes of its own, below the server's priority and in its
scheduling group (``app.thinkers``), so the tables' own moves come first. Hints and reviews have a pool each: a person waits for a hint as for a strong
bot's move, so hints are thought at the strong bots' priority (``app.bots.apart``), in processes
started as soon as a seat of a table that allows hints opens its page (``warm``: a hint that waited
for a process to start and import the games took seconds on a busy host); a review is background
work at a lower priority, in one process started by the first review. At most ``HINTS_AT_ONCE``
hints are thought at once in a server process (another asker is told the coach is busy, 503, and
retries), and a hint asked again at the same moment is answered from a small cache.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

from app.games.base import N_, Budget, View, view_without_log
from app.games.registry import ENGINES
from app.learn.hints import HINT_BUDGET, HINT_HARD_SECONDS, Weighed, weigh_options
from app.rooms import RoomError
from app.thinkers import start_worker

HINT_NICENESS = 10  # the strong bots' worker's: a table's moves come first, a person waits for both
REVIEW_NICENESS = 15  # below the hints: nobody waits on a review's next decision
HINTS_AT_ONCE = 2  # a hint pool's processes
HINTS_KEPT = 256
READY_WAIT = 15.0  # seconds a first hint or review waits for its process to start
WARM_UP = Budget(seconds=5.0, iterations=1)  # a process's first task: each game's search, once

T = TypeVar("T")


class Busy(RoomError):
    status = 503


BUSY = N_("The coach is busy with other tables; ask again in a few seconds.")


def _ready() -> bool:
    """A new process's first task: each game's search played once (one playout of its first
    decision), so that no hint waits for what a game imports or makes on its first use."""
    for game_id, engine in ENGINES.items():
        state = engine.setup(engine.info.min_players, {}, 0)
        seat = engine.to_act(state)[0]
        view, legal = view_without_log(engine, state, seat), engine.legal_actions(state, seat)
        weigh_options(game_id, view, seat, legal, 0, WARM_UP)
    return True


class _Pool:
    """Worker processes of one priority, started once (spawned: no copy of the server's threads
    and sockets), stopped with the server."""

    def __init__(self, workers: int, niceness: int) -> None:
        self.workers = workers
        self.niceness = niceness
        self._pool: ProcessPoolExecutor | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()

    def start(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=start_worker,
                    initargs=(self.niceness,),
                )
                # one task a process, so that every one of them has started and imported the games
                for _ in range(self.workers):
                    self._pool.submit(_ready).add_done_callback(lambda _: self._ready.set())
            return self._pool

    def stop(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
                self._ready.clear()

    def ready(self) -> ProcessPoolExecutor:
        """The pool, once a process of it has started (or ``READY_WAIT`` has passed)."""
        pool = self.start()
        self._ready.wait(READY_WAIT)
        return pool

    def run(self, work: Callable[..., T], *args: Any) -> T:
        job: Future[T] = self.ready().submit(work, *args)
        return job.result()


class LearnWorkers:
    """The hints' and the reviews' worker processes (a server nobody asks never starts them).
    ``processes=False`` thinks in the asking thread instead (the tests)."""

    def __init__(self, processes: bool = True) -> None:
        self.processes = processes
        self._hint_pool = _Pool(HINTS_AT_ONCE, HINT_NICENESS)
        self._review_pool = _Pool(1, REVIEW_NICENESS)
        self._lock = threading.Lock()
        self._hints = threading.BoundedSemaphore(HINTS_AT_ONCE)
        self._kept: OrderedDict[tuple[str, int, int], list[Weighed]] = OrderedDict()

    def warm(self) -> None:
        """Start the hints' processes now, without waiting for them: a seat of a table that allows
        hints opened its page, and its first hint should not wait for them."""
        if self.processes:
            self._hint_pool.start()

    def stop(self) -> None:
        self._hint_pool.stop()
        self._review_pool.stop()

    def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in the reviews' process (blocking the calling thread, never the event loop)."""
        if not self.processes:
            return work(*args)
        return self._review_pool.run(work, *args)

    def hint(
        self,
        key: tuple[str, int, int],
        game_id: str,
        view: View,
        seat: int,
        legal: list[dict[str, Any]],
        seed: int,
    ) -> list[Weighed]:
        """The weighed options for one seat at one moment (``key``: room code, version, seat), by
        ``HINT_HARD_SECONDS`` from the moment a process can think it (a process not yet started, as
        when the page did not start them, is waited for first: the answer then still rests on
        playouts, only later). Its process is free: there are as many as hints thought at once."""
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        if not self._hints.acquire(blocking=False):
            raise Busy(BUSY)
        try:
            pool = self._hint_pool.ready() if self.processes else None
            asked = time.monotonic()
            deadline, hard = asked + HINT_BUDGET.seconds, asked + HINT_HARD_SECONDS
            args = (game_id, view, seat, legal, seed, HINT_BUDGET, deadline, hard)
            options = weigh_options(*args) if pool is None else pool.submit(weigh_options, *args).result()
        finally:
            self._hints.release()
        with self._lock:
            self._kept[key] = options
            while len(self._kept) > HINTS_KEPT:
                self._kept.popitem(last=False)
        return options
