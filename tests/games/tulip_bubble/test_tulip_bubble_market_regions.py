"""Tulip Bubble's market is several public regions (issue 44): a move draws and sends only the parts of
the market it changed, and none of them carries a seat's secret."""

from __future__ import annotations

import re
from typing import Any, cast

from fastapi import WebSocket

from app.games.tulip_bubble import ENGINE, INFO, MARKET_REGIONS
from app.games.tulip_bubble.data import ROWS
from app.rooms import RoomService, RoomSnapshot
from app.web.live import RoomLive, Tab
from app.web.render import environment, render_seat_html
from app.web.render.room import RoomRegions
from tests.platform.test_live_sync import TabPage

PLAYERS = 4
ROW_REGIONS = {row: "g-" + row.replace("_", "-") for row in ROWS}  # each row of tulips, a region
MARKET = {f"g-{region}" for region in MARKET_REGIONS}
TOKEN_ROWS = {"new_arrivals", "just_sold"}  # the rows purchase tokens go on
GAMES = 4  # games played at most until a lone token was seen placed on each of them
SENT = re.compile(r'<section id="r-([a-z-]+)"[^>]*hx-swap-oob="morph"')


def _placed(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """The row of the card a purchase token was placed on between two states, when that was all the
    move did to the market (no price, row, collector or deck moved); else None."""
    if before["phase"] != "bidding" or after["phase"] != "bidding":
        return None
    changed = [card for card in after["tokens"] if after["tokens"][card] != before["tokens"].get(card)]
    unchanged = ("levels", "rows", "collectors", "deck", "discard", "market_discard", "hands", "mortgages")
    if len(changed) != 1 or any(before[key] != after[key] for key in unchanged):
        return None
    return next(row for row in ROWS if changed[0] in after["rows"][row])


def test_a_token_placed_sends_its_row_and_the_players_and_no_other_part_of_the_market(
    service: RoomService,
) -> None:
    """Bots play a game (or a few, until a lone token was placed on each row), a spectator's and two seats' tabs brought up to date after every move as a
    publish does it (the region cache on, whichever mode the tests run in). A token placed changes one
    row and the players' tokens: every tab is sent that row and the players, never the prices, the
    other rows or the collectors; the prices and the collectors are not even drawn again (the other
    rows are, from the view's one list of rows, and are the same bytes). Every market region a seat's
    tab is sent is the spectators' (drawn from their view: no seat's hand or cash in it), and every
    tab ends on the page a fresh load shows."""
    assert {f"g-{region}" for region in INFO.public_regions} >= MARKET
    placed: set[str] = set()
    for _ in range(GAMES):  # a room's seed is random: a game may see no lone token placed on a row
        placed |= _play_and_publish(service)
        if placed == TOKEN_ROWS:
            break
    assert placed == TOKEN_ROWS  # each seen at least once


def _play_and_publish(service: RoomService) -> set[str]:
    """One game of bots, checked as the test above says; the rows on which a lone token was placed."""
    code, _, _ = service.seats.create_room(INFO.id, PLAYERS, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    room = RoomLive(regions=RoomRegions(plain=False))
    seated = frozenset(range(PLAYERS))
    tabs = [Tab(socket=cast(WebSocket, None), seat=seat, locale="en") for seat in (None, 0, 1)]
    pages = {tab: TabPage() for tab in tabs}

    def publish(snapshot: RoomSnapshot) -> dict[Tab, set[str]]:
        """Each tab brought up to date: the regions it was sent."""
        sent = {}
        for tab, message in room.plan(snapshot, tabs, seated, frozenset(), everyone=True):
            pages[tab].apply(message)
            sent[tab] = set(SENT.findall(message))
        for tab in tabs[1:]:
            for region in MARKET:
                assert pages[tab].regions[region] == pages[tabs[0]].regions[region], (tab.seat, region)
        return sent

    snapshot = service.load(code)
    publish(snapshot)
    placed: set[str] = set()
    for _ in range(2000):
        if not service.turns.bot_step(code):
            break
        after = service.load(code)
        row = _placed(cast(dict[str, Any], snapshot.core), cast(dict[str, Any], after.core))
        drawn = dict(room.regions.cache.renders_of)
        sent = publish(after)
        snapshot = after
        if row is None:
            continue
        assert set(sent) == set(tabs)
        for tab, regions in sent.items():
            assert regions & MARKET == {ROW_REGIONS[row], "g-players"}, (tab.seat, regions)
        renders = room.regions.cache.renders_of
        assert renders["g-board"] == drawn["g-board"]
        assert renders["g-collectors"] == drawn["g-collectors"]
        assert renders[ROW_REGIONS[row]] == drawn[ROW_REGIONS[row]] + 1  # once for every tab
        placed.add(row)
    assert snapshot.status == "finished"
    for tab, page in pages.items():
        fresh = RoomRegions().viewer(snapshot, tab.seat, "en", seated).page_regions()
        assert page.regions == fresh, tab.seat
    return placed


def test_the_phone_tabs_lead_to_regions_of_the_page() -> None:
    """The phone's tab bar (``_tabs.html``) points at the market's top and its players' region, which
    are regions of their own now, and at the price history."""
    tabs = environment("en", INFO.id).get_template("games/tulip-bubble/_tabs.html").render()
    targets = re.findall(r'href="#([^"]+)"', tabs)
    page = render_seat_html(ENGINE, ENGINE.setup(3, {}, 1), 0)
    assert targets == ["regions", "r-g-board", "r-g-players", "r-g-history"]
    assert all(f'<section id="{target}"' in page for target in targets[1:])
