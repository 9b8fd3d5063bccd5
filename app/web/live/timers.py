"""The timer: the one place time-driven changes start. Every tick it tells rooms whose seats turned
away, keeps in touch with the other processes and sweeps up undriven bots (every lease), marks the
rooms this process has tabs open on as in use (``ACTIVITY_EVERY``: each process its own tabs, so the
cleanup sweep keeps them), and lets a bot decide for each seat whose clock ran out (one process runs
the clocks: the "clocks" lease)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool

from app.lease import Leases
from app.rooms import RoomError, RoomService, RoomSnapshot
from app.web.live.bots import BotDriver
from app.web.live.fanout import Fanout
from app.web.live.presence import Presence
from app.web.live.remote import Remote

log = logging.getLogger(__name__)

ACTIVITY_EVERY = 600.0  # seconds: a room with tabs open is marked in use at least this often


class Timers:
    def __init__(
        self,
        service: RoomService,
        leases: Leases,
        clock: Callable[[], float],
        fanout: Fanout,
        presence: Presence,
        remote: Remote,
        bots: BotDriver,
        after_change: Callable[[str, RoomSnapshot], Awaitable[None]],
    ) -> None:
        self.service = service
        self.leases = leases
        self.clock = clock
        self.fanout = fanout
        self.presence = presence
        self.remote = remote
        self.bots = bots
        self.after_change = after_change  # publishes a clock's change and lets the bots answer it
        self._swept_at = clock()  # when rooms whose bots nobody drives were last looked for
        self.activity_every = ACTIVITY_EVERY
        self._marked_at: dict[str, float] = {}  # open room -> when it was last marked in use

    async def run(self, tick: float) -> None:
        """Every ``tick`` seconds: tell rooms whose seats turned away, and let a bot decide for each
        seat whose clock ran out (``Turns.time_out`` makes sure each fires once)."""
        while True:
            await asyncio.sleep(tick)
            try:
                await self.tick()
            except Exception:  # a busy database must not stop the clocks for good
                log.exception("timers failed")

    async def tick(self) -> None:
        for code in self.presence.turned_away():
            await self.fanout.publish(code)
        await self.mark_in_use([code for code, room in self.fanout.rooms.items() if room.tabs])
        if self.remote.shared and self.clock() - self._swept_at >= self.leases.seconds:
            self._swept_at = self.clock()
            await self.remote.keep_in_touch()
            await self.bots.sweep()
        if not await self.leases.hold("clocks"):
            return  # another process runs the clocks
        for code, seat, version in await run_in_threadpool(self.service.turns.due_deadlines):
            try:
                snapshot = await run_in_threadpool(self.service.load, code)
                away = seat in self.presence.away(code, snapshot)
                after = await run_in_threadpool(self.service.turns.time_out, code, seat, version, away)
            except RoomError as refused:
                log.warning("clock of room %s seat %s: %s", code, seat, refused)
                continue
            if after is not None:
                await self.after_change(code, after)

    async def mark_in_use(self, codes: Iterable[str]) -> None:
        """Touch the rooms ``codes`` (tabs are open on them) unless marked within ``activity_every``:
        open tabs are activity, so the cleanup sweep keeps these rooms."""
        now = self.clock()
        recent = now - self.activity_every
        self._marked_at = {code: at for code, at in self._marked_at.items() if at > recent}
        due = [code for code in codes if code not in self._marked_at]
        if not due:
            return
        self._marked_at.update(dict.fromkeys(due, now))
        try:
            await run_in_threadpool(self.service.sweeper.touch, due)
        except OperationalError as failure:  # a read-only or full disk: the tabs go on all the same
            log.warning("could not mark %d open rooms in use: %s", len(due), failure.orig)
