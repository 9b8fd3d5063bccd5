"""Play again (issue 10, item 7): the same people in the same seats, and a running match score."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.rooms import MatchScore, RoomService, RoomSnapshot, records
from app.web.app import create_app
from app.web.deps import seat_cookie
from app.web.live import RoomLive
from app.web.render import Table, render_page


def three_people(service: RoomService, game: str) -> tuple[str, list[str]]:
    code, _, host = service.seats.create_room(game, 3, {}, "Ann")
    assert host is not None
    tokens = [host, service.seats.join(code, "Bob")[1], service.seats.join(code, "Cy")[1]]
    service.seats.start(code, 0)
    return code, tokens


def play_toy_game(service: RoomService, code: str, winner: int) -> None:
    """Three rounds of the sealed guess in which ``winner`` picks 3 and the others 1 and 2."""
    while service.load(code).status == "playing":
        others = iter((1, 2))
        for seat in range(3):
            number = 3 if seat == winner else next(others)
            service.turns.act(code, seat, service.load(code).version, {"type": "pick", "number": number})
    assert service.load(code).result.winners == [winner]  # type: ignore[union-attr]


def test_play_again_keeps_the_people_their_seats_and_their_tokens(
    service: RoomService, toy_game: str
) -> None:
    code, _, host = service.seats.create_room(toy_game, 3, {}, "Ann")
    bob = service.seats.join(code, "Bob")[1]
    service.seats.add_bot(code, 0)
    service.seats.start(code, 0)
    while service.load(code).status == "playing":
        for seat in (0, 1):
            if seat in service.load(code).to_act():
                service.turns.act(
                    code, seat, service.load(code).version, {"type": "pick", "number": seat + 1}
                )
        service.turns.bot_step(code)
    new_code, token = service.records.play_again(code, 0, host)
    assert token == host  # the host's own token, given back
    fresh = service.load(new_code)
    assert fresh.status == "waiting"
    assert [(s.seat, s.name, s.is_bot, s.is_host) for s in fresh.seats] == [
        (0, "Ann", False, True),
        (1, "Bob", False, False),
        (2, "Bot Cantor", True, False),
    ]
    assert service.seats.seat_for_token(new_code, host) == 0
    assert service.seats.seat_for_token(new_code, bob) == 1
    service.seats.start(new_code, 0)  # every seat is taken already: the host starts at once
    assert service.load(new_code).status == "playing"


def test_an_api_host_without_its_token_gets_a_new_one_for_its_seat(
    service: RoomService, toy_game: str
) -> None:
    code, tokens = three_people(service, toy_game)
    play_toy_game(service, code, 0)
    new_code, token = service.records.play_again(code, 0)
    assert token != tokens[0] and service.seats.seat_for_token(new_code, token) == 0
    assert service.seats.seat_for_token(new_code, tokens[1]) == 1


def test_the_match_score_counts_wins_across_the_games(service: RoomService, toy_game: str) -> None:
    code, tokens = three_people(service, toy_game)
    assert service.records.match_score(service.load(code)) is None  # a first game is no match yet
    play_toy_game(service, code, 0)
    assert service.records.match_score(service.load(code)) is None
    second, _ = service.records.play_again(code, 0, tokens[0])
    # shown in the new room
    assert service.records.match_score(service.load(second)) == MatchScore(1, (1, 0, 0))
    service.seats.start(second, 0)
    assert service.records.match_score(service.load(second)) == MatchScore(1, (1, 0, 0))
    play_toy_game(service, second, 1)
    # shown on the finished page
    assert service.records.match_score(service.load(second)) == MatchScore(2, (1, 1, 0))
    third, _ = service.records.play_again(second, 0, tokens[0])
    service.seats.start(third, 0)
    play_toy_game(service, third, 1)
    assert service.records.match_score(service.load(third)) == MatchScore(3, (1, 2, 0))
    # Another service (another process) reads the same score from the database.
    other = RoomService(service.db, service.engines)
    assert other.records.match_score(other.load(third)) == MatchScore(3, (1, 2, 0))


def test_a_live_room_asks_the_match_score_once_a_status(service: RoomService, toy_game: str) -> None:
    """Every publish's table carries the group's score (``RoomLive.match_at``); it moves only when the
    room's game ends, so it is asked again only when the room's status changes (asking may read the
    database, and a room's usual move is planned on the event loop)."""
    code, tokens = three_people(service, toy_game)
    play_toy_game(service, code, 0)
    second, _ = service.records.play_again(code, 0, tokens[0])
    asked: list[str] = []

    def match_of(snapshot: RoomSnapshot) -> MatchScore | None:
        asked.append(snapshot.status)
        return service.records.match_score(snapshot)

    room = RoomLive(match_of=match_of)
    shown = []

    def publish() -> None:
        snapshot = service.load(second)
        table = room.regions.viewer(
            snapshot, None, "en", frozenset(), frozenset(), room.match_at(snapshot)
        ).table
        assert table.match == service.records.match_score(snapshot)
        shown.append(table.match)

    publish()
    service.seats.start(second, 0)
    while service.load(second).status == "playing":
        publish()
        seat = service.load(second).to_act()[0]
        service.turns.act(second, seat, service.load(second).version, {"type": "pick", "number": 3 - seat})
    publish()
    assert asked == ["waiting", "playing", "finished"]
    assert shown[0] == shown[-2] == MatchScore(1, (1, 0, 0)) and shown[-1] == MatchScore(2, (2, 0, 0))


def test_the_rooms_asked_about_last_keep_their_match_known(
    service: RoomService, toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which room led to which is read once and kept for the rooms asked about last (``HOT_ROOMS`` of
    them, as the writer keeps snapshots): a room asked about again stays known while others come."""
    monkeypatch.setattr(records, "HOT_ROOMS", 3)
    code, tokens = three_people(service, toy_game)
    play_toy_game(service, code, 0)
    second, _ = service.records.play_again(code, 0, tokens[0])
    others = [three_people(service, toy_game)[0] for _ in range(3)]
    rooms = {room: service.load(room) for room in [second, *others]}
    reads: list[str] = []
    read = service.db.read

    def counted() -> Any:
        reads.append("read")
        return read()

    monkeypatch.setattr(service.db, "read", counted)
    for other in others:
        service.records.match_score(rooms[second])
        service.records.match_score(rooms[other])
    assert len(reads) == 2 + len(others)  # the first room's score and what led to it, each other room
    service.records.match_score(rooms[second])
    assert len(reads) == 2 + len(others)  # still known: no read


def test_the_match_score_partial_names_each_seat_and_its_wins() -> None:
    table = Table(
        code="x",
        game="qe",
        status="finished",
        players=[{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}],
        to_act=[],
        result=None,
        next_code=None,
        capacity=2,
    )
    html = render_page("platform/match_score.html", "en", match=MatchScore(2, (1, 0)), table=table)
    assert (
        "Match score after 2 games" in html and "Ann</span>: 1 win" in html and "Bob</span>: 0 wins" in html
    )
    assert render_page("platform/match_score.html", "en", match=None, table=table).strip() == ""
    chinese = render_page("platform/match_score.html", "zh_Hant", match=MatchScore(1, (1, 0)), table=table)
    assert "Ann" in chinese and "Match score" not in chinese


@pytest.fixture
def client(settings: Settings, toy_game: str) -> TestClient:
    return TestClient(create_app(settings))


def test_in_the_browser_each_person_takes_their_seat_in_the_new_room(
    client: TestClient, toy_game: str
) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, tokens = three_people(service, toy_game)
    play_toy_game(service, code, 2)
    host = TestClient(client.app, cookies={seat_cookie(code): tokens[0]})
    again = host.post(f"/r/{code}/host/again", follow_redirects=False)
    assert again.status_code == 303
    new_code = again.headers["location"].rsplit("/", 1)[1]
    assert host.cookies.get(seat_cookie(new_code)) == tokens[0]
    bob = TestClient(client.app, cookies={seat_cookie(code): tokens[1]})
    joined = bob.post(f"/r/{code}/rematch", follow_redirects=False)
    assert joined.status_code == 303 and joined.headers["location"] == f"/r/{new_code}"
    assert bob.cookies.get(seat_cookie(new_code)) == tokens[1]
    assert service.seats.seat_for_token(new_code, bob.cookies.get(seat_cookie(new_code))) == 1
    page = bob.get(f"/r/{new_code}?lang=en")
    assert page.status_code == 200
    seats = re.findall(r'<li class="seat[^"]*" data-seat="(\d)"', page.text)
    assert seats == ["0", "1", "2"] and 'data-viewer-seat="1"' in page.text  # the page marks Bob "you"
    assert "Match score after 1 game" in page.text and "Cy</span>: 1 win" in page.text  # the room's status
    stranger = TestClient(client.app)
    watched = stranger.post(f"/r/{code}/rematch", follow_redirects=False)
    assert watched.headers["location"] == f"/r/{code}" and not stranger.cookies.get(seat_cookie(new_code))
