"""The coach's region (platform/coach.html): a seat's own region of the room page, pushed like the
others, in rooms whose table allows hints; drawn from that seat's view alone, so no other seat's tab
and no spectator is ever sent it, in the plain path and the cached one alike."""

from __future__ import annotations

import random
import re
from typing import cast

import pytest
from fastapi import WebSocket
from fastapi.testclient import TestClient
from markupsafe import escape

from app.games.base import random_legal_action, view_without_log
from app.games.registry import ENGINES, package_of
from app.i18n import format_message
from app.learn.coaching import decision_notes
from app.rooms import RoomService
from app.web.live import RoomLive, Tab
from app.web.render import COACH, region_templates
from app.web.render.room import RoomRegions
from tests.platform.test_hints import auth, client, qe_room  # noqa: F401 - the fixture
from tests.platform.test_live_sync import TabPage, _TopLevel

STEPS = 80  # bot moves followed: a whole Q.E. game of three, a good part of the others
NOTES = re.compile(r'<p class="coach-note">(.*?)</p>')


def _coach_sent(message: str) -> list[str]:
    """The coach regions in a push (each sent whole), as their inner HTML."""
    return [inner for attrs, inner in _TopLevel(message).elements if attrs.get("id") == f"r-{COACH}"] + [
        inner
        for attrs, whole in _TopLevel(message).elements
        if attrs.get("id") == "regions"
        for region, inner in ((a.get("id"), html) for a, html in _TopLevel(whole).elements)
        if region == f"r-{COACH}"
    ]


@pytest.mark.parametrize("plain", [False, True], ids=["cached", "plain"])
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_each_seat_is_pushed_its_own_coach_and_nobody_else_is(
    service: RoomService, game: str, plain: bool
) -> None:
    """Bots play a table that allows hints; a tab for every seat and one for the spectators apply
    every push. Each push's coach region is the one drawn for the tab's own seat (the spectators':
    empty), it shows the seat's notes exactly while the game waits for that seat, and every tab ends
    on the page a fresh load shows."""
    engine = ENGINES[game]
    players = engine.info.min_players
    code, _, _ = service.seats.create_room(game, players, {}, None, hints=True)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    room = RoomLive(regions=RoomRegions(plain=plain))
    seated = frozenset(range(players))
    tabs = [Tab(socket=cast(WebSocket, None), seat=seat, locale="en") for seat in [None, *range(players)]]
    pages = {tab: TabPage() for tab in tabs}
    with_panel = {seat: 0 for seat in range(players)}
    for step in range(STEPS):
        snapshot = service.load(code)
        fresh = RoomRegions(plain=True)
        for tab, message in room.plan(snapshot, tabs, seated, frozenset(), everyone=True):
            pages[tab].apply(message)
            mine = fresh.viewer(snapshot, tab.seat, "en", seated).page_regions()[COACH]
            for sent in _coach_sent(message):
                assert sent == mine, (step, tab.seat)
        for tab in tabs:
            shown = pages[tab].regions[COACH]
            deciding = (
                tab.seat is not None and tab.seat in snapshot.to_act() and bool(snapshot.legal(tab.seat))
            )
            assert ("coach-panel" in shown) == deciding, (step, tab.seat)
            if tab.seat is None:
                assert shown == "", step
            elif deciding:
                with_panel[tab.seat] += 1
                assert snapshot.core is not None
                view = view_without_log(engine, snapshot.core, tab.seat)
                notes = decision_notes(game, view, tab.seat, snapshot.legal(tab.seat))
                said = [format_message("en", t, p, snapshot.name_of, package_of(game)) for t, p in notes]
                assert NOTES.findall(shown) == [escape(note) for note in said], (step, tab.seat)
        if step == STEPS - 1 or not service.turns.bot_step(code):
            break
    assert all(count > 0 for count in with_panel.values()), with_panel
    for tab, page in pages.items():
        finished = snapshot.status == "finished" and tab.seat is not None
        assert ('id="review"' in page.regions[COACH]) == finished  # the end screen offers the review
        assert page.regions == RoomRegions(plain=True).viewer(snapshot, tab.seat, "en", seated).page_regions()


def test_a_table_without_hints_has_no_coach_region(service: RoomService) -> None:
    engine = ENGINES["qe"]
    assert COACH not in dict(region_templates(engine, "playing"))
    assert COACH in dict(region_templates(engine, "playing", hints=True))
    assert COACH not in dict(region_templates(engine, "waiting", hints=True))  # nothing to coach yet
    code, _, _ = service.seats.create_room("qe", 3, {}, None)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    snapshot = service.load(code)
    assert COACH not in RoomRegions().viewer(snapshot, 0, "en", frozenset()).page_regions()


def test_the_room_page_carries_the_coach_of_its_own_seat_only(client: TestClient) -> None:  # noqa: F811
    code, tokens = qe_room(client, True)
    room = client.get(f"/api/rooms/{code}").json()
    actor = room["to_act"][0]
    waiting = [seat for seat in range(3) if seat not in room["to_act"]]
    assert 'id="r-coach"' in client.get(f"/r/{code}").text  # a spectator's: the region, empty
    assert "coach-panel" not in client.get(f"/r/{code}").text
    client.cookies.set(f"bourse_seat_{code}", tokens[actor])
    page = client.get(f"/r/{code}").text
    assert "coach-panel" in page and "hint-button" in page and NOTES.search(page)
    hint = client.get(f"/r/{code}/hint")
    assert hint.status_code == 200 and "<li>" in hint.text
    for seat in waiting:
        client.cookies.set(f"bourse_seat_{code}", tokens[seat])
        assert "coach-panel" not in client.get(f"/r/{code}").text
    # the seat's decision played: its panel goes unless the game waits for it again
    mine = client.get(f"/api/rooms/{code}", headers=auth(tokens[actor])).json()
    action = random_legal_action(mine["legal"], random.Random(1))
    played = client.post(
        f"/api/rooms/{code}/actions",
        json={"version": mine["version"], "action": action},
        headers=auth(tokens[actor]),
    )
    assert played.status_code == 200, played.text
    client.cookies.set(f"bourse_seat_{code}", tokens[actor])
    after = client.get(f"/api/rooms/{code}").json()
    assert ("coach-panel" in client.get(f"/r/{code}").text) == (actor in after["to_act"])


def test_a_coach_that_fails_costs_its_notes_not_the_page(
    client: TestClient,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.learn import coaching

    def broken(*_: object) -> list[coaching.Message]:
        raise ZeroDivisionError

    monkeypatch.setattr(coaching, "decision_notes", broken)
    code, tokens = qe_room(client, True)
    actor = client.get(f"/api/rooms/{code}").json()["to_act"][0]
    client.cookies.set(f"bourse_seat_{code}", tokens[actor])
    page = client.get(f"/r/{code}")
    assert page.status_code == 200
    assert "hint-button" in page.text and not NOTES.search(page.text)
