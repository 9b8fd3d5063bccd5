"""The bots that play on the server: one task per room drives its bots while a lease
(``app/lease.py``) says this process is the one that does, so exactly one process drives a room's
bots. Rooms whose bots nobody drives (their driver died) are swept up every ``leases.seconds``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from starlette.concurrency import run_in_threadpool

from app.lease import Leases
from app.rooms import RoomError, RoomService

log = logging.getLogger(__name__)


class BotDriver:
    def __init__(
        self,
        service: RoomService,
        leases: Leases,
        delay: float,
        window_delay: float,
        moved: Callable[[str], Awaitable[None]],
    ) -> None:
        self.service = service
        self.leases = leases
        self.delay = delay  # seconds before each bot move
        self.window_delay = window_delay  # more while a person may use an option the move would close
        self.moved = moved  # tells the room's tabs, here and elsewhere, of a bot's move
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._rerun: set[str] = set()

    def kick(self, code: str) -> None:
        """Make sure bots of this room get to move (call after every change)."""
        task = self._tasks.get(code)
        if task is not None and not task.done():
            self._rerun.add(code)
            return
        self._tasks[code] = asyncio.create_task(self._drive(code))

    def changed_elsewhere(self, code: str) -> None:
        """Another process changed the room: if this one drives its bots, they may have a move now."""
        if code in self._tasks:
            self._rerun.add(code)

    async def _drive(self, code: str) -> None:
        lease = f"bots:{code}"
        try:
            await self._play(code, lease)
        finally:
            if self._tasks.get(code) is asyncio.current_task():
                del self._tasks[code]
                self._rerun.discard(code)
            await self.leases.release(lease)

    async def _play(self, code: str, lease: str) -> None:
        while True:
            await asyncio.sleep(self.delay)
            if not await self.leases.hold(lease):
                return  # another process drives them
            if self.window_delay and await run_in_threadpool(self.service.turns.window_open_for_people, code):
                await asyncio.sleep(self.window_delay)  # let people use an option the bot's move would close
                if not await self.leases.hold(lease):
                    return
            try:
                acted = await run_in_threadpool(self.service.turns.bot_step, code)
            except RoomError as refused:
                log.warning("bots of room %s stopped: %s", code, refused)
                acted = False
            except Exception:
                log.exception("bots of room %s stopped", code)
                return
            if acted:
                await self.moved(code)
                continue
            if code in self._rerun:
                self._rerun.discard(code)
                continue
            return

    async def sweep(self) -> None:
        """Drive the bots of playing rooms that no process drives (their driver died): one query
        and one look at the leases, every ``leases.seconds``."""
        codes = await run_in_threadpool(self.service.turns.rooms_with_bots)
        for name in await self.leases.unheld(f"bots:{code}" for code in codes):
            self.kick(name.removeprefix("bots:"))

    def busy(self) -> bool:
        """Whether a room's bots are being driven."""
        return any(not task.done() for task in self._tasks.values())
