"""Player colours (issue 20): each seat has one colour, always drawn with its seat number, the same in
the seat chips, the game log, the charts and the markers, and the same bytes for every viewer."""

from __future__ import annotations

import random
import re

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.games.registry import ENGINES
from app.web.app import create_app
from app.web.render import event_line, render_seat_html

GAMES = sorted(ENGINES)
MARK = re.compile(r'<span class="seat-mark sc-(\d)" data-n="(\d)" aria-hidden="true"></span>')


def test_a_log_line_marks_every_seat_it_names_with_that_seats_colour_and_number() -> None:
    event = {"text": "{seat} outbids {other}.", "params": {"seat": {"seat": 2}, "other": {"seat": 0}}}
    line = event_line(event, "zh_Hans", "qe", lambda seat: ["<Ann>", "Bo", "Bot Ada"][seat])
    assert line == (
        '<li><span class="seat-mark sc-2" data-n="3" aria-hidden="true"></span>电脑·艾达 outbids '
        '<span class="seat-mark sc-0" data-n="1" aria-hidden="true"></span>&lt;Ann&gt;.</li>'
    )


def test_the_seat_chips_carry_each_seats_colour_and_number(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        created = client.post("/api/rooms", json={"game": GAMES[0], "players": 3, "name": "Ann"}).json()
        client.post(f"/api/rooms/{created['code']}/join", json={"name": "Bo"})
        page = client.get(f"/r/{created['code']}").text
    chips = re.findall(r'<span class="seat-mark sc-(\d)">(\d)</span>\s*<span class="seat-name">(\w+)', page)
    assert chips == [("0", "1", "Ann"), ("1", "2", "Bo")]


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_games_players_and_charts_mark_every_seat_the_same_way(game: str) -> None:
    engine = ENGINES[game]
    rng = random.Random(3)
    players = engine.info.max_players
    state = engine.setup(players, {}, 3)
    while engine.result(state) is None:
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
    html = render_seat_html(engine, state, None, "en")
    marked = {(int(colour), int(number)) for colour, number in MARK.findall(html)}
    assert marked == {(seat, seat + 1) for seat in range(players)}, "a mark's colour is its seat's"
    log = html[html.index('id="event-list"') :]
    assert all(f'class="seat-mark sc-{seat}"' in log for seat in range(players)), "the log names every seat"
    charts = re.findall(
        r'<g class="seat-mark-svg sc-(\d)"[^>]*><circle[^>]*></circle><text[^>]*>(\d)</text>', html
    )
    assert {(int(c), int(n)) for c, n in charts} == {(seat, seat + 1) for seat in range(players)}
