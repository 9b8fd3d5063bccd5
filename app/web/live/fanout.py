"""The publishing core: one WebSocket per browser tab, each brought up to date after every change.

``Fanout.publish`` brings each of a room's tabs (or one tab) up to the room's version:

* each distinct viewer (a seat, or the spectators, in one language) is rendered once per version
  and presence, and of its regions only those whose inputs changed (``RegionCache``); tabs that
  were sent the same thing get the same bytes (``bring_up_to_date``);
* a tab is sent only the regions whose HTML differs from what it was sent, the game log's new lines,
  and a version stamp; a tab that opens gets its page's regions;
* once every tab is sent its message, a seat's own regions let go of their HTML (``RoomLive.settle``):
  a tab keeps the renderings it was sent, whose digests say what it has, and what a tab lacks is
  drawn again (``Viewer.html``). The public regions and the spectators' keep theirs.

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
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Protocol

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool

from app.games.base import visible_events
from app.metrics import published
from app.rooms import RoomError, RoomService, RoomSnapshot
from app.web.render import (
    EVENTS,
    PUBLIC_FORM_VERSION,
    RegionCache,
    Rendering,
    SeatContext,
    Table,
    environment,
    event_line,
    events_added,
    events_region,
    oob_fragments,
    public_regions,
    public_renderings,
    region_renderings,
    region_templates,
    regions_container,
    seat_context,
    spectators_context,
    timed_out_move,
    version_marker,
)

OUTBOX_LIMIT = 64  # messages a tab may fall behind before it is disconnected to catch up afresh
# Tabs pushed to in one turn of the event loop: each push wakes its tab's sender, and a crowd's
# thousand sends in one turn (~70 ms) held every other room's moves; spread out, they wait a few ms.
PUSHES_PER_TURN = 100
# A publish to at most this many tabs that reads nothing is planned on the event loop: a room of five
# seats' tabs and a few spectators' (a Q.E. move's plan takes ~1-3 ms of CPU, and in a worker thread
# it held the interpreter's lock as long, plus the hop: ~0.1 ms of CPU, and the lock's hand-offs).
# A crowd's plan may take longer than the interpreter's switch interval: in a worker thread the loop
# still gets the lock every 5 ms.
LOOP_PLAN_TABS = 16
# what a fresh tab was sent: shared, so fresh tabs share their first message
NOTHING_SENT: Mapping[str, Rendering] = MappingProxyType({})


class Outbox:
    """A tab's messages waiting to be sent, in order (``None``: close the tab). The few operations
    its sender needs on one deque: an ``asyncio.Queue`` holds three deques and an event per tab. The
    deque exists only while messages wait (an empty one is ~600 bytes, and most tabs wait for the next
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
                # (its first is its whole page, ~24 KB) for as long as it stays open.
                del message
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
    """The table as ``seat`` has it (``room_table`` and the seat's own part)."""
    return seat_table(room_table(snapshot, connected, away, match), snapshot, seat)


def room_table(
    snapshot: RoomSnapshot, connected: frozenset[int], away: frozenset[int] = frozenset(), match: Any = None
) -> Table:
    """The table every viewer of the room shares at this version and presence (made once for them)."""
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
            }
            for s in snapshot.seats
        ],
        to_act=snapshot.to_act(),
        result=result.to_json() if result is not None else None,
        next_code=snapshot.next_code,
        capacity=snapshot.players,
        match=match,
        clock=snapshot.clock,
        clock_paused_at=snapshot.clock_paused_at,
    )


def seat_table(table: Table, snapshot: RoomSnapshot, seat: int | None) -> Table:
    """``table`` with what is the seat's own (its timed-out move); the same object when it has none."""
    mine = snapshot.seat(seat)
    timed_out = timed_out_move(snapshot.recent_events, seat, mine.timeouts) if mine is not None else None
    return table if timed_out is None else replace(table, timed_out=timed_out)


class Viewer:
    """One viewer's page at one version: a seat (or the spectators) in one language."""

    __slots__ = ("room", "snapshot", "seat", "locale", "table", "regions", "_events")

    def __init__(
        self,
        room: RoomLive,
        snapshot: RoomSnapshot,
        seat: int | None,
        locale: str,
        connected: frozenset[int],
        away: frozenset[int] = frozenset(),
        public: Mapping[str, Rendering] | None = None,
        shared: Table | None = None,
        spectators: SeatContext | None = None,
        shown: Mapping[str, Rendering] | None = None,
    ) -> None:
        """``public``: the room's public renderings at this version and presence in this language,
        if made already (``RoomLive.public_regions``); ``shared``: the room's table at this version
        and presence, if made already (``room_table``); ``spectators``: the spectators' context of
        that table in this language, if made already (a spectating viewer's own); ``shown``: what a
        tab of this viewer shows (its regions are looked for there first)."""
        self.room = room
        self.snapshot = snapshot
        self.seat = seat
        self.locale = locale
        if shared is None:
            shared = room_table(snapshot, connected, away, room.match_at(snapshot))
        self.table = seat_table(shared, snapshot, seat)
        context = spectators if seat is None and spectators is not None else self._context()
        engine, status = snapshot.engine, snapshot.status
        if public is None:
            drawn_from = spectators_context(engine, context, locale)
            public = public_renderings(engine, drawn_from, status, locale, room.cache)
        self.regions = region_renderings(engine, context, status, locale, room.cache, public, shown)
        self._events: str | None = None

    def _context(self) -> SeatContext:
        """What its own regions are drawn from."""
        snapshot, seat = self.snapshot, self.seat
        info = snapshot.seat(seat)
        return seat_context(
            snapshot.engine,
            snapshot.core,
            seat,
            self.table,
            self.locale,
            legal=snapshot.legal(seat),
            # a spectator has no forms: a version of its own would draw its regions again every move
            form_version=info.legal_version if info is not None else PUBLIC_FORM_VERSION,
        )

    def html(self, regions: Iterable[str]) -> dict[str, str]:
        """The text of ``regions``, drawing again what their renderings let go (a seat's own, once
        sent) from one context made for all of them."""
        engine = self.snapshot.engine
        texts: dict[str, str] = {}
        context: SeatContext | None = None
        for region in regions:
            rendering = self.regions[region]
            html = rendering.html
            if html is None:
                context = context or self._context()
                drawn_from = context
                if region in public_regions(engine):
                    drawn_from = spectators_context(engine, context, self.locale)
                template = dict(region_templates(engine, self.snapshot.status))[region]
                env = environment(self.locale, engine.info.id)
                html = self.room.cache.html(env, template, drawn_from, rendering)
            texts[region] = html.decode()
        return texts

    def drawn(self, regions: Iterable[str]) -> bool:
        """Whether the HTML of ``regions`` is at hand (sending it draws nothing)."""
        return all(self.regions[region].html is not None for region in regions)

    @property
    def has_log(self) -> bool:
        return self.snapshot.status != "waiting"

    def lines(
        self, events: list[dict[str, Any]], made: dict[tuple[int, str], str] | None = None
    ) -> list[str]:
        """The lines of ``events`` this viewer may read, newest first. ``made``: lines already made of
        these events for other viewers of this version, by event and language (a line is the same for
        every viewer who may read it); keyed by the event's identity, so only for events the caller
        keeps alive meanwhile (a snapshot's recent ones)."""
        made = {} if made is None else made
        lines = []
        for event in reversed(visible_events({"events": events}, self.seat)):
            key = (id(event), self.locale)
            line = made.get(key)
            if line is None:
                line = made[key] = event_line(event, self.locale, self.snapshot.game, self.table.name_of)
            lines.append(line)
        return lines

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
        """Its page's regions as text, the game log's included."""
        regions = self.html(self.regions)
        if self.has_log:
            regions[EVENTS] = self.events_html()
        return regions


@dataclass(eq=False)
class RoomLive:
    """A room's open tabs and what is shared between them."""

    tabs: set[Tab] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    cache: RegionCache = field(default_factory=RegionCache)
    viewers: dict[tuple[int | None, str], Viewer] = field(default_factory=dict)
    viewers_key: tuple[int, frozenset[int], frozenset[int]] | None = None
    # locale -> (the snapshot, its public regions, the spectators' context they were drawn from), for
    # the same version and presence as ``viewers``
    public: dict[str, tuple[RoomSnapshot, dict[str, Rendering], SeatContext]] = field(default_factory=dict)
    table: tuple[RoomSnapshot, Table] | None = None  # the shared table (``room_table``) of that snapshot
    # the players of the last shared table: a new table whose players are the same takes this list,
    # so renderings of several versions that read them keep one list, not one a version
    players: list[dict[str, Any]] = field(default_factory=list)
    latest: RoomSnapshot | None = None  # the snapshot last published
    match_of: Callable[[RoomSnapshot], Any] | None = None  # the group's running score (Records.match_score)
    match: tuple[str, Any] | None = None  # (the room's status, ``match_of`` at it): see ``match_at``

    def connected(self) -> frozenset[int]:
        return frozenset(tab.seat for tab in self.tabs if tab.seat is not None)

    def viewer(
        self,
        snapshot: RoomSnapshot,
        seat: int | None,
        locale: str,
        connected: frozenset[int],
        away: frozenset[int] = frozenset(),
        shown: Mapping[str, Rendering] | None = None,
    ) -> Viewer:
        """The viewer for this version and presence, made once and shared by its tabs (``shown``:
        what the first of them shows, where its regions are looked for first)."""
        key = (snapshot.version, connected, away)
        if self.viewers_key != key:
            self.viewers, self.public, self.table, self.viewers_key = {}, {}, None, key
        viewer = self.viewers.get((seat, locale))
        if viewer is None or viewer.snapshot is not snapshot:
            public = self.public_regions(snapshot, locale, connected, away)
            viewer = self.viewers[(seat, locale)] = Viewer(
                self,
                snapshot,
                seat,
                locale,
                connected,
                away,
                public,
                self.shared_table(snapshot, connected, away),
                self.public[locale][2],
                shown,
            )
        return viewer

    def shared_table(self, snapshot: RoomSnapshot, connected: frozenset[int], away: frozenset[int]) -> Table:
        """The table every viewer shares at this version and presence: made once, not once per viewer."""
        if self.table is None or self.table[0] is not snapshot:
            table = room_table(snapshot, connected, away, self.match_at(snapshot))
            if table.players == self.players:
                table.players = self.players
            self.players = table.players
            self.table = (snapshot, table)
        return self.table[1]

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
        regions = {region for region, _ in region_templates(snapshot.engine, snapshot.status)}
        return all(_catch_up(tab, snapshot, regions) in (SEATS, CHANGES) for tab in tabs)

    def public_regions(
        self, snapshot: RoomSnapshot, locale: str, connected: frozenset[int], away: frozenset[int]
    ) -> dict[str, Rendering]:
        """The regions every tab shares at this version and presence, in one language: drawn once
        from the spectators' context, whoever looks (``app/web/render.py``)."""
        made = self.public.get(locale)
        if made is not None and made[0] is snapshot:
            return made[1]
        table = self.shared_table(snapshot, connected, away)
        spectators = seat_context(
            snapshot.engine, snapshot.core, None, table, locale, legal=[], form_version=PUBLIC_FORM_VERSION
        )
        public = public_renderings(snapshot.engine, spectators, snapshot.status, locale, self.cache)
        self.public[locale] = (snapshot, public, spectators)
        return public

    def plan(
        self,
        snapshot: RoomSnapshot,
        tabs: list[Tab],
        connected: frozenset[int],
        away: frozenset[int],
        everyone: bool,
    ) -> list[tuple[Tab, str]]:
        """What to send each of ``tabs`` to bring it to ``snapshot`` (a publish's work, in a worker
        thread); ``everyone``: they are all the room's tabs, and what none shows is let go after."""
        viewers = {
            tab: self.viewer(snapshot, tab.seat, tab.locale, connected, away, tab.sent) for tab in tabs
        }
        messages = bring_up_to_date(tabs, viewers)
        if everyone:
            self.settle(viewers.values())
        return messages

    def settle(self, viewers: Iterable[Viewer]) -> None:
        """Once every tab is brought up to date with ``viewers``: forget the renderings no tab shows,
        and let go of the HTML of each seat's own regions (its tabs were sent it; they keep its
        digest): a thousand rooms' private regions are ~25 MB. Kept: the public regions, drawn once
        for every tab, and the spectators' regions, which a crowd of them opening the room is sent
        from memory (``Fanout.join_from_memory``)."""
        showing, keeping_html = [], []
        for viewer in viewers:
            public = public_regions(viewer.snapshot.engine)
            for region, rendering in viewer.regions.items():
                showing.append(rendering)
                if viewer.seat is None or region in public:
                    keeping_html.append(rendering)
        self.cache.sweep(showing, keeping_html)


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
    tab: Tab,
    viewer: Viewer,
    lines: dict[tuple[int, str], str],
) -> tuple[str, Mapping[str, Rendering], int]:
    snapshot = viewer.snapshot
    regions = viewer.regions
    way = _catch_up(tab, snapshot, regions.keys())
    if way == SEATS:
        # The page already shows this version; re-sending it would wipe what the person is typing.
        message = oob_fragments(viewer.html(["seats"]))
    elif way == PAGE:
        message = str(regions_container(viewer.page_regions(), oob=True))
    else:
        changed = [
            region for region, rendering in regions.items() if tab.sent[region].digest != rendering.digest
        ]
        message = oob_fragments(viewer.html(changed))
        if way == LOG:
            message += oob_fragments({EVENTS: viewer.events_html()})
        elif viewer.has_log and tab.events_seen != snapshot.events_total:
            added = snapshot.events_since(tab.events_seen) or []
            message += events_added(viewer.lines(added, lines))  # the snapshot keeps ``added``
    if snapshot.version != tab.version:
        message += version_marker(snapshot.version)  # the table moved on: old errors go
    return message, regions, snapshot.events_total


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
        published(room.cache, planned)  # /metrics: the regions this publish drew and the bytes it queues
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
        if (
            snapshot is None
            or room.viewers_key is None
            or room.viewers_key[:2]
            != (
                snapshot.version,
                self.audience.connected(code),
            )
        ):
            return False
        viewer = room.viewers.get((tab.seat, tab.locale))
        if viewer is None or not viewer.page_ready:
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
        return Viewer(room, snapshot, seat, locale, connected, away).page_regions()

    def busy(self) -> bool:
        """Whether a publish runs or a push waits to be sent (tests wait until neither does)."""
        return bool(self.publishing) or any(
            tab.unsent and not tab.closed for room in self.rooms.values() for tab in room.tabs
        )
