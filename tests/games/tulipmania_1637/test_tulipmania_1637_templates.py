"""Tulipmania 1637 templates: every region renders for every seat, no seat's HTML carries another
seat's buyer colours or unrevealed action card, and the public regions are drawn from what every
spectator knows: nothing of a seat's secrets, nothing of who is looking."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import pytest

from app.games.base import State
from app.games.registry import checks_of
from app.games.tulipmania_1637 import ENGINE, data, rules
from app.web.app import form_to_action
from app.web.render import (
    PLATFORM_PUBLIC,
    RegionCache,
    Table,
    environment,
    public_regions,
    region_templates,
    render_seat_html,
    seat_context,
)
from tests.games.tulipmania_1637.tulipmania_helpers import disguised

ANN, BILL, CHARLES, DAVE = 0, 1, 2, 3


def played_states(players: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    states = [state]
    while not state["finished"]:
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
        states.append(state)
    return states


@pytest.mark.parametrize("players", [3, 4, 5])
def test_rendered_html_of_a_seat_never_depends_on_another_seats_secrets(players: int) -> None:
    states = played_states(players, seed=players)
    for state in states[:: max(1, len(states) // 6)] + [states[-1]]:
        for target in range(players):
            other = disguised(state, target)
            for seat in [None, *range(players)]:
                if seat != target:
                    assert render_seat_html(ENGINE, state, seat) == render_seat_html(ENGINE, other, seat)


def public_regions_drawn_by(state: State, seat: int | None, locale: str = "en") -> dict[str, str]:
    """Each public region drawn from ``seat``'s own context (its view, legal actions and "you"), where
    the platform draws it from the spectators' only."""
    players = state["players"]
    table = Table(
        code="testroom",
        game=ENGINE.info.id,
        status="finished" if state["finished"] else "playing",
        players=[{"seat": n, "name": f"Player {n + 1}", "is_you": n == seat} for n in range(players)],
        to_act=ENGINE.to_act(state),
        result=None,
        next_code=None,
        capacity=players,
    )
    context = seat_context(ENGINE, {**state, "events": []}, seat, table, locale, form_version=1)
    env = environment(locale, ENGINE.info.id)
    public = public_regions(ENGINE)
    return {
        region: RegionCache().region(env, region, template, context, locale).decode()
        for region, template in region_templates(ENGINE, table.status)
        if region in public and region not in PLATFORM_PUBLIC
    }


def test_the_game_draws_most_of_its_table_once_for_everyone() -> None:
    assert set(ENGINE.info.public_regions) == {"board", "market", "sale", "players", "history"}
    assert set(ENGINE.info.regions) - set(ENGINE.info.public_regions) == {"decision", "hand"}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_public_regions_carry_no_seats_secrets(players: int) -> None:
    """The spectators' view drives every public region: changing any one seat's secrets (its buyer
    colours, its sealed card, the deck orders: ``checks.disguise``) changes none of them, even drawn
    from that seat's own context, whose view holds those secrets."""
    disguise = checks_of(ENGINE.info.id).disguise
    rng = random.Random(players)
    states = played_states(players, seed=players + 40)
    checked = 0
    for state in states[:: max(1, len(states) // 25)] + [states[-1]]:
        public = public_regions_drawn_by(state, None)
        for owner in range(players):
            other, changed = disguise(state, owner, rng)
            assert changed == {owner}
            assert public_regions_drawn_by(other, None) == public, (state["phase"], owner)
            assert public_regions_drawn_by(other, owner) == public, (state["phase"], owner)
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("players", [3, 5])
def test_public_regions_read_nothing_of_who_is_looking(players: int) -> None:
    """Drawn from any seat's own context, each public region is what the spectators' drawing is: it
    reads no seat, no legal action, no "your move", so drawing it once loses nothing for anyone (the
    viewer's row is marked by the page, ``data-seat-row``)."""
    states = played_states(players, seed=players + 60)
    for state in states[:: max(1, len(states) // 20)] + [states[-1]]:
        spectators = public_regions_drawn_by(state, None)
        assert spectators.keys() == {f"g-{region}" for region in ENGINE.info.public_regions}
        for seat in range(players):
            assert public_regions_drawn_by(state, seat) == spectators, (state["phase"], seat)
    players_region = public_regions_drawn_by(states[0], None)["g-players"]
    assert [f'data-seat-row="{seat}"' in players_region for seat in range(players)] == [True] * players


@pytest.mark.parametrize("locale", ["en", "zh_Hant", "zh_Hans"])
def test_every_region_renders_through_a_whole_game(locale: str) -> None:
    for state in played_states(4, seed=11)[::3]:
        for seat in (None, 0, 1, 2, 3):
            html = render_seat_html(ENGINE, state, seat, locale)
            assert 'id="r-g-board"' in html and 'id="r-g-history"' in html and 'id="r-g-decision"' in html


def sale_open() -> State:
    state = ENGINE.setup(4, {}, 7)
    state["current"], state["priority"] = BILL, ANN
    state["buyers"] = [["orange", "purple", "yellow"], ["blue"] * 3, ["purple"] * 3, ["yellow"] * 3]
    state = ENGINE.apply(state, BILL, {"type": "sell", "colour": "orange"})
    return ENGINE.apply(state, ANN, {"type": "play", "card": data.PURCHASE})


def forms(html: str) -> list[str]:
    return re.findall(r'name="type" value="([a-z_]+)"', html)


def test_choosers_see_their_cards_with_consequences_and_unfulfillable_ones_disabled() -> None:
    html = render_seat_html(ENGINE, sale_open(), CHARLES)
    assert "Pay ƒ50, price goes to ƒ75." in html
    assert "Pay ƒ150, price goes to ƒ250." in html  # 4 – Speculate at ƒ50
    assert re.search(r'value="1" class="primary" disabled>1 – Purchase by proxy', html)
    assert re.search(
        r'value="4" class="primary" data-confirm="Play 4 – Speculate\? [^"]*">4 – Speculate', html
    )
    assert "Player 1: has chosen" in html and "Player 4: choosing…" in html


def test_others_see_who_has_chosen_but_never_what() -> None:
    state = sale_open()
    for seat in (None, BILL, CHARLES):
        html = render_seat_html(ENGINE, state, seat)
        assert "Player 1: has chosen" in html
        assert "2 – Purchase</b>" not in html and "You played" not in html
    assert "You played 2 – Purchase face down." in render_seat_html(ENGINE, state, ANN)
    assert "play" not in forms(render_seat_html(ENGINE, state, ANN))


def test_the_reveal_shows_every_card_and_the_winner() -> None:
    state = sale_open()
    state = ENGINE.apply(state, CHARLES, {"type": "play", "card": data.PASS})
    state = ENGINE.apply(state, DAVE, {"type": "play", "card": data.SPECULATE})
    html = render_seat_html(ENGINE, state, None)
    assert "Player 1: <b>2 – Purchase</b>" in html and "Player 3: <b>Pass</b>" in html
    assert re.search(r"Player 4: <b>4 – Speculate</b> <span class=\"tag turn\">wins the sale", html)


@pytest.mark.parametrize(
    ("locale", "proxy", "by_proxy_speculation"),
    [
        (
            "en",
            "Discard one orange buyer; the bank pays you ƒ50, price goes to ƒ75.",
            "Discard two orange buyers; the bank pays you ƒ150, price goes to ƒ250.",
        ),
        (
            "zh_Hant",
            "棄掉一張橙色買家；銀行付給你 ƒ50，價格變為 ƒ75。",
            "棄掉兩張橙色買家；銀行付給你 ƒ150，價格變為 ƒ250。",
        ),
        (
            "zh_Hans",
            "弃掉一张橙色买家；银行付给你 ƒ50，价格变为 ƒ75。",
            "弃掉两张橙色买家；银行付给你 ƒ150，价格变为 ƒ250。",
        ),
    ],
)
def test_when_everybody_passes_the_sellers_own_cards_say_the_bank_pays_you(
    locale: str, proxy: str, by_proxy_speculation: str
) -> None:
    """Ruling 2: the seller then plays Pass, 1 or 3 face up, and the money goes to the seller."""
    state = ENGINE.setup(4, {}, 7)
    state["current"], state["priority"] = BILL, ANN
    state["buyers"] = [["purple"] * 3, ["orange"] * 3, ["purple"] * 3, ["yellow"] * 3]
    state = ENGINE.apply(state, BILL, {"type": "sell", "colour": "orange"})
    for seat in (ANN, CHARLES, DAVE):
        state = ENGINE.apply(state, seat, {"type": "play", "card": data.PASS})
    assert state["phase"] == rules.SELLER_CHOICE
    html = render_seat_html(ENGINE, state, BILL, locale)
    assert proxy in html and by_proxy_speculation in html
    assert "Player 2" not in html.split('class="tm-cards"')[1].split("</ul>")[0]


def test_spectators_get_no_forms_and_only_the_seat_to_act_gets_its_forms() -> None:
    state = ENGINE.setup(4, {}, 3)
    current = state["current"]
    assert forms(render_seat_html(ENGINE, state, None)) == []
    assert set(forms(render_seat_html(ENGINE, state, current))) == {"sell"}
    assert forms(render_seat_html(ENGINE, state, (current + 1) % 4)) == []


def test_own_buyer_colours_are_shown_to_their_owner() -> None:
    state = sale_open()
    html = render_seat_html(ENGINE, state, DAVE)
    assert re.search(r'Y</b> yellow</span>\s*<span data-track="my-buyers-yellow">3 buyers</span>', html)


def test_a_burst_is_played_out_step_by_step_in_the_log_and_standings_close_the_game() -> None:
    final = played_states(3, seed=5)[-1]
    html = render_seat_html(ENGINE, final, None)
    assert "bubble bursts at ƒ" in html and "Final standings" in html
    assert html.count("sells off one") + html.count("to one of their") >= 3


class ActionForms(HTMLParser):
    """The action each enabled submit button of a page would post (hidden inputs plus the button's
    own name/value), and the actions of disabled buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.enabled: list[dict[str, object]] = []
        self.disabled: list[dict[str, object]] = []
        self.fields: list[tuple[str, str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "form":
            self.fields = [] if str(named.get("action", "")).endswith("/act") else None
        elif self.fields is not None and tag == "input" and named.get("name") not in (None, "version"):
            self.fields.append((str(named["name"]), str(named.get("value", ""))))
        elif self.fields is not None and tag == "button":
            extra = [(str(named["name"]), str(named.get("value", "")))] if named.get("name") else []
            action = form_to_action(self.fields + extra)
            (self.disabled if "disabled" in named else self.enabled).append(action)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.fields = None


@pytest.mark.parametrize("players", [3, 5])
def test_every_enabled_button_posts_an_action_the_engine_accepts(players: int) -> None:
    """Forms carry exactly the engine's params; disabled cards are the ones the seat cannot fulfil."""
    checked = 0
    for state in played_states(players, seed=players + 20):
        for seat in range(players):
            page = ActionForms()
            page.feed(render_seat_html(ENGINE, state, seat))
            offered = {str(a["type"]) for a in page.enabled}
            legal = ENGINE.legal_actions(state, seat)
            assert offered == {template["type"] for template in legal}
            for action in page.enabled:
                ENGINE.apply(state, seat, action)
                checked += 1
            playable = [t["params"]["card"]["options"] for t in legal if t["type"] == "play"]
            for action in page.disabled:
                assert int(str(action["card"])) not in playable[0]
    assert checked > 100


def test_the_rules_page_says_the_board_values_are_our_reconstruction() -> None:
    english = environment("en").get_template("games/tulipmania-1637/rules.html").render()
    assert "is a reconstruction from the rulebook's examples" in english
