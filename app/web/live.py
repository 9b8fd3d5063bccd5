"""Live updates: one WebSocket per browser tab, and the bots that play on the server.

After every change to a room, ``LiveRooms.publish`` brings each of the room's tabs up to date:

* each distinct viewer (a seat, or the spectators, in one language) is rendered once per version,
  and of its regions only those whose inputs changed (``RegionCache``); tabs that were sent the
  same thing get the same bytes;
* a tab is sent only the regions whose HTML differs from what it was sent, the game log's new lines,
  and a version stamp;
* a tab that opens gets its page's regions; the others only hear of it if the presence of a seat
  changed (spectators come and go unseen);
* the work runs in a worker thread, and publishing is ordered per room (a lock), so a tab's record
  of what it was sent is never overtaken by an older publish;
* each tab has its own outbox and sender task: a slow reader never holds up the room, and one that
  falls too far behind is disconnected (its page reconnects and is sent everything afresh).

Presence and clocks (issue 11) live here too: a seat whose tabs have all been closed for longer than
the grace period is *away* (everyone's seat list says so, pushed when it turns away), and the timer
(``run_timers``, the one place time-driven changes start) lets a bot decide for each seat whose clock
ran out. Chat messages are pushed to a room's tabs as they are, rendered once per language.

Several processes (issue 13) serve one room's tabs through a broadcast (``app/broadcast.py``): a
process that changes a room tells the others "room R is at version N" (and chat lines, and which
seats it has tabs for), and each brings its own tabs up to date from the database; the tabs of a
process that has said nothing for three leases (it died) count as closed. Leases
(``app/lease.py``) let exactly one process drive a room's bots, and one the clocks; a process sweeps
up rooms whose bots nobody drives (their driver died) every ``lease`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool

from app.broadcast import Broadcast, Message
from app.games.base import visible_events
from app.lease import Leases
from app.rooms import ChatLine, RoomError, RoomService, RoomSnapshot
from app.web.render import (
    EVENTS,
    RegionCache,
    Table,
    event_line,
    events_added,
    events_region,
    oob_fragments,
    regions_container,
    render_regions,
    seat_context,
    version_marker,
)

log = logging.getLogger(__name__)

ChatDrawer = Callable[[str, str, ChatLine], Callable[[str], str]]  # (game, room, line) -> draw(locale)
OUTBOX_LIMIT = 64  # messages a tab may fall behind before it is disconnected to catch up afresh
NOTHING_SENT: Mapping[str, str] = MappingProxyType({})  # shared, so fresh tabs share their first message


@dataclass(eq=False)
class Tab:
    socket: WebSocket
    seat: int | None
    locale: str
    page_version: int | None = None  # the room version the tab's page was rendered at
    sent: Mapping[str, str] = field(default_factory=lambda: NOTHING_SENT)  # region -> HTML the tab has
    version: int = -1
    events_seen: int = 0  # game-log events the tab shows
    outbox: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    closed: bool = False  # its sender has stopped
    unsent: int = 0  # messages pushed and not yet sent

    def push(self, message: str) -> None:
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.outbox.put_nowait(None)  # too far behind: close; the page reconnects afresh
            return
        self.unsent += 1
        self.outbox.put_nowait(message)

    async def send_pushes(self) -> None:
        """Send this tab's outbox in order until it closes (run as the tab's own task)."""
        try:
            while True:
                message = await self.outbox.get()
                if message is None:
                    with contextlib.suppress(Exception):
                        await self.socket.close(code=4408)
                    return
                await self.socket.send_text(message)
                self.unsent -= 1
        except Exception:  # a closed socket: its own handler will leave
            return
        finally:
            self.closed = True


def make_table(
    snapshot: RoomSnapshot,
    seat: int | None,
    connected: frozenset[int],
    away: frozenset[int] = frozenset(),
    match: Any = None,
) -> Table:
    result = snapshot.result
    return Table(
        code=snapshot.code,
        game=snapshot.game,
        status=snapshot.status,
        players=[
            {
                "seat": s.seat,
                "name": s.name,
                "is_bot": s.is_bot,
                "bot_strength": snapshot.bot_strengths.get(s.seat),
                "bot_controlled": s.bot_controlled,
                "is_host": s.is_host,
                "connected": s.is_bot or s.seat in connected,
                "away": s.seat in away,
                "deadline": s.deadline,  # epoch ms: the page counts down to it (a template never reads "now")
                "bot_turns": s.bot_turns,
                "is_you": s.seat == seat,
            }
            for s in snapshot.seats
        ],
        to_act=snapshot.to_act(),
        result=result.to_json() if result is not None else None,
        next_code=snapshot.next_code,
        capacity=snapshot.players,
        match=match,
    )


class Viewer:
    """One viewer's page at one version: a seat (or the spectators) in one language."""

    def __init__(
        self,
        room: RoomLive,
        snapshot: RoomSnapshot,
        seat: int | None,
        locale: str,
        connected: frozenset[int],
        away: frozenset[int] = frozenset(),
    ) -> None:
        self.room = room
        self.snapshot = snapshot
        self.seat = seat
        self.locale = locale
        match = room.match_of(snapshot) if room.match_of is not None else None
        self.table = make_table(snapshot, seat, connected, away, match)
        info = snapshot.seat(seat)
        context = seat_context(
            snapshot.engine,
            snapshot.core,
            seat,
            self.table,
            locale,
            legal=snapshot.legal(seat),
            form_version=info.legal_version if info is not None else snapshot.version,
        )
        self.regions = render_regions(snapshot.engine, context, snapshot.status, locale, room.cache)
        self._events: str | None = None

    @property
    def has_log(self) -> bool:
        return self.snapshot.status != "waiting"

    def lines(self, events: list[dict[str, Any]]) -> list[str]:
        """The lines of ``events`` this viewer may read, newest first."""
        visible = visible_events({"events": events}, self.seat)
        return [
            event_line(event, self.locale, self.snapshot.game, self.table.name_of)
            for event in reversed(visible)
        ]

    @property
    def page_ready(self) -> bool:
        """Whether its whole page is made (the game log needs a database read)."""
        return self._events is not None or not self.has_log

    def events_html(self) -> str:
        """The whole game log region (read once per viewer and version)."""
        if self._events is None:
            self._events = events_region(self.lines(self.snapshot.events), self.locale)
        return self._events

    def page_regions(self) -> dict[str, str]:
        return {**self.regions, EVENTS: self.events_html()} if self.has_log else dict(self.regions)


@dataclass(eq=False)
class RoomLive:
    """A room's open tabs and what is shared between them."""

    tabs: set[Tab] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    cache: RegionCache = field(default_factory=RegionCache)
    viewers: dict[tuple[int | None, str], Viewer] = field(default_factory=dict)
    viewers_key: tuple[int, frozenset[int], frozenset[int]] | None = None
    latest: RoomSnapshot | None = None  # the snapshot last published
    match_of: Callable[[RoomSnapshot], Any] | None = None  # the group's running score (Records.match_score)

    def connected(self) -> frozenset[int]:
        return frozenset(tab.seat for tab in self.tabs if tab.seat is not None)

    def viewer(
        self,
        snapshot: RoomSnapshot,
        seat: int | None,
        locale: str,
        connected: frozenset[int],
        away: frozenset[int] = frozenset(),
    ) -> Viewer:
        """The viewer for this version and presence, made once and shared by its tabs."""
        key = (snapshot.version, connected, away)
        if self.viewers_key != key:
            self.viewers, self.viewers_key = {}, key
        viewer = self.viewers.get((seat, locale))
        if viewer is None or viewer.snapshot is not snapshot:
            viewer = self.viewers[(seat, locale)] = Viewer(self, snapshot, seat, locale, connected, away)
        return viewer


def bring_up_to_date(tabs: list[Tab], viewers: dict[Tab, Viewer]) -> list[tuple[Tab, str]]:
    """What to send each tab so it shows its viewer's page; tabs in the same place share a message."""
    messages: dict[tuple[Any, ...], tuple[str, Mapping[str, str], int]] = {}
    out = []
    for tab in tabs:
        viewer = viewers[tab]
        version = viewer.snapshot.version
        key = (id(viewer), id(tab.sent), tab.version, tab.events_seen, tab.page_version == version)
        if key not in messages:
            messages[key] = _message_for(tab, viewer)
        message, sent, events_seen = messages[key]
        tab.sent, tab.version, tab.events_seen = sent, version, events_seen
        if message:
            out.append((tab, message))
    return out


def _message_for(tab: Tab, viewer: Viewer) -> tuple[str, Mapping[str, str], int]:
    snapshot = viewer.snapshot
    regions = viewer.regions
    if not tab.sent and tab.page_version == snapshot.version:
        # The page already shows this version; re-sending it would wipe what the person is typing.
        message = oob_fragments(regions, ["seats"])  # presence may have changed since
    elif tab.sent.keys() != regions.keys():
        message = str(regions_container(viewer.page_regions(), oob=True))
    else:
        changed = [region for region, html in regions.items() if tab.sent[region] != html]
        message = oob_fragments(regions, changed)
        if viewer.has_log and tab.events_seen != snapshot.events_total:
            added = snapshot.events_since(tab.events_seen)
            if added is None:  # fell too far behind for the recent events: the whole log
                message += oob_fragments({EVENTS: viewer.events_html()})
            else:
                message += events_added(viewer.lines(added))
    if snapshot.version != tab.version:
        message += version_marker(snapshot.version)  # the table moved on: old errors go
    return message, regions, snapshot.events_total


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
        self.broadcast = broadcast or Broadcast()
        self.leases = leases or Leases()
        self.draw_chat = draw_chat  # how a chat line another process heard is drawn here
        self.bot_delay = bot_delay
        self.window_delay = window_delay
        self.away_grace = away_grace
        self.clock = clock
        # A seat with no tab open since this process started counts as gone since then; one whose last
        # tab closed later is noted here until its grace period ends (so this holds only recent leavers).
        self._since = clock()
        self._started_away = False
        self._left: dict[str, dict[int, float]] = {}
        self.rooms: dict[str, RoomLive] = {}
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self._bot_rerun: set[str] = set()
        self._publishing = 0  # publishes under way (tests wait for them)
        self._remote: dict[str, dict[str, frozenset[int]]] = {}  # room -> process -> seats it has tabs for
        self._heard_from: dict[str, float] = {}  # process -> when it last said anything (it says "alive")
        self._swept_at = clock()  # when rooms whose bots nobody drives were last looked for

    # ------------------------------------------------------------------ other processes
    async def start(self) -> None:
        """Listen to the other processes (from the app's start to ``stop``)."""
        await self.broadcast.start(self.heard, self.resync)

    async def stop(self) -> None:
        await self.broadcast.stop()
        await self.leases.close()

    async def heard(self, message: Message) -> None:
        """A message of another process (see ``app/broadcast.py``)."""
        kind, code = message.get("kind"), message.get("room")
        self._heard_from[str(message.get("from"))] = self.clock()
        if kind == "alive":
            return
        if kind == "hello":  # a process started: tell it who is here
            for code in list(self.rooms):
                await self._announce_presence(code)
            return
        if not isinstance(code, str):
            return
        if kind == "version" and isinstance(message.get("version"), int):
            if code in self._bot_tasks:
                self._bot_rerun.add(code)  # we drive this room's bots: they may have a move now
            room = self.rooms.get(code)
            if room is not None and (room.latest is None or room.latest.version < message["version"]):
                await self.publish(code)
        elif kind == "presence" and isinstance(message.get("seats"), list):
            seats = frozenset(seat for seat in message["seats"] if isinstance(seat, int))
            remote = self._remote.setdefault(code, {})
            before = self.connected(code)
            if seats:
                remote[str(message.get("from"))] = seats
            else:
                remote.pop(str(message.get("from")), None)
                if not remote:
                    del self._remote[code]
            await self._presence_changed(code, before)
        elif kind == "chat" and self.draw_chat is not None and isinstance(message.get("line"), dict):
            try:
                line = ChatLine(**{k: v for k, v in message["line"].items() if k != "spectator"})
            except TypeError:
                return
            self.push_chat(code, self.draw_chat(str(message.get("game")), code, line))

    async def resync(self) -> None:
        """The broadcast was lost and is back: what it missed may have changed any room."""
        for code in list(self.rooms):
            await self.publish(code)
            await self._announce_presence(code)

    async def _announce_version(self, code: str, version: int) -> None:
        if self.broadcast.shared:
            await self.broadcast.send({"kind": "version", "room": code, "version": version})

    async def _announce_presence(self, code: str) -> None:
        if self.broadcast.shared:
            seats = sorted(self.connected_here(code))
            await self.broadcast.send({"kind": "presence", "room": code, "seats": seats})

    async def _keep_in_touch(self) -> None:
        """Say this process is alive, and forget the tabs of processes silent for three leases (they
        died without closing their tabs)."""
        await self.broadcast.send({"kind": "alive"})
        silent_since = self.clock() - 3 * self.leases.seconds
        silent = {origin for origin, heard in self._heard_from.items() if heard < silent_since}
        if not silent:
            return
        changed = {}
        for code, remote in list(self._remote.items()):
            if silent & remote.keys():
                changed[code] = self.connected(code)
                for origin in silent:
                    remote.pop(origin, None)
                if not remote:
                    del self._remote[code]
        for origin in silent:
            del self._heard_from[origin]
        for code, before in changed.items():
            await self._presence_changed(code, before)

    async def _presence_changed(self, code: str, before: frozenset[int]) -> None:
        """Seats came online or went offline on another process: note since when those are gone (as
        for this process's own tabs, so every process counts them away at the same time), and tell
        this process's tabs."""
        now = self.connected(code)
        if now == before:
            return
        left = self._left.setdefault(code, {})
        for seat in before - now:
            left[seat] = self.clock()
        for seat in now - before:
            left.pop(seat, None)
        if not left:
            del self._left[code]
        if code in self.rooms:
            await self.publish(code)

    def _present_elsewhere(self, code: str) -> frozenset[int]:
        return frozenset().union(*self._remote.get(code, {}).values())

    def connected_here(self, code: str) -> frozenset[int]:
        """The seats with a tab open on this process."""
        room = self.rooms.get(code)
        return room.connected() if room is not None else frozenset()

    def connected(self, code: str) -> frozenset[int]:
        """The seats with a tab open on any process."""
        return self.connected_here(code) | self._present_elsewhere(code)

    async def join(self, code: str, tab: Tab) -> None:
        """A tab opens: it gets its page; the others hear of it only if a seat came online."""
        room = self.rooms.setdefault(code, RoomLive(match_of=self.service.records.match_score))
        new_here = tab.seat is not None and tab.seat not in room.connected()
        newly_present = new_here and tab.seat not in self._present_elsewhere(code)
        room.tabs.add(tab)
        if new_here:
            await self._announce_presence(code)
        if newly_present and tab.seat is not None:
            left = self._left.get(code)
            if left is not None:
                left.pop(tab.seat, None)
                if not left:
                    del self._left[code]
        if not newly_present and not room.lock.locked() and self._join_from_memory(room, tab, code):
            return
        await self.publish(code, only=None if newly_present else tab)

    def _join_from_memory(self, room: RoomLive, tab: Tab, code: str) -> bool:
        """Send a joining tab the page its viewer already has at the last published version, on the
        event loop: a crowd of spectators opening one room costs no database read, no render and no
        worker thread each (which other rooms' moves would queue behind). If the room moved on since,
        its next publish brings the tab along like any other."""
        snapshot = room.latest
        if (
            snapshot is None
            or room.viewers_key is None
            or room.viewers_key[:2]
            != (
                snapshot.version,
                self.connected(code),
            )
        ):
            return False
        viewer = room.viewers.get((tab.seat, tab.locale))
        if viewer is None or not viewer.page_ready:
            return False
        for target, message in bring_up_to_date([tab], {tab: viewer}):
            target.push(message)
        return True

    def is_open(self, code: str) -> bool:
        """Whether this process has tabs open on the room (so it exists)."""
        room = self.rooms.get(code)
        return room is not None and bool(room.tabs)

    async def leave(self, code: str, tab: Tab) -> None:
        room = self.rooms.get(code)
        if room is None:
            return
        room.tabs.discard(tab)
        tab.outbox.put_nowait(None)
        gone_here = tab.seat is not None and tab.seat not in room.connected()
        gone = gone_here and tab.seat not in self._present_elsewhere(code)
        if gone and tab.seat is not None:
            self._left.setdefault(code, {})[tab.seat] = self.clock()
        if gone_here:
            await self._announce_presence(code)
        if not room.tabs:
            if not room.lock.locked():
                self.rooms.pop(code, None)
            return
        if gone:
            await self.publish(code)  # that seat went offline

    async def publish(self, code: str, only: Tab | None = None, changed: RoomSnapshot | None = None) -> None:
        """Bring the room's tabs (or just ``only``) up to the room's current version: ``changed``,
        the snapshot a change of this process just committed, or else the room as it is read now."""
        room = self.rooms.get(code)
        if room is None:
            return
        self._publishing += 1
        try:
            async with room.lock:
                await self._publish(code, room, [only] if only is not None else list(room.tabs), changed)
        finally:
            self._publishing -= 1
        if not room.tabs and self.rooms.get(code) is room:
            self.rooms.pop(code, None)

    async def _publish(
        self, code: str, room: RoomLive, tabs: list[Tab], changed: RoomSnapshot | None
    ) -> None:
        tabs = [tab for tab in tabs if tab in room.tabs]
        if not tabs:
            return
        snapshot = changed
        if snapshot is None or (room.latest is not None and room.latest.version > snapshot.version):
            try:
                snapshot = await run_in_threadpool(self.service.load, code)
            except RoomError:
                return
        room.latest = snapshot
        connected = self.connected(code)
        away = self.away(code, snapshot, connected)

        everyone = len(tabs) == len(room.tabs)

        def plan() -> list[tuple[Tab, str]]:
            viewers = {tab: room.viewer(snapshot, tab.seat, tab.locale, connected, away) for tab in tabs}
            messages = bring_up_to_date(tabs, viewers)
            if everyone:  # keep only what the tabs show now
                room.cache.sweep(html for viewer in viewers.values() for html in viewer.regions.values())
            return messages

        for tab, message in await run_in_threadpool(plan):
            tab.push(message)

    def page_regions(self, snapshot: RoomSnapshot, seat: int | None, locale: str) -> dict[str, str]:
        """A room page's regions (its tab connects later with the page's version)."""
        room = self.rooms.get(snapshot.code) or RoomLive(match_of=self.service.records.match_score)
        connected = self.connected(snapshot.code) | (frozenset() if seat is None else frozenset({seat}))
        away = self.away(snapshot.code, snapshot, connected)
        return Viewer(room, snapshot, seat, locale, connected, away).page_regions()

    # ------------------------------------------------------------------ presence
    def away(
        self, code: str, snapshot: RoomSnapshot, connected: frozenset[int] | None = None
    ) -> frozenset[int]:
        """The people's seats that have had no tab open for longer than the grace period."""
        if connected is None:
            connected = self.connected(code)
        left = self._left.get(code, {})
        gone_by = self.clock() - self.away_grace
        return frozenset(
            s.seat
            for s in snapshot.seats
            if not s.is_bot and s.seat not in connected and left.get(s.seat, self._since) <= gone_by
        )

    def _turned_away(self) -> list[str]:
        """Rooms in which a seat has just turned away (each is reported once)."""
        gone_by = self.clock() - self.away_grace
        codes = []
        for code, left in list(self._left.items()):
            for seat, since in list(left.items()):
                if since <= gone_by:
                    del left[seat]
                    codes.append(code)
            if not left:
                del self._left[code]
        if not self._started_away and self._since <= gone_by:
            self._started_away = True  # seats nobody opened since the start are away now
            codes.extend(self.rooms)
        return list(dict.fromkeys(codes))

    # ------------------------------------------------------------------ timers
    async def run_timers(self, tick: float) -> None:
        """Every ``tick`` seconds: tell rooms whose seats turned away, and let a bot decide for each
        seat whose clock ran out (``Turns.time_out`` makes sure each fires once)."""
        while True:
            await asyncio.sleep(tick)
            try:
                await self.tick()
            except Exception:  # a busy database must not stop the clocks for good
                log.exception("timers failed")

    async def tick(self) -> None:
        for code in self._turned_away():
            await self.publish(code)
        if self.broadcast.shared and self.clock() - self._swept_at >= self.leases.seconds:
            self._swept_at = self.clock()
            await self._keep_in_touch()
            await self.sweep_bots()
        if not await self.leases.hold("clocks"):
            return  # another process runs the clocks
        for code, seat, version in await run_in_threadpool(self.service.turns.due_deadlines):
            try:
                snapshot = await run_in_threadpool(self.service.load, code)
                away = seat in self.away(code, snapshot)
                after = await run_in_threadpool(self.service.turns.time_out, code, seat, version, away)
            except RoomError as refused:
                log.warning("clock of room %s seat %s: %s", code, seat, refused)
                continue
            if after is not None:
                await self.after_change(code, after)

    async def sweep_bots(self) -> None:
        """Drive the bots of playing rooms that no process drives (their driver died): one query
        and one look at the leases, every ``leases.seconds``."""
        codes = await run_in_threadpool(self.service.turns.rooms_with_bots)
        for name in await self.leases.unheld(f"bots:{code}" for code in codes):
            self.kick_bots(name.removeprefix("bots:"))

    # ------------------------------------------------------------------ chat
    async def share_chat(self, code: str, game: str, line: ChatLine) -> None:
        """Push a new chat line to the room's tabs, in this process and the others."""
        if self.draw_chat is not None:
            self.push_chat(code, self.draw_chat(game, code, line))
        if self.broadcast.shared:
            await self.broadcast.send({"kind": "chat", "room": code, "game": game, "line": line.to_json()})

    def push_chat(self, code: str, render: Callable[[str], str]) -> None:
        """Send a chat fragment to this process's tabs of the room: ``render(locale)`` runs once per
        language."""
        room = self.rooms.get(code)
        if room is None:
            return
        made: dict[str, str] = {}
        for tab in room.tabs:
            if tab.locale not in made:
                made[tab.locale] = render(tab.locale)
            tab.push(made[tab.locale])

    # ------------------------------------------------------------------ bots
    def kick_bots(self, code: str) -> None:
        """Make sure bots of this room get to move (call after every change)."""
        task = self._bot_tasks.get(code)
        if task is not None and not task.done():
            self._bot_rerun.add(code)
            return
        self._bot_tasks[code] = asyncio.create_task(self._drive_bots(code))

    async def _drive_bots(self, code: str) -> None:
        lease = f"bots:{code}"
        try:
            await self._bots_play(code, lease)
        finally:
            if self._bot_tasks.get(code) is asyncio.current_task():
                del self._bot_tasks[code]
                self._bot_rerun.discard(code)
            await self.leases.release(lease)

    async def _bots_play(self, code: str, lease: str) -> None:
        while True:
            await asyncio.sleep(self.bot_delay)
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
                await self.publish(code)
                if self.broadcast.shared:
                    room = await run_in_threadpool(self.service.load, code)
                    await self._announce_version(code, room.version)
                continue
            if code in self._bot_rerun:
                self._bot_rerun.discard(code)
                continue
            return

    async def after_change(self, code: str, changed: RoomSnapshot | None = None) -> None:
        """Publish a change (``changed``: the snapshot it committed, if the caller has it) and let
        the room's bots answer it."""
        await self.publish(code, changed=changed)
        try:
            room = changed if changed is not None else await run_in_threadpool(self.service.load, code)
        except RoomError:
            return
        await self._announce_version(code, room.version)
        if room.status == "playing" and any(seat.played_by_bot for seat in room.seats):
            self.kick_bots(code)

    async def idle(self) -> None:
        """Wait until no bot task or publish runs and every push is sent (tests)."""
        while (
            self._publishing
            or any(not task.done() for task in self._bot_tasks.values())
            or any(tab.unsent and not tab.closed for room in self.rooms.values() for tab in room.tabs)
        ):
            await asyncio.sleep(0.01)
