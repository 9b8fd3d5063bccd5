"""Basari pages as the room renders them: secrecy of chosen cards, forms only for legal actions."""

from __future__ import annotations

import random
import re

import pytest

from app.games import base
from app.games.basari import ENGINE
from app.games.base import State
from app.games.registry import checks_of
from app.web.render import Table, environment, public_regions, render_regions, render_seat_html, seat_context
from tests.games.basari.basari_helpers import arrange_displays, gems, play, set_gems, table


def form_types(html: str) -> set[str]:
    return set(re.findall(r'name="type" value="([a-z_]+)"', html))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_no_rendered_page_shows_another_seats_unrevealed_action_card(players: int) -> None:
    """Ruling 9: pages of other seats (and spectators) are identical whichever card a seat chose."""
    rng = random.Random(players)
    state = ENGINE.setup(players, {}, 40 + players)
    checked = 0
    while not state["finished"]:
        waiting = ENGINE.to_act(state)
        seat = rng.choice(waiting)
        if state["phase"] == "choose" and len(waiting) > 1:
            after = [ENGINE.apply(state, seat, {"type": "choose", "card": card}) for card in ("A", "B", "C")]
            observer = rng.choice([None, *(s for s in range(players) if s != seat)])
            pages = [render_seat_html(ENGINE, s, observer) for s in after]
            assert pages[0] == pages[1] == pages[2]
            own = render_seat_html(ENGINE, after[1], seat)
            assert "You chose card B" in own
            checked += 1
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert checked > 10


def every_phase(players: int, seed: int) -> dict[str, State]:
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    phases: dict[str, State] = {}
    while not state["finished"]:
        phases.setdefault(state["phase"], state)
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, base.random_bot_action(ENGINE, state, seat, rng))
    phases["finished"] = state
    return phases


@pytest.mark.parametrize("locale", ["en", "zh_Hant", "zh_Hans"])
def test_every_phase_renders_for_players_and_spectators_with_forms_only_for_legal_actions(
    locale: str,
) -> None:
    phases = every_phase(5, 11)
    assert {"choose", "bargain", "round_summary", "finished"} <= set(phases)
    for state in phases.values():
        for seat in [None, *range(5)]:
            html = render_seat_html(ENGINE, state, seat, locale)
            legal = {t["type"] for t in ENGINE.legal_actions(state, seat)} if seat is not None else set()
            if state["finished"]:
                legal = set()
            assert form_types(html) == legal


def test_the_bargaining_panel_shows_the_offer_history_and_a_picker_limited_to_your_gems() -> None:
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    set_gems(state, 0, red=2, blue=1)
    set_gems(state, 1, red=3, yellow=1)
    state = play(state, ["B", "B", "A"])
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(yellow=1)})
    html = render_seat_html(ENGINE, state, 0)
    # Gem chips: one per count from 0 to what you hold, and none for a colour you lack.
    assert re.findall(r'name="gems.red" value="(\d+)"', html) == ["0", "1", "2"]
    assert re.findall(r'name="gems.blue" value="(\d+)"', html) == ["0", "1"]
    assert 'name="gems.yellow"' not in html and 'name="gems.green"' not in html
    assert "Current offer by Player 2" in html and "Offers so far" in html
    assert form_types(html) == {"accept", "offer"}
    assert form_types(render_seat_html(ENGINE, state, 1)) == set()


def test_the_round_scoring_table_is_shown_until_everyone_continues() -> None:
    state = table()
    arrange_displays(state, [[31, 32, 33, 4, 9], [2], [3]])
    state = play(state, ["A", "B", "C"])
    html = render_seat_html(ENGINE, state, 2)
    assert "Scoring of round 1" in html and "Continue to round 2" in html
    state = ENGINE.apply(state, 2, {"type": "continue"})
    assert "Waiting for Player 1, Player 2" in render_seat_html(ENGINE, state, 2)


def test_the_rules_page_describes_the_market_deck() -> None:
    """Issue #5 (2): the deck is data of our own; the rules page describes it as rules text (issue 20:
    no working notes for players)."""
    for locale in ("en", "zh_Hant", "zh_Hans"):
        html = environment(locale).get_template("games/basari/rules.html").render()
        assert "39" in html
    english = environment("en").get_template("games/basari/rules.html").render()
    assert "The market deck has 39 cards" in english


def regions_seen_by(state: State, seat: int | None) -> dict[str, str]:
    """Every region of ``seat``'s page (a spectator's for None), drawn afresh."""
    table = Table(
        "t",
        "basari",
        "playing",
        [
            {"seat": n, "name": f"P{n}", "is_host": n == 0, "connected": True, "is_you": n == seat}
            for n in range(state["players"])
        ],
        ENGINE.to_act(state),
        None,
        None,
        state["players"],
    )
    context = seat_context(ENGINE, {**state, "events": []}, seat, table, "en", form_version=3)
    return render_regions(ENGINE, context, "playing", "en")


@pytest.mark.parametrize("players", [3, 4, 5])
def test_public_regions_carry_no_seats_secret_and_the_decision_region_holds_it(players: int) -> None:
    """The public regions are drawn from the spectators' view alone: at random positions they are the
    same for the table and its disguise (another secret card for one seat, another deck order), and the
    same on every seat's page. The seat whose secret changed sees it in its decision region only."""
    public = {region for region in public_regions(ENGINE) if region.startswith("g-")}
    assert public == {"g-summary", "g-bargain", "g-actions", "g-bank", "g-players"}
    disguise = checks_of("basari").disguise
    rng = random.Random(players)
    state = ENGINE.setup(players, {}, 70 + players)
    checked = secrets_shown = 0
    while not state["finished"]:
        if rng.random() < 0.3:
            spectators = regions_seen_by(state, None)
            owner = rng.randrange(players)
            other, changed = disguise(state, owner, random.Random(checked))
            disguised = regions_seen_by(other, None)
            for region in public:
                assert disguised[region] == spectators[region], (state["phase"], region)
            for seat in range(players):
                page = regions_seen_by(state, seat)
                assert {region: page[region] for region in public} == {r: spectators[r] for r in public}
                if seat in changed and other["chosen"][seat] != state["chosen"][seat]:
                    assert regions_seen_by(other, seat)["g-decision"] != page["g-decision"]
                    secrets_shown += 1
            checked += 1
        seat = rng.choice(ENGINE.to_act(state))
        state = ENGINE.apply(state, seat, base.random_bot_action(ENGINE, state, seat, rng))
    assert checked > 10 and secrets_shown > 0, (checked, secrets_shown)
