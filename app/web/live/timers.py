"""The timer: the one place time-driven changes start. Every tick it tells rooms whose seats turned
away, keeps in touch with the other processes and sweeps up undriven bots (every lease), marks the
rooms this process has tabs open on as in use (``ACTIVITY_EVERY``: each process its own tabs, so the
cleanup sweep keeps them), shows each room's tabs who is watching (``CROWD_EVERY``: spectators come and
go unseen between, so a crowd arriving costs each tab one push at most), and lets a bot decide for each seat whose clock ran out (one process runs
the clocks: the "clocks" lease)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from functools import lru_cache

from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool

from app.i18n import join_list
from app.lease import Leases
from app.rooms import RoomError, RoomService, RoomSnapshot
from app.web.live.bots import BotDriver
from app.web.live.fanout import Fanout, Tab
from app.web.live.presence import Crowd, Presence, crowd_of
from app.web.live.remote import Remote
from app.web.render import render_page

log = logging.getLogger(__name__)

ACTIVITY_EVERY = 600.0  # seconds: a room with tabs open is marked in use at least this often
CROWD_EVERY = 3.0  # seconds: who is watching is shown at most this often


@lru_cache(maxsize=256)
def crowd_html(crowd: Crowd, locale: str) -> str:
    """The "who is watching" line (``#watchers``), as every tab in one language is sent it."""
    return render_page(
        "platform/watchers.html",
        locale,
        oob=True,
        count=crowd.count,
        names=join_list(locale, crowd.names),
        more=crowd.count - len(crowd.names),
    )


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
        self.crowd_every = CROWD_EVERY
        self._crowd_at = clock()  # when who is watching was last shown
        self._named: dict[str, tuple[frozenset[str], dict[str, str]]] = {}  # room -> its viewers' names
        # room -> its open tabs -> the "who is watching" line each was last sent
        self._shown: dict[str, dict[Tab, str]] = {}

    async def run(self, tick: float) -> None:
        """Every ``tick`` seconds: tell rooms whose seats turned away, and let a bot decide for each
        seat whose clock ran out (``Turns.time_out`` makes sure each fires once)."""
        outage = False  # the database was out at the last tick: said once, not every tick
        while True:
            await asyncio.sleep(tick)
            try:
                await self.tick()
            except OperationalError as failure:  # refused or lost: the clocks wait for it to come back
                if not outage:
                    log.warning("timers wait for the database: %s", failure.orig)
                outage = True
                continue
            except Exception:  # a bug in one tick must not stop the clocks for good
                log.exception("timers failed")
                continue
            if outage:
                log.warning("timers run again: the database is back")
                outage = False

    async def tick(self) -> None:
        for code in self.presence.turned_away():
            await self.fanout.publish(code)
        await self.mark_in_use([code for code, room in self.fanout.rooms.items() if room.tabs])
        if self.clock() - self._crowd_at >= self.crowd_every:
            self._crowd_at = self.clock()
            await self.show_crowds()
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

    async def show_crowds(self) -> None:
        """For each room whose crowd may have changed since (a tab opened or closed here, another
        process's crowd changed, its chat named someone: ``Presence.crowd_changes``), count who
        watches here, tell the other processes if that changed, and send each tab the total if it
        differs from what the tab shows (its page starts with nobody). A room where nothing changed
        costs nothing: looking at all of them was ~15 ms on the event loop every 3 s at 1000 rooms."""
        pending = self.presence.crowd_changes()
        try:
            while pending:
                await self._show_crowd(pending[-1])
                pending.pop()
        finally:
            for code in pending:  # what a failure left: shown at the next tick
                self.presence.crowd_may_have_changed(code)

    async def _show_crowd(self, code: str) -> None:
        room = self.fanout.rooms.get(code)
        tabs = list(room.tabs) if room is not None else []
        here = crowd_of(tabs, await self._names(code, tabs))
        if here != self.remote.crowds_here.get(code, Crowd()):
            await self.remote.announce_crowd(code, here)
        total = self.presence.crowd(code, here)
        before = self._shown.pop(code, {})
        shown = {}
        for tab in tabs:
            html = shown[tab] = crowd_html(total, tab.locale)
            if before.get(tab, crowd_html(Crowd(), tab.locale)) != html:
                tab.push(html)
        if shown:
            self._shown[code] = shown
        if room is None:
            self._named.pop(code, None)

    async def _names(self, code: str, tabs: list[Tab]) -> dict[str, str]:
        """The names the room's spectators here gave in chat (read again only when they or the chat
        changed)."""
        viewers = frozenset(tab.viewer for tab in tabs if tab.seat is None and tab.viewer)
        stale = self.presence.names_stale(code)
        known = self._named.get(code)
        if known is not None and known[0] == viewers and not stale:
            return known[1]
        names: dict[str, str] = {}
        if viewers:
            try:
                names = await run_in_threadpool(self.service.chat.spectator_names, code, viewers)
            except RoomError:
                names = {}
        self._named[code] = (viewers, names)
        return names
