"""A tab that applies every push it gets shows exactly the page a fresh load would, whatever races.

``TabPage`` applies pushes the way htmx's WebSocket extension does (out-of-band swaps by id, a
region morphed into the one sent; the game log's new lines go at the end of its list), so these tests check what a browser ends up showing.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from html.parser import HTMLParser
from typing import Any, cast

import anyio
import pytest
from fastapi import WebSocket
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from app.config import Settings
from app.games.base import random_bot_action, visible_events
from app.games.registry import ENGINES
from app.i18n import LOCALES
from app.rooms import RoomService
from app.web.app import create_app
from app.web.live import LiveRooms, RoomLive, Tab
from app.web.live.fanout import bring_up_to_date
from app.web.render import (
    FragmentCache,
    RegionCache,
    Table,
    environment,
    event_line,
    is_plain,
    public_regions,
    region_html,
    region_templates,
    render_regions,
    seat_context,
)
from app.web.render import room as render_room
from app.web.render.room import RoomRegions
from tests.platform.test_api import auth
from tests.support import people_table

CACHE_ONLY = pytest.mark.skipif(is_plain(), reason="what the region cache keeps: off with BOURSE_PLAIN")


class _TopLevel(HTMLParser):
    """Splits a message into its top-level elements: (attributes, inner HTML)."""

    VOID = {"br", "hr", "img", "input", "meta", "link", "col", "area", "base", "wbr", "source"}

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.text = text
        self.depth = 0
        self.elements: list[tuple[dict[str, str | None], str]] = []
        self._start = 0
        self._attrs: dict[str, str | None] = {}
        self._lines = [0]
        for line in text.splitlines(keepends=True):
            self._lines.append(self._lines[-1] + len(line))
        self.feed(text)

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        if self.depth == 0:
            self._attrs = dict(attrs)
            self._start = self._offset() + len(self.get_starttag_text() or "")
        self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        self.depth -= 1
        if self.depth == 0:
            end = self._offset()
            self.elements.append((self._attrs, self.text[self._start : end]))


class TabPage:
    """The regions a browser tab shows, kept up to date by applying pushes."""

    def __init__(self) -> None:
        self.regions: dict[str, str] = {}
        self.version = -1

    def apply(self, message: str) -> None:
        top = _TopLevel(message)
        for attrs, inner in top.elements:
            swap = attrs.get("hx-swap-oob") or "true"
            if attrs.get("id") == "regions":
                self.regions = {a["id"][2:]: html for a, html in _TopLevel(inner).elements}  # type: ignore[index]
            elif swap == "beforeend:#event-list":
                log = self.regions["events"]
                end = log.rindex("</ol>")
                self.regions["events"] = log[:end] + inner + log[end:]
            elif attrs.get("id") == "r-flash":
                self.version = int(attrs.get("data-room-version") or self.version)
            elif attrs.get("id") == "watchers":
                continue  # who is watching (the timer's line beside the regions), not a region
            else:  # a region, sent whole: htmx's morph extension makes the page's region equal to it
                assert str(attrs["id"]).startswith("r-") and swap == "morph", (attrs, swap)
                self.regions[str(attrs["id"])[2:]] = inner


def received(socket: WebSocketTestSession) -> list[str]:
    """Every message pushed to this tab so far (once every tab's outbox has been sent)."""
    live: LiveRooms = socket.app.state.live  # type: ignore[attr-defined]
    socket.portal.call(live.idle)
    texts: list[str] = []
    while True:
        try:
            message = socket.portal.call(socket._send_rx.receive_nowait)  # noqa: SLF001
        except anyio.WouldBlock:
            return texts
        texts.append(message.get("text", ""))


def started_bot_room(client: TestClient, game: str, players: int) -> tuple[str, str]:
    """A started room of Ann (seat 0, the host) and bots: its code and Ann's token."""
    created = client.post("/api/rooms", json={"game": game, "players": players, "name": "Ann"}).json()
    code, token = created["code"], created["token"]
    client.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers=auth(token))
    client.post(f"/api/rooms/{code}/start", headers=auth(token))
    return code, token


def fresh_page(live: LiveRooms, code: str, seat: int | None, connected: frozenset[int]) -> dict[str, str]:
    """The page a new visitor would get, rendered with nothing cached."""
    snapshot = live.service.load(code)
    return RoomRegions().viewer(snapshot, seat, "en", connected).page_regions()


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_tabs_that_follow_every_push_show_the_fresh_page(settings: Settings, game: str) -> None:
    """Bots play a whole game; a seat's tab and a spectator's apply every push they get."""
    info = ENGINES[game].info
    with TestClient(create_app(settings)) as client, contextlib.ExitStack() as stack:
        live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
        assert client.portal is not None  # inside `with TestClient(...)`
        created = client.post(
            "/api/rooms", json={"game": game, "players": info.max_players, "name": "Ann"}
        ).json()
        code, token = created["code"], created["token"]
        client.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers=auth(token))
        tabs = {
            0: stack.enter_context(
                client.websocket_connect(
                    f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={token}"}
                )
            ),
            None: stack.enter_context(client.websocket_connect(f"/ws/rooms/{code}")),
        }
        pages = {seat: TabPage() for seat in tabs}
        client.post(f"/api/rooms/{code}/start", headers=auth(token))
        client.post(f"/api/rooms/{code}/bots", json={"seat": 0}, headers=auth(token))  # Ann's seat too
        for _ in range(400):
            for seat, tab in tabs.items():
                for message in received(tab):
                    pages[seat].apply(message)
            if live.service.load(code).status == "finished":
                break
            client.portal.call(live.idle)
        snapshot = live.service.load(code)
        assert snapshot.status == "finished"
        for seat, page in pages.items():
            assert page.version == snapshot.version
            assert page.regions == fresh_page(live, code, seat, frozenset({0})), seat


@CACHE_ONLY
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_seat_follows_a_game_whose_own_regions_are_let_go_once_sent(
    service: RoomService, game: str
) -> None:
    """A tab for every seat and one for the spectators follow a whole game of bots, brought up to
    date as a publish does it. Once a publish is sent, a seat's own regions keep no HTML, only what
    says which HTML it was (``RoomLive.settle``); the public regions and the spectators' keep theirs.
    What a tab lacks is drawn again: mid-game, once the first seat has regions of its own, its second
    tab opens and is sent its whole page; and every tab ends on the page a fresh load shows."""
    players = ENGINES[game].info.max_players
    code, _, _ = service.seats.create_room(game, players, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    room = RoomLive()
    seated = frozenset(range(players))  # every seat has a tab open
    tabs = [Tab(socket=cast(WebSocket, None), seat=seat, locale="en") for seat in [None, *range(players)]]
    pages = {tab: TabPage() for tab in tabs}
    reopened = False
    for step in range(1000):
        snapshot = service.load(code)
        for tab, message in room.plan(snapshot, tabs, seated, frozenset(), everyone=True):
            pages[tab].apply(message)
        viewers = {tab: room.regions.viewer(snapshot, tab.seat, "en", seated) for tab in tabs}
        public = public_regions(snapshot.engine)
        spectators = {id(rendering) for rendering in viewers[tabs[0]].regions.values()}
        for viewer in viewers.values():
            for region, rendering in viewer.regions.items():
                kept = region in public or id(rendering) in spectators
                assert (rendering.html is not None) == kept, (step, viewer.seat, region)
        first_seat = viewers[tabs[1]]
        if not reopened and step >= 5 and not first_seat.drawn(first_seat.regions):
            # a second tab of the first seat: the regions its first was sent are drawn again
            reopened = True
            second = Tab(socket=cast(WebSocket, None), seat=0, locale="en")
            redraws = room.regions.cache.redraws
            [(_, whole)] = bring_up_to_date([second], {second: first_seat})
            assert room.regions.cache.redraws > redraws
            page = TabPage()
            page.apply(whole)
            assert page.regions == pages[tabs[1]].regions
        if not service.turns.bot_step(code):
            break
    assert snapshot.status == "finished" and reopened
    for tab, page in pages.items():
        assert page.version == snapshot.version
        assert page.regions == RoomRegions().viewer(snapshot, tab.seat, "en", seated).page_regions()


def test_racing_publishes_leave_every_tab_on_the_current_page(settings: Settings) -> None:
    """Publishes of one room started at once (bots moving, people acting, tabs opening) are ordered."""
    with TestClient(create_app(settings)) as client, contextlib.ExitStack() as stack:
        live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
        assert client.portal is not None  # inside `with TestClient(...)`
        code, token = started_bot_room(client, "qe", 5)
        tab = stack.enter_context(
            client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={token}"})
        )
        page = TabPage()

        async def race() -> None:
            async def step() -> None:
                await asyncio.to_thread(live.service.turns.bot_step, code)

            for _ in range(6):
                await asyncio.gather(
                    *(live.fanout.publish(code) for _ in range(5)),
                    step(),
                    *(live.fanout.publish(code) for _ in range(5)),
                )

        client.post(f"/api/rooms/{code}/bots", json={"seat": 0}, headers=auth(token))
        for _ in range(5):
            client.portal.call(race)
            for message in received(tab):
                page.apply(message)
        client.portal.call(live.fanout.publish, code)
        for message in received(tab):
            page.apply(message)
        assert page.version == live.service.load(code).version
        assert page.regions == fresh_page(live, code, 0, frozenset({0}))


def test_spectators_come_and_go_without_pushes_to_anyone_else(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client, contextlib.ExitStack() as stack:
        created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
        code, token = created["code"], created["token"]
        seat_tab = stack.enter_context(
            client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={token}"})
        )
        assert 'id="regions"' in seat_tab.receive_text()  # its own page
        spectators = [stack.enter_context(client.websocket_connect(f"/ws/rooms/{code}")) for _ in range(5)]
        firsts = [spectator.receive_text() for spectator in spectators]  # once every spectator is in ...
        assert len(set(firsts)) == 1  # (the same bytes)
        assert received(seat_tab) == [] and not any(
            received(spectator) for spectator in spectators
        )  # ... no one heard
        second_tab = stack.enter_context(
            client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={token}"})
        )
        assert second_tab.receive_text() and received(seat_tab) == []  # Ann was already online
        client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        assert all(received(spectator) for spectator in spectators)  # a new seat: everyone sees it


def test_a_moves_new_log_lines_are_made_once_a_language_whoever_reads_them(
    service: RoomService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game-log line is the same for every viewer who may read it in one language: a publish makes
    each new one once a language, not once a tab (five seats and the spectators in English, one
    seat's second tab in Chinese)."""
    code, _, _ = service.seats.create_room("tulipmania-1637", 5, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    room = RoomLive()
    tabs = [Tab(socket=cast(WebSocket, None), seat=seat, locale="en") for seat in [None, *range(5)]]
    tabs.append(Tab(socket=cast(WebSocket, None), seat=2, locale="zh_Hant"))
    pages = {tab: TabPage() for tab in tabs}
    made: list[tuple[int, str]] = []

    def counted(event: dict[str, Any], locale: str, *rest: Any) -> str:
        made.append((id(event), locale))
        return event_line(event, locale, *rest)

    monkeypatch.setattr(render_room, "event_line", counted)
    checked = 0
    status_before = None
    for _ in range(40):
        snapshot = service.load(code)
        before = {tab: tab.events_seen for tab in tabs}
        made.clear()
        for tab, message in room.plan(snapshot, tabs, frozenset(range(5)), frozenset(), everyone=True):
            pages[tab].apply(message)
        # Each tab was sent only what the move added, unless the page changed (the game ended) or the move
        # added more lines than the snapshot carries (a round's scoring): then each tab gets the whole log.
        if snapshot.status == status_before and all(
            seen and snapshot.events_since(seen) is not None for seen in before.values()
        ):
            expected = {
                (id(event), tab.locale)
                for tab in tabs
                for event in visible_events({"events": snapshot.events_since(before[tab]) or []}, tab.seat)
            }
            assert sorted(made) == sorted(expected)
            checked += bool(expected)
        status_before = snapshot.status
        if not service.turns.bot_step(code):
            break
    assert checked > 10
    for tab, page in pages.items():
        assert (
            page.regions
            == RoomRegions().viewer(snapshot, tab.seat, tab.locale, frozenset(range(5))).page_regions()
        )


@CACHE_ONLY
def test_an_action_renders_each_changed_region_once_per_distinct_input(settings: Settings) -> None:
    """Five spectators cost one rendering; an unchanged region is not rendered again."""
    with TestClient(create_app(settings)) as client, contextlib.ExitStack() as stack:
        live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
        assert client.portal is not None  # inside `with TestClient(...)`
        code, token = started_bot_room(client, "tulip-bubble", 3)
        client.portal.call(live.idle)  # the bots have played up to Ann's turn
        spectators = [stack.enter_context(client.websocket_connect(f"/ws/rooms/{code}")) for _ in range(5)]
        for spectator in spectators:
            spectator.receive_text()
        cache = live.rooms[code].regions.cache
        before = cache.renders
        client.portal.call(live.fanout.publish, code)
        assert cache.renders == before  # nothing changed: nothing rendered
        snapshot = live.service.load(code)
        assert snapshot.core is not None and snapshot.to_act() == [0]
        move = random_bot_action(snapshot.engine, snapshot.core, 0, random.Random(1))
        live.service.turns.act(code, 0, snapshot.version, move)
        client.portal.call(live.fanout.publish, code)
        regions = len(ENGINES["tulip-bubble"].info.regions) + 2
        assert 0 < cache.renders - before <= regions  # once for all five, only what changed
        assert len({tuple(received(spectator)) for spectator in spectators}) == 1


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_cached_region_is_the_region_rendered_afresh(game: str) -> None:
    """The inputs a region records while it renders are all it depends on: one cache shared by every
    seat and the spectators across a whole bot game gives what rendering afresh gives."""
    engine = ENGINES[game]
    players = engine.info.max_players
    state = engine.setup(players, {}, 11)
    rng = random.Random(3)
    cache = RegionCache(plain=False)  # the cache's, whichever mode the tests run in
    for step in range(300):
        if engine.result(state) is not None:
            break
        core = {**state, "events": []}
        for seat in [*range(players), None]:
            table = people_table(game, players, seat, engine.to_act(core))
            context = seat_context(engine, core, seat, table, "en", form_version=step // 3)
            fresh = render_regions(engine, context, "playing", "en")
            assert render_regions(engine, context, "playing", "en", cache) == fresh, (step, seat)
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
    assert cache.renders < step * (players + 1) * (len(engine.info.regions) + 2)  # and it did save renders


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_public_regions_are_the_same_bytes_for_everyone_and_rendered_once(game: str) -> None:
    """Through a whole bot game, in each language: every public region is byte for byte what the
    spectators get (so it carries no seat's secret), for every seat; sharing one cache, each is rendered
    at most once per change, however many seats look."""
    engine = ENGINES[game]
    players = engine.info.max_players
    public = public_regions(engine)
    state = engine.setup(players, {}, 5)
    rng = random.Random(13)
    caches = {locale: RegionCache(plain=False) for locale in LOCALES}
    for step in range(400):
        if engine.result(state) is not None:
            break
        core = {**state, "events": []}
        for locale, cache in caches.items():
            before = {region: cache.renders_of[region] for region in public}
            pages = {}
            for seat in [None, *range(players)]:
                table = people_table(game, players, seat, engine.to_act(core))
                context = seat_context(engine, core, seat, table, locale, form_version=step)
                pages[seat] = render_regions(engine, context, "playing", locale, cache)
            for region in public:
                assert {seat: page[region] for seat, page in pages.items()} == dict.fromkeys(
                    pages, pages[None][region]
                ), (step, locale, region)
                assert cache.renders_of[region] - before[region] <= 1, (step, locale, region)
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
    assert engine.result(state) is not None


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_cached_fragments_are_what_the_block_draws_afresh(game: str) -> None:
    """A ``{% cache %}`` key names everything its block reads: a room's warm fragments (kept across
    moves and sweeps, as a room's publishes keep them) and a warm environment draw what empty ones
    do, for every seat through a whole game in two languages, and again with a player renamed (at
    every fifth move: the same table under other names). Every sweep lets go of the renderings'
    HTML, as a publish does for a seat's own once sent, so the warm side draws again what it kept."""
    engine = ENGINES[game]
    players = engine.info.max_players
    state = engine.setup(players, {}, 5)
    rng = random.Random(8)
    rooms = {locale: RegionCache(plain=False) for locale in ("en", "zh_Hant")}
    named = [f"P{number}" for number in range(players)]
    renamed = ["Renamed", *named[1:]]
    for step in range(400):
        if engine.result(state) is not None:
            break
        core = {**state, "events": []}
        for locale, room in rooms.items():
            for names in [named, renamed] if step % 5 == 0 else [named]:
                players_list = [{"seat": number, "name": names[number]} for number in range(players)]
                table = Table("x", game, "playing", players_list, engine.to_act(core), None, None, players)
                fragments = environment(locale, game).extensions[FragmentCache.identifier]
                for seat in [*range(players), None]:
                    context = seat_context(engine, core, seat, table, locale, form_version=step)
                    warm = region_html(engine, context, "playing", locale, room)
                    fragments.fragments.clear()  # type: ignore[attr-defined]
                    fresh = region_html(engine, context, "playing", locale)
                    assert fresh == warm, (step, locale, seat, names)
                room.sweep(showing=())  # keeps what this move used, none of its HTML
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))


def test_a_plain_room_draws_every_region_afresh_and_sends_each_tab_every_region(service: RoomService) -> None:
    """``BOURSE_PLAIN``: nothing is kept, so a move draws every region of every viewer again and sends
    each tab all of them whole (a region the move did not change too); the tabs still end on the page
    a fresh load shows."""
    code, _, _ = service.seats.create_room("qe", 3, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    room = RoomLive(regions=RoomRegions(plain=True))
    seated = frozenset(range(3))
    tabs = [Tab(socket=cast(WebSocket, None), seat=seat, locale="en") for seat in (None, 0)]
    pages = {tab: TabPage() for tab in tabs}
    for _ in range(6):
        snapshot = service.load(code)
        drawn = room.regions.cache.renders
        for tab, message in room.plan(snapshot, tabs, seated, frozenset(), everyone=True):
            pages[tab].apply(message)
            regions = region_templates(snapshot.engine, snapshot.status)
            assert all(f'id="r-{region}"' in message for region, _ in regions)
        public = len(public_regions(snapshot.engine))
        assert room.regions.cache.renders - drawn == 2 * len(regions) - public  # the public ones once
        service.turns.bot_step(code)
    for tab, page in pages.items():
        assert page.regions == RoomRegions(plain=True).viewer(snapshot, tab.seat, "en", seated).page_regions()
