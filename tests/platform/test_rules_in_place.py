"""Rules at the table (issue 20): a "?" beside each decision opens the rulebook's part for that phase
in place (the room's dialog, loaded with htmx), or as a short page of its own without a script."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.games.registry import ENGINES
from app.web.app import create_app
from app.web.render import render_seat_html, rules_for_phase, rules_phases

GAMES = sorted(ENGINES)


def decision_phases(game: str) -> set[str]:
    """The phases in which some seat has a decision to make, over a few bot games."""
    engine = ENGINES[game]
    phases: set[str] = set()
    for seed in range(3):
        rng = random.Random(seed)
        players = engine.info.max_players if seed else engine.info.min_players
        state = engine.setup(players, {}, seed)
        while engine.result(state) is None:
            seat = engine.to_act(state)[0]
            phases.add(engine.view(state, seat)["phase"])
            state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
    return phases


@pytest.mark.parametrize("game", GAMES)
def test_every_decisions_phase_has_its_part_of_the_rules_in_every_language(game: str) -> None:
    phases = decision_phases(game)
    assert phases <= rules_phases(game), phases - rules_phases(game)
    for phase in phases:
        english, traditional = rules_for_phase(game, phase, "en"), rules_for_phase(game, phase, "zh_Hant")
        assert english.count("<li") + english.count("<p") >= 1 and english != traditional


@pytest.mark.parametrize("game", GAMES)
def test_the_status_has_a_question_mark_for_the_phase_it_names(game: str) -> None:
    engine = ENGINES[game]
    state = engine.setup(engine.info.min_players, {}, 5)
    seat = engine.to_act(state)[0]
    phase = engine.view(state, seat)["phase"]
    status = render_seat_html(engine, state, seat, "zh_Hans").split('id="r-seats"')[0]
    url = f"/games/{game}/rules/{phase}?lang=zh_Hans"
    assert f'<a class="rules-help" href="{url}" hx-get="{url}" hx-target="#rules-dialog-body"' in status
    assert "这一步的规则" in status  # its name, read out and shown as its tooltip


def test_the_part_loads_into_the_dialog_or_opens_as_a_page(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        fragment = client.get("/games/qe/rules/bidding?lang=zh_Hant", headers={"HX-Request": "true"})
        whole = client.get("/games/qe/rules/bidding?lang=en")
        missing = client.get("/games/qe/rules/nothing-like-this")
        unknown = client.get("/games/chess/rules/bidding")
    assert fragment.status_code == 200 and fragment.text.startswith(
        '<h2 id="rules-dialog-title">這一步的規則</h2>'
    )
    assert "<html" not in fragment.text and "一場拍賣" in fragment.text
    assert whole.status_code == 200 and "<html" in whole.text and "An auction" in whole.text
    assert "Final scoring" not in whole.text  # only this phase's part
    assert missing.status_code == 404 and "These rules have no part for that moment." in missing.text
    assert unknown.status_code == 404 and "Unknown game." in unknown.text
