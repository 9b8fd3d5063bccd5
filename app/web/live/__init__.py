"""Live updates: one WebSocket per browser tab, and the bots that play on the server.

One file per concern, importing one way only (each from those above it):

* ``fanout.py``: the publishing core: tabs, their outboxes and ``Fanout.publish`` (its
  docstring states the invariants a change to publishing must keep);
* ``presence.py``: which seats have a tab open, here or elsewhere, and which are away;
* ``chat.py``: chat lines pushed to a room's tabs as they are;
* ``bots.py``: the bots this process drives, under a lease per room;
* ``remote.py``: what the other processes say and are told (``app/broadcast.py``);
* ``timers.py``: the timer: seats that turned away, clocks that ran out, undriven bots.

``LiveRooms`` composes them and is what the routes use: a tab joins and leaves, a change is
published, its bots are let answer, and the other processes are told.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool

from app.broadcast import Broadcast
from app.lease import Leases
from app.metrics import timed_publish
from app.rooms import ChatLine, RoomError, RoomService, RoomSnapshot
from app.web.live.bots import BotDriver
from app.web.live.chat import Chat, ChatDrawer
from app.web.live.fanout import OUTBOX_LIMIT, Fanout, RoomLive, Tab
from app.web.live.presence import Presence
from app.web.live.remote import Remote
from app.web.live.timers import Timers

__all__ = ["OUTBOX_LIMIT", "LiveRooms", "RoomLive", "Tab"]  # what the routes and tests import


class LiveRooms:
    def __init__(
        self,
        service: RoomService,
        bot_delay: float,
        window_delay: float = 0.0,
        away_grace: float = 120.0,
        clock: Callable[[], float] = time.monotonic,
        broadcast: Broadcast | None = None,
        leases: Leases | None = None,
        draw_chat: ChatDrawer | None = None,
    ) -> None:
        self.service = service
        self.leases = leases or Leases()
        self.rooms: dict[str, RoomLive] = {}  # this process's open rooms, read by every part
        self.presence = Presence(self.rooms, clock, away_grace)
        self.fanout = Fanout(service, self.rooms, self.presence)
        self.joining = 0  # sockets accepted whose tab has not joined its room yet (idle() waits for them)
        broadcast = broadcast or Broadcast()
        self.chat = Chat(self.rooms, broadcast, draw_chat)
        self.bots = BotDriver(service, self.leases, bot_delay, window_delay, moved=self._bot_moved)
        self.remote = Remote(broadcast, self.leases, clock, self.fanout, self.presence, self.chat, self.bots)
        self.timers = Timers(
            service, self.leases, clock, self.fanout, self.presence, self.remote, self.bots, self.after_change
        )

    async def start(self) -> None:
        """Listen to the other processes (from the app's start to ``stop``)."""
        await self.remote.start()

    async def stop(self) -> None:
        await self.remote.stop()
        await self.leases.close()

    async def join(self, code: str, tab: Tab) -> None:
        """A tab opens: it gets its page; the others hear of it only if a seat came online."""
        # An open tab is activity: the cleanup sweep keeps the room. Marked before the room's live state
        # is opened, as nothing may be awaited between opening it and adding the tab: a publish finishing
        # meanwhile drops a room without tabs, and the tab would join a room nobody publishes to.
        await self.timers.mark_in_use([code])
        room = self.fanout.open(code)
        new_here = tab.seat is not None and tab.seat not in room.connected()
        newly_present = new_here and tab.seat not in self.presence.elsewhere(code)
        room.tabs.add(tab)
        self.presence.crowd_may_have_changed(code)
        if new_here:
            await self.remote.announce_presence(code)
        if newly_present and tab.seat is not None:
            self.presence.came_back(code, tab.seat)
        if not newly_present and not room.lock.locked() and self.fanout.join_from_memory(room, tab, code):
            return
        await self.fanout.publish(code, only=None if newly_present else tab)

    async def leave(self, code: str, tab: Tab) -> None:
        room = self.rooms.get(code)
        if room is None:
            return
        room.tabs.discard(tab)
        self.presence.crowd_may_have_changed(code)
        tab.outbox.put_nowait(None)
        gone_here = tab.seat is not None and tab.seat not in room.connected()
        gone = gone_here and tab.seat not in self.presence.elsewhere(code)
        if gone and tab.seat is not None:
            self.presence.went(code, tab.seat)
        if gone_here:
            await self.remote.announce_presence(code)
        if not room.tabs:
            if not room.lock.locked():
                self.rooms.pop(code, None)
            return
        if gone:
            await self.fanout.publish(code)  # that seat went offline

    def is_open(self, code: str) -> bool:
        """Whether this process has tabs open on the room (so it exists)."""
        room = self.rooms.get(code)
        return room is not None and bool(room.tabs)

    async def after_change(self, code: str, changed: RoomSnapshot | None = None) -> None:
        """Publish a change (``changed``: the snapshot it committed, if the caller has it), tell the
        other processes, and let the room's bots answer it."""
        with timed_publish(code in self.rooms):
            await self.fanout.publish(code, changed=changed)
        try:
            room = changed if changed is not None else await run_in_threadpool(self.service.load, code)
        except RoomError:
            return
        await self.remote.announce_version(code, room.version)
        if room.status == "playing" and any(seat.played_by_bot for seat in room.seats):
            self.bots.kick(code)

    async def _bot_moved(self, code: str) -> None:
        with timed_publish(code in self.rooms):
            await self.fanout.publish(code)
        if self.remote.shared:
            room = await run_in_threadpool(self.service.load, code)
            await self.remote.announce_version(code, room.version)

    def page_regions(self, snapshot: RoomSnapshot, seat: int | None, locale: str) -> dict[str, str]:
        """A room page's regions (its tab connects later with the page's version)."""
        return self.fanout.page_regions(snapshot, seat, locale)

    def connected(self, code: str) -> frozenset[int]:
        """The seats with a tab open on any process."""
        return self.presence.connected(code)

    def away(self, code: str, snapshot: RoomSnapshot) -> frozenset[int]:
        """The people's seats that have had no tab open for longer than the grace period."""
        return self.presence.away(code, snapshot)

    async def share_chat(self, code: str, game: str, line: ChatLine) -> None:
        """Push a new chat line to the room's tabs, in this process and the others."""
        self.presence.wrote(code)
        await self.chat.share(code, game, line)

    async def idle(self) -> None:
        """Wait until no socket is joining, no bot task or publish runs and every push is sent (tests:
        a client's connect returns once its socket is accepted, before its tab has joined)."""
        while self.joining or self.fanout.busy() or self.bots.busy():
            await asyncio.sleep(0.01)
