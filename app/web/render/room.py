"""A room's regions for each of its viewers: the one boundary a push draws through.

``RoomRegions.viewer(snapshot, seat, locale, connected, away, match)`` gives one viewer's page at one
version and presence (a seat, or the spectators, in one language): its regions as renderings, each
with a digest that says what its HTML is, and the messages that bring a tab to it (``Viewer.swaps``,
``Viewer.page``, the game log's lines, the version stamp). ``live/fanout.py`` keeps, for each tab,
the renderings it was sent, and asks the viewer which regions differ; nothing else of drawing is
its business.

Behind that boundary, and only here:

* **public regions** (``render.public_regions``) are drawn once a version, presence and language from
  the spectators' context and shared by every viewer: they can carry nothing secret;
* **the region cache** (``RegionCache``): a region is drawn again only when what its template read
  changed, and viewers who read the same values share one rendering;
* **the let-go policy** (``RoomRegions.let_go``): once every tab is brought up to date, a seat's own
  regions let go of their HTML (its tabs keep the digest); the public regions and the spectators'
  keep theirs; what a tab lacks later is drawn again (``Viewer.html``).

With ``BOURSE_PLAIN=1`` (``render.is_plain``) the cache keeps nothing and every region is drawn afresh
and sent whole: the reference the fast path must equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from app.games.base import visible_events
from app.learn.coaching import coach_notes
from app.rooms import RoomSnapshot
from app.web.render import (
    COACH,
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

__all__ = ["NOTHING_SENT", "Rendering", "RoomRegions", "Viewer", "make_table", "region_ids", "room_table"]

# what a fresh tab was sent: shared, so fresh tabs share their first message
NOTHING_SENT: Mapping[str, Rendering] = MappingProxyType({})


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


def region_ids(snapshot: RoomSnapshot) -> frozenset[str]:
    """The regions of the room's page at ``snapshot``'s status, the game log but for them."""
    return frozenset(
        region for region, _ in region_templates(snapshot.engine, snapshot.status, snapshot.hints)
    )


class Viewer:
    """One viewer's page at one version: a seat (or the spectators) in one language."""

    __slots__ = ("room", "snapshot", "seat", "locale", "table", "regions", "_events")

    def __init__(
        self,
        room: RoomRegions,
        snapshot: RoomSnapshot,
        seat: int | None,
        locale: str,
        shared: Table,
        public: Mapping[str, Rendering],
        spectators: SeatContext,
        shown: Mapping[str, Rendering] | None = None,
    ) -> None:
        """``shared``: the room's table at this version and presence; ``public``: its public renderings
        in this language, drawn from ``spectators`` (``RoomRegions.public``); ``shown``: what a tab of
        this viewer shows (its regions are looked for there first)."""
        self.room = room
        self.snapshot = snapshot
        self.seat = seat
        self.locale = locale
        self.table = seat_table(shared, snapshot, seat)
        context = spectators if seat is None else self._context()
        engine, status = snapshot.engine, snapshot.status
        self.regions = region_renderings(
            engine, context, status, locale, room.cache, public, shown, coach=snapshot.hints
        )
        self._events: str | None = None

    def _context(self) -> SeatContext:
        """What its own regions are drawn from."""
        snapshot, seat = self.snapshot, self.seat
        info = snapshot.seat(seat)
        context = seat_context(
            snapshot.engine,
            snapshot.core,
            seat,
            self.table,
            self.locale,
            legal=snapshot.legal(seat),
            # a spectator has no forms: a version of its own would draw its regions again every move
            form_version=info.legal_version if info is not None else PUBLIC_FORM_VERSION,
        )
        if snapshot.hints and seat is not None:  # the coach's notes: this seat's own region reads them
            values = context.values
            context.values[COACH] = coach_notes(
                snapshot.game, context.view, seat, values["legal"] if values["your_move"] else []
            )
        return context

    def changed(self, sent: Mapping[str, Rendering]) -> list[str]:
        """The regions a tab that was sent ``sent`` (the same regions) lacks: those whose HTML differs,
        or every one when nothing is kept (``BOURSE_PLAIN``)."""
        if self.room.cache.plain:
            return list(self.regions)
        return [
            region for region, rendering in self.regions.items() if sent[region].digest != rendering.digest
        ]

    def swaps(self, regions: Iterable[str]) -> str:
        """A push that morphs ``regions`` into the page."""
        return oob_fragments(self.html(regions))

    def page(self) -> str:
        """A push of the whole page (a tab whose page has other regions: the game started)."""
        return str(regions_container(self.page_regions(), oob=True))

    def whole_log(self) -> str:
        """A push of the whole game log (a tab that fell behind the snapshot's recent events)."""
        return oob_fragments({EVENTS: self.events_html()})

    def new_lines(self, events_seen: int, made: dict[tuple[int, str], str]) -> str:
        """A push of the game log's lines after the first ``events_seen`` (among the snapshot's recent
        events); ``made``: as for ``lines``."""
        if not self.has_log or events_seen == self.snapshot.events_total:
            return ""
        return events_added(self.lines(self.snapshot.events_since(events_seen) or [], made))

    def stamp(self) -> str:
        """The version stamp: the table moved on, old refusals go."""
        return version_marker(self.snapshot.version)

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
                template = dict(region_templates(engine, self.snapshot.status, self.snapshot.hints))[region]
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


class RoomRegions:
    """A room's regions, drawn for whoever looks: its region cache and the viewers of the version and
    presence last asked for (made once and shared by their tabs)."""

    def __init__(self, plain: bool | None = None) -> None:
        self.cache = RegionCache(plain)
        self._viewers: dict[tuple[int | None, str], Viewer] = {}
        self._key: tuple[int, frozenset[int], frozenset[int]] | None = None
        # locale -> (the snapshot, its public regions, the spectators' context they were drawn from), for
        # the same version and presence as ``_viewers``
        self._public: dict[str, tuple[RoomSnapshot, dict[str, Rendering], SeatContext]] = {}
        self._table: tuple[RoomSnapshot, Table] | None = None  # the shared table of that snapshot
        # the players of the last shared table: a new table whose players are the same takes this list,
        # so renderings of several versions that read them keep one list, not one a version
        self._players: list[dict[str, Any]] = []

    def viewer(
        self,
        snapshot: RoomSnapshot,
        seat: int | None,
        locale: str,
        connected: frozenset[int],
        away: frozenset[int] = frozenset(),
        match: Any = None,
        shown: Mapping[str, Rendering] | None = None,
    ) -> Viewer:
        """The page of ``seat`` (None: the spectators) in ``locale`` at ``snapshot`` with these seats
        connected and away (``match``: the group's running score), made once and shared by its tabs
        (``shown``: what the first of them shows, where its regions are looked for first)."""
        key = (snapshot.version, connected, away)
        if self._key != key:
            self._viewers, self._public, self._table, self._key = {}, {}, None, key
        viewer = self._viewers.get((seat, locale))
        if viewer is None or viewer.snapshot is not snapshot:
            table = self._shared_table(snapshot, connected, away, match)
            public, spectators = self._public_regions(snapshot, locale, table)
            viewer = Viewer(self, snapshot, seat, locale, table, public, spectators, shown)
            self._viewers[(seat, locale)] = viewer
        return viewer

    def known(
        self, snapshot: RoomSnapshot, seat: int | None, locale: str, connected: frozenset[int]
    ) -> Viewer | None:
        """The page of ``seat`` in ``locale`` already made at ``snapshot`` with these seats connected,
        its game log included (a crowd opening the room is sent it from memory); None when not made,
        or when nothing is kept (``BOURSE_PLAIN``)."""
        if self.cache.plain or self._key is None or self._key[:2] != (snapshot.version, connected):
            return None
        viewer = self._viewers.get((seat, locale))
        return viewer if viewer is not None and viewer.page_ready else None

    def _shared_table(
        self, snapshot: RoomSnapshot, connected: frozenset[int], away: frozenset[int], match: Any
    ) -> Table:
        """The table every viewer shares at this version and presence: made once, not once per viewer."""
        if self._table is None or self._table[0] is not snapshot:
            table = room_table(snapshot, connected, away, match)
            if table.players == self._players:
                table.players = self._players
            self._players = table.players
            self._table = (snapshot, table)
        return self._table[1]

    def _public_regions(
        self, snapshot: RoomSnapshot, locale: str, table: Table
    ) -> tuple[dict[str, Rendering], SeatContext]:
        """The regions every tab shares at this version and presence, in one language, and the
        spectators' context they are drawn from (once, whoever looks)."""
        made = self._public.get(locale)
        if made is not None and made[0] is snapshot:
            return made[1], made[2]
        public, spectators = self._drawn_public(snapshot, locale, table)
        self._public[locale] = (snapshot, public, spectators)
        return public, spectators

    def _drawn_public(
        self, snapshot: RoomSnapshot, locale: str, table: Table
    ) -> tuple[dict[str, Rendering], SeatContext]:
        spectators = seat_context(
            snapshot.engine, snapshot.core, None, table, locale, legal=[], form_version=PUBLIC_FORM_VERSION
        )
        return public_renderings(snapshot.engine, spectators, snapshot.status, locale, self.cache), spectators

    def page_regions(
        self,
        snapshot: RoomSnapshot,
        seat: int | None,
        locale: str,
        connected: frozenset[int],
        away: frozenset[int] = frozenset(),
        match: Any = None,
    ) -> dict[str, str]:
        """A page's regions as text, the game log's included, for a page request (in any thread):
        drawn through the room's cache, apart from the viewers its tabs share."""
        table = room_table(snapshot, connected, away, match)
        public, spectators = self._drawn_public(snapshot, locale, table)
        return Viewer(self, snapshot, seat, locale, table, public, spectators).page_regions()

    def let_go(self, viewers: Iterable[Viewer]) -> None:
        """Once every tab is brought up to date with ``viewers``: forget the renderings no tab shows,
        and let go of the HTML of each seat's own regions (its tabs were sent it; they keep its
        digest): a thousand rooms' private regions are tens of megabytes. Kept: the public regions,
        drawn once for every tab, and the spectators' regions, which a crowd of them opening the room
        is sent from memory (``known``)."""
        showing, keeping_html = [], []
        for viewer in viewers:
            public = public_regions(viewer.snapshot.engine)
            for region, rendering in viewer.regions.items():
                showing.append(rendering)
                if viewer.seat is None or region in public:
                    keeping_html.append(rendering)
        self.cache.sweep(showing, keeping_html)
