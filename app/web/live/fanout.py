"""The publishing core: one WebSocket per browser tab, each brought up to date after every change.

A move's push, top to bottom: ``Fanout.publish`` takes the room's lock and the snapshot the move
committed; ``RoomLive.plan`` asks the room's regions (``app/web/render/room.py``, the one boundary
where anything is drawn) for each tab's viewer at that version, presence and language, and
``bring_up_to_date`` makes each tab's message from it: the regions whose digest differs from what the
tab was sent (each sent whole, for the page to morph in), the game log's new lines and a version stamp;
tabs in the same place share one message. Then ``RoomRegions.let_go`` lets the cache forget what no
tab shows, and each message goes to its tab's outbox, sent by the tab's own task. This file deals in
tabs, versions, digests and outboxes; drawing, the region cache and its let-go policy are the
boundary's.

Its invariants (what a change to publishing must keep):

* **ordered per room**: a room's publishes run one at a time (``RoomLive.lock``), so a tab's record
  of what it was sent (``Tab.sent``, ``version``, ``events_seen``) is never overtaken by an older
  publish; a publish never goes back to a snapshot older than the room's last one (``latest``);
* **nothing on the event loop waits for the database**: a publish that may read (the room, a tab's
  whole game log, the group's score) and a crowd's (its many tabs' messages) are planned in a worker
  thread; a room's usual move, a few tabs brought along a version from what they show, is planned
  on the loop (``RoomLive.plans_on_loop``: rendering is pure Python, which holds the interpreter's
  lock in a worker thread as much as on the loop, so the hop there and back only added its cost);
* **each tab has its own outbox** and sender task: a slow reader never holds up the room, and one
  that falls ``OUTBOX_LIMIT`` messages behind is closed with code 4408 (its page reconnects and is
  sent everything afresh).

Who is connected and who is away comes from an ``Audience`` (``presence.py``), read once per publish.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Protocol

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool

from app.metrics import published
from app.rooms import RoomError, RoomService, RoomSnapshot
from app.web.render.room import NOTHING_SENT, Rendering, RoomRegions, Viewer, region_ids

OUTBOX_LIMIT = 64  # messages a tab may fall behind before it is disconnected to catch up afresh
# Tabs pushed to in one turn of the event loop: each push wakes its tab's sender, and a crowd's
# thousand sends in one turn held every other room's moves; spread out, they wait a little.
PUSHES_PER_TURN = 100
# A publish to at most this many tabs that reads nothing is planned on the event loop: a room of five
# seats' tabs and a few spectators' (in a worker thread a plan held the interpreter's lock as long as
# on the loop, plus the hop there and back, and the lock's hand-offs).
# A crowd's plan may take longer than the interpreter's switch interval: in a worker thread the loop
# still gets the lock at every switch interval.
LOOP_PLAN_TABS = 16


class Outbox:
    """A tab's messages waiting to be sent, in order (``None``: close the tab). The few operations
    its sender needs on one deque: an ``asyncio.Queue`` holds three deques and an event per tab. The
    deque exists only while messages wait (an empty one is not small, and most tabs wait for the next
    move most of the time)."""

    __slots__ = ("_messages", "_waiter")

    def __init__(self) -> None:
        self._messages: deque[str | None] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def qsize(self) -> int:
        return len(self._messages) if self._messages is not None else 0

    def put_nowait(self, message: str | None) -> None:
        if self._messages is None:
            self._messages = deque()
        self._messages.append(message)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def get(self) -> str | None:
        """The oldest message, once there is one."""
        while not self._messages:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        message = self._messages.popleft()
        if not self._messages:
            self._messages = None
        return message


@dataclass(eq=False, slots=True)  # slots: a thousand rooms hold five thousand tabs
class Tab:
    socket: WebSocket
    seat: int | None
    locale: str
    page_version: int | None = None  # the room version the tab's page was rendered at
    viewer: str = ""  # a spectator's chat author key (from its viewer cookie): names it if it wrote
    # region -> the rendering the tab has (its ``digest`` says what it was sent: the HTML may be let go)
    sent: Mapping[str, Rendering] = field(default_factory=lambda: NOTHING_SENT)
    version: int = -1
    events_seen: int = 0  # game-log events the tab shows
    outbox: Outbox = field(default_factory=Outbox)
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
                # Not kept while waiting for the next one: an idle tab would hold its last message
                # (its first is its whole page) for as long as it stays open.
                del message
                self.unsent -= 1
        except Exception:  # a closed socket: its own handler will leave
            return
        finally:
            self.closed = True


@dataclass(eq=False)
class RoomLive:
    """A room's open tabs, its regions (``RoomRegions``: what its viewers are drawn through) and the
    last snapshot published to them."""

    tabs: set[Tab] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    regions: RoomRegions = field(default_factory=RoomRegions)
    latest: RoomSnapshot | None = None  # the snapshot last published
    match_of: Callable[[RoomSnapshot], Any] | None = None  # the group's running score (Records.match_score)
    match: tuple[str, Any] | None = None  # (the room's status, ``match_of`` at it): see ``match_at``

    def connected(self) -> frozenset[int]:
        return frozenset(tab.seat for tab in self.tabs if tab.seat is not None)

    def match_at(self, snapshot: RoomSnapshot) -> Any:
        """The group's running score at ``snapshot`` (``match_of``), asked again only when the room's
        status changes: the score moves only when this room's game ends, and asking may read the
        database (the room's predecessors, once a process, or again once many rooms pushed them out)."""
        if self.match_of is None:
            return None
        if self.match is None or self.match[0] != snapshot.status:
            self.match = (snapshot.status, self.match_of(snapshot))
        return self.match[1]

    def plans_on_loop(self, snapshot: RoomSnapshot, tabs: list[Tab]) -> bool:
        """Whether ``plan`` may bring ``tabs`` to ``snapshot`` on the event loop: they are few, and it
        reads nothing from the database: the group's score is known at the snapshot's status, and each
        tab shows the regions of that status and the game log but for the snapshot's recent events
        (else its message carries its whole page or log, read from the database)."""
        if len(tabs) > LOOP_PLAN_TABS:
            return False
        if self.match_of is not None and (self.match is None or self.match[0] != snapshot.status):
            return False
        regions = region_ids(snapshot)
        return all(_catch_up(tab, snapshot, regions) in (SEATS, CHANGES) for tab in tabs)

    def plan(
        self,
        snapshot: RoomSnapshot,
        tabs: list[Tab],
        connected: frozenset[int],
        away: frozenset[int],
        everyone: bool,
    ) -> list[tuple[Tab, str]]:
        """What to send each of ``tabs`` to bring it to ``snapshot`` (a publish's work); ``everyone``:
        they are all the room's tabs, and what none shows is let go after (``RoomRegions.let_go``)."""
        match = self.match_at(snapshot)
        viewers = {
            tab: self.regions.viewer(snapshot, tab.seat, tab.locale, connected, away, match, tab.sent)
            for tab in tabs
        }
        messages = bring_up_to_date(tabs, viewers)
        if everyone:
            self.regions.let_go(viewers.values())
        return messages


def bring_up_to_date(tabs: list[Tab], viewers: dict[Tab, Viewer]) -> list[tuple[Tab, str]]:
    """What to send each tab so it shows its viewer's page; tabs in the same place share a message."""
    messages: dict[tuple[Any, ...], tuple[str, Mapping[str, Rendering], int]] = {}
    lines: dict[tuple[int, str], str] = {}  # the new game-log lines, made once a language (``Viewer.lines``)
    out = []
    for tab in tabs:
        viewer = viewers[tab]
        version = viewer.snapshot.version
        key = (id(viewer), id(tab.sent), tab.version, tab.events_seen, tab.page_version == version)
        if key not in messages:
            messages[key] = _message_for(tab, viewer, lines)
        message, sent, events_seen = messages[key]
        tab.sent, tab.version, tab.events_seen = sent, version, events_seen
        if message:
            out.append((tab, message))
    return out


# How a tab is brought to a version (``_catch_up``); the last two read the database (the game log).
SEATS = "seats"  # its page shows this version: it is sent who is here (presence may have changed since)
CHANGES = "changes"  # its regions that changed and the log's new lines, all at hand
PAGE = "page"  # its regions are not this status's (or it has none yet): its whole page, log included
LOG = "log"  # it fell behind the snapshot's recent events: its changed regions and the whole log


def _catch_up(tab: Tab, snapshot: RoomSnapshot, regions: AbstractSet[str]) -> str:
    """How ``tab`` is brought to ``snapshot``, whose page has ``regions``: what ``_message_for`` sends
    and what ``RoomLive.plans_on_loop`` asks (whether that reads the database)."""
    if not tab.sent and tab.page_version == snapshot.version:
        return SEATS
    if tab.sent.keys() != regions:
        return PAGE
    has_log = snapshot.status != "waiting"
    if (
        has_log
        and tab.events_seen != snapshot.events_total
        and snapshot.events_since(tab.events_seen) is None
    ):
        return LOG
    return CHANGES


def _message_for(
    tab: Tab, viewer: Viewer, lines: dict[tuple[int, str], str]
) -> tuple[str, Mapping[str, Rendering], int]:
    """The message that brings ``tab`` to ``viewer``'s page, what the tab then has, and the game-log
    events it then shows."""
    snapshot = viewer.snapshot
    way = _catch_up(tab, snapshot, viewer.regions.keys())
    if way == SEATS:
        # The page already shows this version; re-sending it would wipe what the person is typing.
        message = viewer.swaps(["seats"])
    elif way == PAGE:
        message = viewer.page()
    else:
        message = viewer.swaps(viewer.changed(tab.sent))
        if way == LOG:
            message += viewer.whole_log()
        else:
            message += viewer.new_lines(tab.events_seen, lines)  # the snapshot keeps the events
    if snapshot.version != tab.version:
        message += viewer.stamp()
    return message, viewer.regions, snapshot.events_total


class Audience(Protocol):
    """Who sits at a room's table, as every publish reads it (``presence.Presence``)."""

    def connected(self, code: str) -> frozenset[int]:
        """The seats with a tab open on any process."""
        ...

    def away(
        self, code: str, snapshot: RoomSnapshot, connected: frozenset[int] | None = None
    ) -> frozenset[int]:
        """The people's seats that have had no tab open for longer than the grace period."""
        ...


class Fanout:
    """This process's open rooms (``rooms``: code -> ``RoomLive``) and the one way to publish to them."""

    def __init__(self, service: RoomService, rooms: dict[str, RoomLive], audience: Audience) -> None:
        self.service = service
        self.rooms = rooms
        self.audience = audience
        self.publishing = 0  # publishes under way (tests wait for them)

    def open(self, code: str) -> RoomLive:
        """The room's live state, made when its first tab opens."""
        return self.rooms.setdefault(code, RoomLive(match_of=self.service.records.match_score))

    async def publish(self, code: str, only: Tab | None = None, changed: RoomSnapshot | None = None) -> None:
        """Bring the room's tabs (or just ``only``) up to the room's current version: ``changed``,
        the snapshot a change of this process just committed, or else the room as it is read now."""
        room = self.rooms.get(code)
        if room is None:
            return
        self.publishing += 1
        try:
            async with room.lock:
                await self._publish(code, room, [only] if only is not None else list(room.tabs), changed)
        finally:
            self.publishing -= 1
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
        connected = self.audience.connected(code)
        away = self.audience.away(code, snapshot, connected)

        everyone = len(tabs) == len(room.tabs)
        if room.plans_on_loop(snapshot, tabs):
            planned = room.plan(snapshot, tabs, connected, away, everyone)
        else:
            planned = await run_in_threadpool(room.plan, snapshot, tabs, connected, away, everyone)
        # /metrics: the regions this publish drew and the bytes it queues
        published(room.regions.cache, planned)
        for number, (tab, message) in enumerate(planned, 1):
            tab.push(message)
            if number % PUSHES_PER_TURN == 0 and number < len(planned):
                await asyncio.sleep(0)  # the senders woken so far send in this turn, the rest in the next

    def join_from_memory(self, room: RoomLive, tab: Tab, code: str) -> bool:
        """Send a joining tab the page its viewer already has at the last published version, on the
        event loop: a crowd of spectators opening one room costs no database read, no render and no
        worker thread each (which other rooms' moves would queue behind). If the room moved on since,
        its next publish brings the tab along like any other."""
        snapshot = room.latest
        if snapshot is None:
            return False
        viewer = room.regions.known(snapshot, tab.seat, tab.locale, self.audience.connected(code))
        if viewer is None:
            return False
        # a page of this version is sent the seats alone (who is here may have changed), else the page
        if not viewer.drawn(["seats"] if tab.page_version == snapshot.version else viewer.regions):
            return False
        for target, message in bring_up_to_date([tab], {tab: viewer}):
            target.push(message)
        return True

    def page_regions(self, snapshot: RoomSnapshot, seat: int | None, locale: str) -> dict[str, str]:
        """A room page's regions (its tab connects later with the page's version)."""
        room = self.rooms.get(snapshot.code) or RoomLive(match_of=self.service.records.match_score)
        connected = self.audience.connected(snapshot.code) | (
            frozenset() if seat is None else frozenset({seat})
        )
        away = self.audience.away(snapshot.code, snapshot, connected)
        return room.regions.page_regions(snapshot, seat, locale, connected, away, room.match_at(snapshot))

    def busy(self) -> bool:
        """Whether a publish runs or a push waits to be sent (tests wait until neither does)."""
        return bool(self.publishing) or any(
            tab.unsent and not tab.closed for room in self.rooms.values() for tab in room.tabs
        )
