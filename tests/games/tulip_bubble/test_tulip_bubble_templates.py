"""Tulip Bubble pages and catalogues: every region renders in all locales, forms only for legal
actions, no seat's page shows another seat's hand or cash, the public regions are drawn from what
everyone sees, every string is translated."""

from __future__ import annotations

import copy
import random
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from app.games import base
from app.games.base import State
from app.games.registry import checks_of
from app.games.tulip_bubble import ENGINE, INFO, MARKET_REGIONS
from app.games.tulip_bubble.data import AUCTION_ROWS
from app.i18n_catalogues import extract, parts
from app.web.app import form_to_action
from app.web.render import render_seat_html

ROOT = Path(__file__).resolve().parents[3]
LOCALES = ("en", "zh_Hant", "zh_Hans")


def positions(players: int, seed: int) -> list[State]:
    """One state per phase met in a bot game, the final one included."""
    state = ENGINE.setup(players, {}, seed)
    rng = random.Random(seed)
    seen: dict[str, State] = {}
    while not state["finished"]:
        seen.setdefault(state["phase"], state)
        if state["round"] >= 3 and state["phase"] not in ("selling",):
            seen.setdefault(f"{state['phase']}-late", state)
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, base.random_bot_action(ENGINE, state, seat, rng))
    seen["finished"] = state
    return list(seen.values())


@pytest.mark.parametrize("players", [3, 5])
def test_every_region_renders_for_every_seat_and_locale(players: int) -> None:
    for state in positions(players, seed=players):
        for seat in [None, *range(players)]:
            for locale in LOCALES:
                html = render_seat_html(ENGINE, state, seat, locale)
                assert "<svg" in html and 'id="r-g-board"' in html


def test_forms_are_rendered_only_for_legal_actions() -> None:
    """Templates: render forms only for actions present in ``legal``."""
    for state in positions(4, seed=9):
        for seat in range(4):
            html = render_seat_html(ENGINE, state, seat)
            offered = set(re.findall(r'name="type" value="([a-z_]+)"', html))
            legal = {template["type"] for template in ENGINE.legal_actions(state, seat)}
            assert offered <= legal, (state["phase"], offered - legal)
            if seat in ENGINE.to_act(state):
                assert offered, state["phase"]


class _Forms(HTMLParser):
    """The fields each game-action form of a page would post (hidden and prefilled inputs)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[list[tuple[str, str]]] = []
        self.in_action_form = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        fields = dict(attrs)
        if tag == "form":
            self.in_action_form = str(fields.get("action", "")).endswith("/act")
            if self.in_action_form:
                self.forms.append([])
        elif tag == "input" and self.in_action_form and fields.get("name") not in (None, "version"):
            self.forms[-1].append((str(fields["name"]), str(fields.get("value", ""))))


def test_every_form_on_a_page_posts_an_action_the_engine_accepts() -> None:
    """Forms carry exactly the engine's params (a player clicking any button is never refused)."""
    checked = 0
    for state in positions(4, seed=13) + positions(5, seed=4):
        for seat in range(state["players"]):
            parser = _Forms()
            parser.feed(render_seat_html(ENGINE, state, seat))
            for fields in parser.forms:
                ENGINE.apply(state, seat, form_to_action(fields))
                checked += 1
    assert checked > 20


def test_auction_page_shows_minimum_bid_quick_amounts_and_overflow() -> None:
    state = next(s for s in positions(4, seed=2) if s["phase"] == "auction")
    seat = ENGINE.to_act(state)[0]
    minimum = ENGINE.view(state, seat)["auction"]["min_bid"]
    html = render_seat_html(ENGINE, state, seat)
    for amount in (minimum, minimum + 1, minimum + 2, minimum + 5):
        assert f'name="amount" value="{amount}"' in html
    assert "Overflow:" in html and 'value="drop"' in html


def _with_other_secrets(state: State, owner: int) -> State:
    other = base.copy_state(state)
    other["cash"][owner] += 41
    hand = other["hands"][owner]
    for index in range(min(len(hand), len(other["deck"]))):
        hand[index], other["deck"][index] = other["deck"][index], hand[index]
    return other


@pytest.mark.parametrize("players", [3, 4, 5])
def test_no_rendered_page_shows_another_seats_hand_or_cash(players: int) -> None:
    """Ruling 12: a page is identical whatever another seat holds and owns (until the game ends)."""
    for state in positions(players, seed=20 + players):
        if state["finished"]:
            continue
        for owner in range(players):
            variant = _with_other_secrets(state, owner)
            for viewer in [None, *range(players)]:
                if viewer != owner:
                    assert render_seat_html(ENGINE, state, viewer) == render_seat_html(
                        ENGINE, variant, viewer
                    )


def _public_regions(html: str) -> dict[str, str]:
    """The public regions of a rendered page, by name."""
    found = dict(re.findall(r'<section id="r-g-([a-z-]+)"[^>]*>(.*?)</section>', html, re.S))
    return {region: found[region] for region in INFO.public_regions}


@pytest.mark.parametrize("players", [3, 5])
def test_the_public_regions_carry_no_seats_secret(players: int) -> None:
    """The auction, the market's regions and the history are drawn from the spectators' view: each is the
    same for every viewer, and the same whatever any seat holds (its disguise: other cash, other hand
    cards, other deck orders) until the game ends and every account is shown."""
    assert set(INFO.public_regions) == {"auction", *MARKET_REGIONS, "history"}
    disguise = checks_of(ENGINE.info.id).disguise
    rng = random.Random(players)
    compared = 0
    for state in positions(players, seed=30 + players):
        spectators = _public_regions(render_seat_html(ENGINE, state, None))
        for seat in range(players):
            assert _public_regions(render_seat_html(ENGINE, state, seat)) == spectators, state["phase"]
        if state["finished"]:
            continue
        for owner in range(players):
            disguised, changed = disguise(state, owner, rng)
            assert changed == {owner}
            assert _public_regions(render_seat_html(ENGINE, disguised, None)) == spectators, state["phase"]
            compared += 1
    assert compared >= 4 * players


def test_only_the_seat_to_move_has_a_decision_region() -> None:
    """The private decision region is empty for every seat not to move and for spectators (the page
    hides it); the seat placing, bidding or paying finds its controls there."""
    for state in positions(4, seed=11):
        for seat in [None, *range(4)]:
            decision = re.search(
                r'<section id="r-g-decision"[^>]*>(.*?)</section>',
                render_seat_html(ENGINE, state, seat),
                re.S,
            )
            assert decision is not None
            deciding = seat in ENGINE.to_act(state) and state["phase"] in ("bidding", "auction", "payment")
            assert ('class="tb-decision panel decision"' in decision.group(1)) == deciding, state["phase"]
            if not deciding:
                assert decision.group(1) == "", state["phase"]


def test_end_screen_shows_each_players_cash_debts_and_assets() -> None:
    final = positions(4, seed=5)[-1]
    html = render_seat_html(ENGINE, final, 0)
    for seat in range(4):
        assert f">{final['end']['assets'][seat]}<" in html


@pytest.mark.parametrize("locale", ["zh_Hant", "zh_Hans"])
def test_chinese_pages_use_full_width_colons(locale: str) -> None:
    """A colon belongs to its translated words: no "購買:" made of a translated word and an English colon."""
    for state in positions(4, seed=7):
        for seat in (None, 0):
            html = render_seat_html(ENGINE, state, seat, locale)
            assert not re.search(r"[\u3400-\u9fff\uff09\u300d](?:<[^>]+>)*\s*:", html), state["phase"]


def _msgids() -> list[str | tuple[str, str]]:
    """Every message of this game's code and templates: a msgid, or (singular, plural)."""
    part = next(part for part in parts() if part.name == "tulip-bubble")
    return list(extract(part).values())


@pytest.mark.parametrize("locale", ["zh_Hant", "zh_Hans"])
def test_every_string_has_a_translation_with_the_same_placeholders(locale: str) -> None:
    with (ROOT / f"app/games/tulip_bubble/locale/{locale}.po").open("rb") as handle:
        catalog = read_po(handle, locale=locale)
    placeholders = re.compile(r"\{\w+\}|%\(\w+\)s")
    for msgid in _msgids():
        singular = msgid if isinstance(msgid, str) else msgid[0]
        message = catalog.get(singular)
        assert message is not None, singular
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert strings and all(strings), singular
        # Chinese has one plural form, which may leave out the count (%(num)s) it is chosen by.
        expected = sorted(set(placeholders.findall(singular)) - {"%(num)s"})
        for string in strings:
            assert isinstance(string, str), singular
            assert sorted(set(placeholders.findall(string)) - {"%(num)s"}) == expected, singular


def test_a_turn_with_no_free_token_says_where_the_tokens_are() -> None:
    """Two tokens on this round's tulips and one on a mortgage: "all your purchase tokens lie on
    mortgages" was untrue (the newcomer trial); the page says where they lie. All three on mortgages
    still reads as before."""
    state = next(
        s
        for s in positions(4, seed=3) + positions(4, seed=4) + positions(4, seed=5)
        if s["phase"] == "bidding"
    )
    seat = ENGINE.to_act(state)[0]
    cards = [card for row in AUCTION_ROWS for card in state["rows"][row]]
    placed = copy.deepcopy(state)
    placed["tokens"] = {card: [seat] for card in cards[:2]}
    placed["mortgages"][seat] = [{"card": cards[-1], "amount": 5}]
    placed["placement"] = {"index": 4, "quota": 1, "placed": 0}
    all_mortgaged = copy.deepcopy(state)
    all_mortgaged["tokens"] = {}
    all_mortgaged["mortgages"][seat] = [{"card": card, "amount": 5} for card in cards[:3]]
    for built, words in (
        (placed, "No purchase token is free (on tulips: 2, on mortgages: 1)"),
        (all_mortgaged, "All your purchase tokens lie on mortgages"),
    ):
        html = render_seat_html(ENGINE, built, seat)
        assert words in html
        if built is placed:
            assert "lie on mortgages" not in html
