"""How a server process uses Python's cycle collector (``python -m app`` starts a ``Collector``;
with ``BOURSE_PLAIN=1`` it freezes what exists once after start-up instead).

CPython's collector looks at every object of the generations it collects in one pass, holding the
interpreter lock: while it runs, no room moves. A server of a thousand rooms tracks hundreds of
thousands of objects (each tab's socket holds its coroutines, buffers and handshake), and every move
leaves new ones (a snapshot, its views, renderings) that live until the room's next move. Left to
itself the collector promoted them to its oldest generation, and each time a quarter of what that held
had come in, it looked at all of it again: pauses long enough to show in every room's latency
(BENCHMARKS.md). Its young passes grew too: a move's objects replace the last move's, so the count
that starts a young pass (allocations less deallocations) hardly rises while what it looks at does.

So every tenth of a second the young objects are collected and what survived is frozen
(``gc.freeze``): no pass looks at it again, and it is freed as usual when nothing refers to it any
more. A frozen object is no longer collected as part of a garbage cycle, though. Playing makes
none; opening pages and sockets leaves some. So every ``full_every`` seconds everything is unfrozen
and collected in one full pass: the pause of before, once in ten minutes instead of several times a
minute.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

FREEZE_EVERY = 0.1  # seconds between freezes: what a young pass looks at is at most this old
FULL_EVERY = 600.0  # seconds between full passes over everything (the garbage cycles frozen meanwhile)


class Collector:
    """Runs the process's young passes and freezes on a thread of its own, a full pass now and then."""

    def __init__(
        self,
        freeze_every: float = FREEZE_EVERY,
        full_every: float = FULL_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.freeze_every = freeze_every
        self.full_every = full_every
        self.clock = clock
        self.full_at = clock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Collect and freeze what exists now (modules, templates' code, the app: it lives as long
        as the process), then keep freezing on a daemon thread."""
        self.full()
        self._thread = threading.Thread(target=self._run, name="collector", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        while not self._stopping.wait(self.freeze_every):
            self.tick()

    def tick(self) -> None:
        """A young pass and a freeze; a full pass instead when ``full_every`` has gone by."""
        if self.clock() - self.full_at >= self.full_every:
            self.full()
            return
        gc.collect(1)
        gc.freeze()

    def full(self) -> None:
        """Unfreeze everything, collect it all in one pass, freeze what survived."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.full_at = self.clock()
        log.debug(
            "full collection: %d unreachable objects, %.0f ms", found, (time.perf_counter() - started) * 1000
        )
