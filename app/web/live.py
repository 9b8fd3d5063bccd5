"""Live updates: one WebSocket per browser tab, and the bots that play on the server.

After every change to a room, ``LiveRooms.publish`` renders each connected tab's regions from that
tab's seat view and sends only the regions whose HTML changed. This fan-out is in-process; running
several processes would put a pub/sub channel (Redis) behind ``publish``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool

from app.rooms import RoomError, RoomService, RoomSnapshot
from app.web.render import Table, oob_fragments, regions_container, render_regions, version_marker

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Tab:
    socket: WebSocket
    seat: int | None
    locale: str
    page_version: int | None = None  # the room version the tab's page was rendered at
    sent: dict[str, str] = field(default_factory=dict)
    version: int = -1


def make_table(snapshot: RoomSnapshot, seat: int | None, connected: set[int]) -> Table:
    result = snapshot.result
    return Table(
        code=snapshot.code,
        game=snapshot.game,
        status=snapshot.status,
        version=snapshot.version,
        players=[
            {
                "seat": s.seat,
                "name": s.name,
                "is_bot": s.is_bot,
                "bot_controlled": s.bot_controlled,
                "is_host": s.is_host,
                "connected": s.is_bot or s.seat in connected,
                "is_you": s.seat == seat,
            }
            for s in snapshot.seats
        ],
        to_act=snapshot.to_act(),
        result=result.to_json() if result is not None else None,
        next_code=snapshot.next_code,
        capacity=snapshot.players,
    )


def regions_for(snapshot: RoomSnapshot, seat: int | None, locale: str, connected: set[int]) -> dict[str, str]:
    table = make_table(snapshot, seat, connected)
    return render_regions(snapshot.engine, snapshot.state, seat, table, locale)


class LiveRooms:
    def __init__(self, service: RoomService, bot_delay: float, window_delay: float = 0.0) -> None:
        self.service = service
        self.bot_delay = bot_delay
        self.window_delay = window_delay
        self.tabs: dict[str, set[Tab]] = {}
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self._bot_rerun: set[str] = set()

    def connected(self, code: str) -> set[int]:
        return {tab.seat for tab in self.tabs.get(code, set()) if tab.seat is not None}

    async def join(self, code: str, tab: Tab) -> None:
        self.tabs.setdefault(code, set()).add(tab)
        await self.publish(code)  # the new tab gets everything; others see the new presence

    async def leave(self, code: str, tab: Tab) -> None:
        tabs = self.tabs.get(code, set())
        tabs.discard(tab)
        if not tabs:
            self.tabs.pop(code, None)
        await self.publish(code)

    async def publish(self, code: str) -> None:
        tabs = list(self.tabs.get(code, ()))
        if not tabs:
            return
        try:
            snapshot = await run_in_threadpool(self.service.load, code)
        except RoomError:
            return
        connected = self.connected(code)
        for tab in tabs:
            if snapshot.version < tab.version:
                continue  # a newer publish already reached this tab
            regions = regions_for(snapshot, tab.seat, tab.locale, connected)
            if not tab.sent and tab.page_version == snapshot.version:
                # The page already shows this version; re-sending it would wipe what the person is typing.
                message = oob_fragments(regions, ["seats"])  # presence may have changed since
            elif tab.sent.keys() != regions.keys():
                message = str(regions_container(regions, oob=True))
            else:
                changed = [region for region, html in regions.items() if tab.sent[region] != html]
                if not changed:
                    continue
                message = oob_fragments(regions, changed)
            if snapshot.version != tab.version:
                message += version_marker(snapshot.version)  # the table moved on: old errors go
            try:
                await tab.socket.send_text(message)
            except Exception:  # a closed socket: its own handler will leave
                continue
            tab.sent = regions
            tab.version = snapshot.version

    # ------------------------------------------------------------------ bots
    def kick_bots(self, code: str) -> None:
        """Make sure bots of this room get to move (call after every change)."""
        task = self._bot_tasks.get(code)
        if task is not None and not task.done():
            self._bot_rerun.add(code)
            return
        self._bot_tasks[code] = asyncio.create_task(self._drive_bots(code))

    async def _drive_bots(self, code: str) -> None:
        while True:
            await asyncio.sleep(self.bot_delay)
            if self.window_delay and await run_in_threadpool(self.service.window_open_for_people, code):
                await asyncio.sleep(self.window_delay)  # let people use an option the bot's move would close
            try:
                acted = await run_in_threadpool(self.service.bot_step, code)
            except RoomError as refused:
                log.warning("bots of room %s stopped: %s", code, refused)
                acted = False
            except Exception:
                log.exception("bots of room %s stopped", code)
                return
            if acted:
                await self.publish(code)
                continue
            if code in self._bot_rerun:
                self._bot_rerun.discard(code)
                continue
            return

    async def after_change(self, code: str) -> None:
        await self.publish(code)
        self.kick_bots(code)

    async def idle(self) -> None:
        """Wait until no bot task runs (tests)."""
        while any(not task.done() for task in self._bot_tasks.values()):
            await asyncio.sleep(0.01)
