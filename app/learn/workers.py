"""Where hints and reviews are thought: niced worker processes of their own, capped in number.

A search is pure Python and would hold the server's interpreter lock (and so its event loop) for
its whole budget; here it runs in a process of its own, below the strong bots' priority
(``app.bots.apart``), so the tables' own moves come first. At most ``HINTS_AT_ONCE`` hints are
thought at once in a process (another asker is told the coach is busy, 503, and retries), and a
hint asked again at the same moment is answered from a small cache.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

from app.games.base import N_, View
from app.learn.hints import HINT_BUDGET, Weighed, weigh_options
from app.rooms import RoomError

NICENESS = 15  # below the strong bots' worker (10): a table's bot moves before anyone's hint
WORKERS = 2  # one for a review's next decision, one for hints
HINTS_AT_ONCE = 2
HINTS_KEPT = 256
READY_WAIT = 15.0  # seconds a first hint waits for the workers to start

T = TypeVar("T")


class Busy(RoomError):
    status = 503


BUSY = N_("The coach is busy with other tables; ask again in a few seconds.")


def _lower_priority() -> None:
    os.nice(NICENESS)


def _ready() -> bool:
    return True


class LearnWorkers:
    """The worker processes (started by the first hint or review; a server nobody asks never starts
    them). ``processes=False`` thinks in the asking thread instead (the tests)."""

    def __init__(self, processes: bool = True) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._hints = threading.BoundedSemaphore(HINTS_AT_ONCE)
        self._kept: OrderedDict[tuple[str, int, int], list[Weighed]] = OrderedDict()

    def _start(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                context = multiprocessing.get_context("spawn")  # no copy of the server's threads and sockets
                self._pool = ProcessPoolExecutor(WORKERS, mp_context=context, initializer=_lower_priority)
                self._pool.submit(_ready).add_done_callback(lambda _: self._ready.set())
            return self._pool

    def stop(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
                self._ready.clear()

    def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a worker (blocking the calling thread, never the event loop)."""
        if not self.processes:
            return work(*args)
        pool = self._start()
        self._ready.wait(READY_WAIT)
        job: Future[T] = pool.submit(work, *args)
        return job.result()

    def hint(
        self,
        key: tuple[str, int, int],
        game_id: str,
        view: View,
        seat: int,
        legal: list[dict[str, Any]],
        seed: int,
    ) -> list[Weighed]:
        """The weighed options for one seat at one moment (``key``: room code, version, seat)."""
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        if not self._hints.acquire(blocking=False):
            raise Busy(BUSY)
        try:
            deadline = time.monotonic() + HINT_BUDGET.seconds
            options = self.run(weigh_options, game_id, view, seat, legal, seed, HINT_BUDGET, deadline)
        finally:
            self._hints.release()
        with self._lock:
            self._kept[key] = options
            while len(self._kept) > HINTS_KEPT:
                self._kept.popitem(last=False)
        return options
