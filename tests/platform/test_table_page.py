"""The room page's platform half of the table: the status names each game's decision, the game log
reads oldest first under round headings, and the page carries what the browser glue builds on."""

from __future__ import annotations

import inspect
import random
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.games.base import NP_, counted, log_event, verbatim, visible_events
from app.games.registry import ENGINES
from app.i18n import format_event, format_message, join_list
from app.web.app import create_app
from app.web.render import event_line, events_added, events_region, render_seat_html

GAMES = sorted(ENGINES)


@pytest.mark.parametrize("game", GAMES)
def test_every_log_heading_is_a_line_the_game_logs(game: str) -> None:
    """The headings the platform looks for include texts the rules log now (a reworded line would
    silently lose its heading; older wordings may stay listed for games logged before)."""
    engine = ENGINES[game]
    rules = inspect.getsource(inspect.getmodule(engine._rules))  # type: ignore[attr-defined, arg-type]
    assert any(heading in rules for heading in engine.info.log_headings), engine.info.log_headings


@pytest.mark.parametrize("game", GAMES)
def test_a_games_log_has_headings_and_reads_oldest_first(game: str) -> None:
    engine = ENGINES[game]
    rng = random.Random(7)
    state = engine.setup(engine.info.min_players, {}, 7)
    for _ in range(400):
        if engine.result(state) is not None:
            break
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
    events = visible_events(state, None)
    lines = [event_line(event, "en", game, lambda seat: f"P{seat + 1}") for event in events]
    assert any('class="log-heading"' in line for line in lines)
    region = events_region(list(reversed(lines)), "en")  # the live path hands lines newest first
    assert region.index(lines[0]) < region.index(lines[-1]), "oldest first"
    pushed = events_added(list(reversed(lines[-2:])))
    assert pushed.startswith('<div hx-swap-oob="beforeend:#event-list">')
    assert pushed.index(lines[-2]) < pushed.index(lines[-1])


@pytest.mark.parametrize("locale", ["en", "zh_Hant", "zh_Hans"])
@pytest.mark.parametrize("game", GAMES)
def test_the_status_names_the_decision_not_just_whose_move(game: str, locale: str) -> None:
    """Through a bot game, the seat to act is told what to decide (the game's prompt.html), never
    only the platform's generic "Your move!"; the others are told what the table waits for."""
    engine = ENGINES[game]
    rng = random.Random(11)
    state = engine.setup(engine.info.min_players, {}, 11)
    for _ in range(60):
        if engine.result(state) is not None:
            break
        to_act = engine.to_act(state)
        waiting = (
            next(seat for seat in range(state["players"]) if seat not in to_act)
            if len(to_act) < state["players"]
            else None
        )
        html = render_seat_html(engine, state, to_act[0], locale)
        status = re.search(
            r'<span class="prompt-text">(.*?)</span>\s*(?:<a class="rules-help".*?</a>\s*)?</p>', html, re.S
        )
        assert status and status.group(1).strip(), "a prompt for the seat to act"
        assert "Your move!" not in status.group(1)
        if waiting is not None:
            other = render_seat_html(engine, state, waiting, locale)
            assert re.search(r'<span class="prompt-text">\s*\S', other), (
                "the others read what the table waits for"
            )
        seat = to_act[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))


def test_the_room_page_links_its_icon_and_manifest_and_answers_favicon(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code = client.post("/api/rooms", json={"game": GAMES[0], "players": 3, "name": "Ann"}).json()["code"]
        page = client.get(f"/r/{code}").text
        assert 'rel="icon"' in page and 'rel="manifest"' in page
        for path in ("/favicon.ico", "/static/icons/favicon.svg", "/static/manifest.json"):
            assert client.get(path).status_code == 200, path
        assert 'id="room-menu" open' in page, "before the game starts the invite is shown"
        assert 'id="alert-settings"' in page


def test_names_are_listed_as_each_language_lists_them() -> None:
    names = {0: "Ann", 1: "Bob"}
    params = {"seats": [{"seat": 0}, {"seat": 1}]}
    assert format_message("en", "{seats} tied.", params, names.get) == "Ann, Bob tied."
    assert format_message("zh_Hant", "{seats} tied.", params, names.get).startswith("Ann、Bob")
    assert join_list("zh_Hans", ["甲", "乙", "丙"]) == "甲、乙、丙"


def test_a_log_line_takes_the_plural_form_its_count_asks_for() -> None:
    state: dict[str, Any] = {"events": []}
    log_event(
        state,
        NP_(
            "{seat} performs card B and scores {count} point.",
            "{seat} performs card B and scores {count} points.",
        ),
        seat={"seat": 0},
        count=1,
    )
    log_event(
        state,
        NP_(
            "{seat} performs card B and scores {count} point.",
            "{seat} performs card B and scores {count} points.",
        ),
        seat={"seat": 0},
        count=6,
    )
    names = {0: "Ann"}.get
    one, six = state["events"]
    assert format_event("en", one, names, "basari") == "Ann performs card B and scores 1 point."
    assert format_event("en", six, names, "basari") == "Ann performs card B and scores 6 points."
    assert format_event("zh_Hant", six, names, "basari") == "Ann 執行 B，得到 6 分。"
    with pytest.raises(ValueError):
        log_event(state, NP_("{count} gem", "{count} gems"))


def test_counted_units_are_written_in_each_language() -> None:
    """Basari's gem lists: '2R 1B' in English, with each language's letters in Chinese."""
    gems = counted([(2, "R"), (1, "B")])
    names = {0: "Ann"}.get
    params = {"seat": {"seat": 0}, "gems": gems}
    text = "{seat} performs card C and takes {gems} from the bank."
    assert (
        format_message("en", text, params, names, "basari")
        == "Ann performs card C and takes 2R 1B from the bank."
    )
    assert "2紅 1藍" in format_message("zh_Hant", text, params, names, "basari")
    assert "2红 1蓝" in format_message("zh_Hans", text, params, names, "basari")
    assert format_message("en", "{gems}", {"gems": counted([])}, names) == "0"


def test_a_verbatim_param_is_never_translated() -> None:
    """Basari's action card "B" stays "B" in Chinese, though "B" is also the blue gem's letter (藍)."""
    names = {0: "Ann"}.get
    text = "{seat} played card {card}."
    params = {"seat": {"seat": 0}, "card": verbatim("B")}
    assert format_message("zh_Hant", text, params, names, "basari").endswith("B。")
    assert "藍" not in format_message("zh_Hant", text, params, names, "basari")
    assert format_message("en", text, params, names, "basari") == "Ann played card B."
