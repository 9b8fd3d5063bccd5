"""Issue 10 for Tulip Bubble: the status names the decision and its state, the decision panel holds
the seat's controls, irreversible one-tap actions ask to confirm, changing things are tracked, a
danger cue comes before the burst, and the end screen tells the story — without leaking a secret."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest

from app.games import base
from app.games.base import State
from app.games.tulip_bubble import ENGINE
from app.web.render import Table, environment, render_seat_html, seat_context
from tests.games.tulip_bubble.tulip_bubble_helpers import (
    ANDY,
    BOB,
    CHARLES,
    DENNIS,
    at_auction,
    at_last_placement,
    at_placement,
    at_selling,
    play,
    table,
)

NAMES = ("Andy", "Bob", "Charles", "Dennis", "Eve")
LEVELS = {"red": 2, "white": 3, "yellow": 4}  # the rulebook's selling example: red II, white III, yellow IV


def name_of(seat: int) -> str:
    return NAMES[seat]


def plain(html: str) -> str:
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    return text.replace(" .", ".").replace(" ,", ",").replace(" :", ":")


def prompt(state: State, seat: int | None, locale: str = "en") -> str:
    """The status sentence one viewer reads (the platform's status region includes prompt.html)."""
    return seat_template(state, seat, "prompt.html", locale)


def seat_template(
    state: State, seat: int | None, name: str, locale: str = "en", legal: list[dict[str, Any]] | None = None
) -> str:
    """One of the game's templates as one viewer reads it; ``legal=[]`` is how a replay draws a seat."""
    players = state["players"]
    room = Table(
        code="t",
        game=ENGINE.info.id,
        status="playing",
        players=[
            {
                "seat": s,
                "name": NAMES[s],
                "is_bot": False,
                "connected": True,
                "is_you": s == seat,
                "is_host": s == 0,
                "bot_controlled": False,
            }
            for s in range(players)
        ],
        to_act=ENGINE.to_act(state),
        result=None,
        next_code=None,
        capacity=players,
    )
    context = seat_context(ENGINE, {**state, "events": []}, seat, room, locale, legal=legal)
    template = environment(locale, ENGINE.info.id).get_template(f"games/tulip-bubble/{name}")
    return plain(template.render(context.values))


def page(state: State, seat: int | None, locale: str = "en") -> str:
    return render_seat_html(ENGINE, state, seat, locale, names=name_of)


def region(html: str, name: str) -> str:
    found = re.search(rf'<section id="r-{name}"[^>]*>(.*?)</section>', html, re.S)
    assert found, name
    return found.group(1)


# --- status texts ----------------------------------------------------------------------------------


def test_placing_tokens_names_the_quota_and_how_many_are_placed() -> None:
    state = at_placement(table(levels=LEVELS, rows={"new_arrivals": ["red-B1-1", "white-C1-1"]}))
    assert prompt(state, ANDY) == "Place up to 2 purchase tokens on New Arrivals or Just Sold — 0 placed."
    state = play(state, (ANDY, {"type": "place", "card": "red-B1-1"}))
    assert prompt(state, ANDY) == "Place up to 2 purchase tokens on New Arrivals or Just Sold — 1 placed."
    assert prompt(state, BOB) == "Andy is placing up to 2 purchase tokens — 1 placed."
    assert prompt(state, None) == "Andy is placing up to 2 purchase tokens — 1 placed."


def test_the_second_placement_turn_allows_one_token_in_the_singular() -> None:
    state = at_placement(table(levels=LEVELS, rows={"just_sold": ["red-B1-1"]}), index=4)
    assert prompt(state, ANDY) == "Place up to 1 purchase token on New Arrivals or Just Sold — 0 placed."
    assert prompt(state, CHARLES) == "Andy is placing up to 1 purchase token — 0 placed."


def test_a_seat_whose_tokens_all_lie_on_mortgages_is_told_to_redeem() -> None:
    mortgages = {ANDY: [("red-A-1", 15), ("red-A-2", 15), ("white-A-1", 15)]}
    state = at_placement(table(levels=LEVELS, mortgages=mortgages, rows={"just_sold": ["red-B1-1"]}))
    assert (
        prompt(state, ANDY)
        == "All your purchase tokens lie on mortgages: redeem one to bid, or place no more."
    )


def test_a_replayed_placement_with_free_tokens_does_not_say_they_lie_on_mortgages() -> None:
    """A replay draws the seat to move with no legal actions: that is not a seat without a free token."""
    state = at_placement(table(levels=LEVELS, rows={"new_arrivals": ["red-B1-1", "white-C1-1"]}))
    replayed = seat_template(state, ANDY, "decision.html", legal=[])
    assert "3 free purchase tokens" in replayed
    assert "mortgages" not in replayed
    mortgages = {ANDY: [("red-A-1", 15), ("red-A-2", 15), ("white-A-1", 15)]}
    stuck = at_placement(table(levels=LEVELS, mortgages=mortgages, rows={"just_sold": ["red-B1-1"]}))
    assert "All your purchase tokens lie on mortgages" in seat_template(stuck, ANDY, "decision.html")


def test_the_selling_turn_counts_the_hand_and_its_value() -> None:
    one = at_selling(table(levels=LEVELS, hands={ANDY: ["white-C1-1"]}))
    assert prompt(one, ANDY) == (
        "Your selling turn: sell your 1 tulip (worth ƒ5), sell to a collector or redeem, then end your turn."
    )
    three = at_selling(table(levels=LEVELS, hands={ANDY: ["white-C1-1", "red-B1-1", "yellow-A-1"]}))
    assert "sell any of your 3 tulips (worth ƒ30)" in prompt(three, ANDY)
    assert prompt(three, DENNIS) == "Andy is selling tulips."
    mortgaged = at_selling(table(levels=LEVELS, mortgages={ANDY: [("yellow-A-1", 18)]}))
    assert (
        prompt(mortgaged, ANDY)
        == "Your selling turn: sell or redeem your mortgaged tulips, then end your turn."
    )


def test_the_auction_names_the_card_the_high_bid_and_the_minimum() -> None:
    state = at_auction(table(levels=LEVELS), "yellow-B1-1", [BOB, CHARLES, ANDY])  # yellow IV: B = 10
    assert prompt(state, BOB) == "Auction for Yellow B1 (market price ƒ10): bid at least ƒ11 or drop out."
    assert prompt(state, ANDY) == "Bob is bidding for Yellow B1 (no bid yet, market price ƒ10)."
    state = play(state, (BOB, {"type": "raise", "amount": 12}))
    assert prompt(state, CHARLES) == "Auction for Yellow B1: Bob bid ƒ12 — raise to at least ƒ13 or drop out."
    assert prompt(state, None) == "Charles is bidding for Yellow B1 (high bid ƒ12 by Bob)."


def test_payment_tells_the_winner_whether_cash_is_possible() -> None:
    state = at_auction(table(levels=LEVELS, cash={BOB: 5}), "yellow-B1-1", [BOB, CHARLES])
    won = play(state, (BOB, {"type": "raise", "amount": 11}), (CHARLES, {"type": "drop"}))
    assert prompt(won, BOB) == "You buy Yellow B1 for ƒ11: your cash is short, so mortgage it."
    assert prompt(won, ANDY) == "Bob is paying ƒ11 for Yellow B1, in cash or with a mortgage."
    rich = play(
        at_auction(table(levels=LEVELS), "yellow-B1-1", [BOB, CHARLES]),
        (BOB, {"type": "raise", "amount": 11}),
        (CHARLES, {"type": "drop"}),
    )
    assert prompt(rich, BOB) == "You buy Yellow B1 for ƒ11: pay in cash or mortgage it."


@pytest.mark.parametrize(
    ("locale", "words"),
    [("zh_Hant", ("購買指示物", "已放 1 個")), ("zh_Hans", ("购买指示物", "已放 1 个"))],
)
def test_status_texts_are_translated_with_their_counts(locale: str, words: tuple[str, ...]) -> None:
    state = at_placement(table(levels=LEVELS, rows={"new_arrivals": ["red-B1-1", "white-C1-1"]}))
    state = play(state, (ANDY, {"type": "place", "card": "red-B1-1"}))
    for seat in (ANDY, BOB, None):
        text = prompt(state, seat, locale)
        assert all(word in text for word in words), text
        assert not re.search(r"[A-Za-z]{3,}", text.replace("Andy", "")), text


# --- what every page of a played game shows ---------------------------------------------------------


def positions(players: int, seed: int) -> list[State]:
    """Every state of one randomly played game (the generic random player: no bot of this game)."""
    state = ENGINE.setup(players, {}, seed)
    rng = random.Random(seed)
    states = [state]
    while not state["finished"]:
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, base.random_bot_action(ENGINE, state, seat, rng))
        states.append(state)
    return states


@pytest.fixture(scope="module")
def game() -> list[State]:
    states = positions(4, seed=36)
    step = max(1, len(states) // 40)
    return states[::step] + [states[-1]]


BAD_PLURALS = re.compile(
    r"\b1 (tulips|tokens|purchase tokens|cards|guilders)\b|\((s)\)|\b([02-9]|\d\d+) (tulip|purchase token|card) "
)


def test_no_page_shows_a_wrong_plural(game: list[State]) -> None:
    for state in game:
        for seat in (None, 0, 1):
            text = plain(page(state, seat))
            assert not BAD_PLURALS.search(text), (state["phase"], BAD_PLURALS.search(text))


def test_the_decision_panel_holds_the_seats_controls_and_is_unique(game: list[State]) -> None:
    for state in game:
        for seat in range(state["players"]):
            html = page(state, seat)
            decisions = len(re.findall(r'class="[^"]*(?<![-\w])decision(?![-\w])[^"]*"', html))
            if seat in ENGINE.to_act(state):
                assert decisions == 1, state["phase"]
                home = "g-hand" if state["phase"] == "selling" else "g-decision"
                assert 'decision"' in region(html, home)
            else:
                assert decisions == 0, state["phase"]


def test_tracked_keys_and_form_ids_are_unique_on_every_page(game: list[State]) -> None:
    tracked: Counter[str] = Counter()
    for state in game:
        for seat in (None, *range(state["players"])):
            html = page(state, seat)
            keys = re.findall(r'data-track="([^"]+)"', html)
            assert len(keys) == len(set(keys)), [k for k, n in Counter(keys).items() if n > 1]
            tracked.update(keys)
            forms = re.findall(r"<form\b[^>]*>", html)
            action_forms = [form for form in forms if 'action="/r/testroom/act"' in form]
            ids = [re.search(r'id="([^"]+)"', form) for form in action_forms]
            assert all(ids), "an action form without an id"
            names = [found.group(1) for found in ids if found]
            assert len(names) == len(set(names))
    for key in ("level-red", "cash-0", "hand-size-1", "tokens-2", "decks", "round"):
        assert tracked[key], key


def test_price_markers_tokens_and_row_cards_move_and_are_tracked() -> None:
    state = at_placement(
        table(levels=LEVELS, rows={"new_arrivals": ["red-B1-1"], "next_shipment": ["white-C1-1"]})
    )
    state = play(state, (ANDY, {"type": "place", "card": "red-B1-1"}))
    html = page(state, BOB)
    assert re.search(r'data-track="level-yellow" data-value="4" data-move', region(html, "g-board"))
    assert re.search(r'data-track="token-red-B1-1-0" data-move', region(html, "g-new-arrivals"))
    assert re.search(
        r'data-track="row-card-white-C1-1" data-value="5" data-move', region(html, "g-next-shipment")
    )


def test_irreversible_one_tap_actions_ask_to_confirm() -> None:
    selling = at_selling(
        table(levels=LEVELS, hands={ANDY: ["white-C1-1"]}, mortgages={ANDY: [("yellow-A-1", 18)]})
    )
    hand = region(page(selling, ANDY), "g-hand")
    assert 'id="f-sell-white-C1-1"' in hand and 'data-confirm="Sell White C1 for ƒ5?"' in hand
    assert 'data-confirm="Sell the mortgaged Yellow A and receive ƒ2?"' in hand
    assert 'id="f-redeem-yellow-A-1"' in hand
    auction = at_auction(table(levels=LEVELS), "yellow-B1-1", [BOB, CHARLES])
    panel = region(page(auction, BOB), "g-decision")
    assert 'id="f-drop"' in panel and 'data-confirm="Drop out of this auction for good?"' in panel
    assert 'id="f-raise-own"' in panel and '<label for="tb-own-amount">' in panel
    won = play(auction, (BOB, {"type": "raise", "amount": 11}), (CHARLES, {"type": "drop"}))
    panel = region(page(won, BOB), "g-decision")
    assert 'data-confirm="Mortgage Yellow B1 at ƒ11?"' in panel
    assert re.search(r'id="f-pay-cash".*?<button type="submit" class="primary">', panel, re.S)


def test_placing_a_token_is_a_tap_on_the_tulip_itself() -> None:
    state = at_placement(
        table(levels=LEVELS, rows={"new_arrivals": ["red-B1-1"], "just_sold": ["white-A-1"]})
    )
    state = play(state, (ANDY, {"type": "place", "card": "red-B1-1"}))
    panel = region(page(state, ANDY), "g-decision")
    assert 'id="f-place-white-A-1"' in panel
    assert "Place a purchase token on White A (market price ƒ15)" in panel
    assert 'id="f-place-red-B1-1"' not in panel  # already holds Andy's token
    assert "Red B1: your token is on it" in panel


# --- the danger cue ----------------------------------------------------------------------------


def late(state: State, cards_left: int) -> State:
    state["market_deck"] = ["rise:red", "plunge", "burst"][-cards_left:]
    return state


def test_the_danger_cue_comes_when_the_next_market_card_may_be_the_burst() -> None:
    hands = {ANDY: ["white-C1-1", "yellow-A-1"]}
    early = at_selling(
        table(levels=LEVELS, hands=hands, market_deck=["rise:red", "plunge", "rise:white", "burst"])
    )
    assert "danger-cue" not in page(early, ANDY)
    risky = at_selling(late(table(levels=LEVELS, hands=hands, round_=7), 3))
    hand = region(page(risky, ANDY), "g-hand")
    assert 'class="danger-cue" role="note"' in hand
    assert "a chance of 1 in 3" in plain(hand)
    assert "your 2 tulips in hand, worth ƒ25 now, will be worth nothing" in plain(hand)
    assert 'data-confirm="End your turn keeping 2 tulips?"' in hand
    certain = at_selling(late(table(levels=LEVELS, hands=hands, round_=9), 1))
    assert "The next market card is the Bubble Burst." in plain(page(certain, ANDY))
    spectator = plain(region(page(risky, None), "g-hand"))
    assert "every tulip in hand is worth nothing" in spectator


def test_the_danger_cue_tells_no_one_another_seats_hand() -> None:
    state = at_selling(late(table(levels=LEVELS, hands={ANDY: ["yellow-A-1"], BOB: ["white-C1-1"]}), 2))
    richer = base.copy_state(state)
    richer["hands"][ANDY] = ["yellow-A-2"]  # same size, another card: only Andy may tell them apart
    richer["cash"][ANDY] = 99
    for viewer in (None, BOB, CHARLES):
        assert page(state, viewer) == page(richer, viewer)


# --- endings ---------------------------------------------------------------------------------


def burst_ending() -> State:
    """Round 9 ends with Bob holding two tulips and Charles one mortgage; the next card bursts."""
    state = table(
        levels=LEVELS,
        hands={BOB: ["white-C1-1", "red-B1-1"]},
        mortgages={CHARLES: [("red-A-1", 15)]},
        cash={ANDY: 81, BOB: 55, CHARLES: 90, DENNIS: 113},
        market_deck=["burst"],
        round_=8,
    )
    state = at_last_placement(state)
    return play(state, (ENGINE.to_act(state)[0], {"type": "end_turn"}))


def test_the_burst_ending_tells_the_story_and_each_account() -> None:
    state = burst_ending()
    assert state["finished"] and state["end"]["reason"] == "burst"
    html = page(state, BOB)
    ending = plain(region(html, "g-auction"))
    assert "The Bubble Burst came at the start of round 9: Dennis wins with assets of ƒ113." in ending
    assert "2 tulips still in hand became worthless." in ending
    assert "Mortgages turned into 15 guilders of debts." in ending
    assert "Your 2 tulips would have fetched ƒ10 at market the round before." in plain(region(html, "g-hand"))
    assert "Runner-up: Andy, ƒ32 behind." in ending
    rows = re.findall(
        r"<tr class=\"[^\"]*\">\s*<td>(\w+).*?</td>\s*<td class=\"num\">ƒ(\d+)</td>\s*"
        r"<td class=\"num\">ƒ(\d+)</td>\s*<td class=\"num\"><strong>(−?ƒ\d+)</strong>",
        html,
        re.S,
    )
    assert [row[0] for row in rows] == ["Dennis", "Andy", "Charles", "Bob"]  # by assets
    assert ("Charles", "90", "15", "ƒ75") in rows
    assert 'class="tb-final-chart"' in html and html.count('class="tb-bar') >= 4
    assert "icon-trophy" in region(html, "g-auction")
    assert "Your 2 tulips" not in page(state, ANDY)  # only Bob knows what his hand was worth


def test_the_final_chart_names_each_player_whole() -> None:
    """The trial's 1280 px end screen showed "Bot Bernoul…": a name beside the bars was cut at ten
    characters."""
    long_names = {ANDY: "Bot Bernoulli", BOB: "Bartholomew of Haarlem"}
    html = render_seat_html(
        ENGINE, burst_ending(), BOB, "en", names=lambda seat: long_names.get(seat, NAMES[seat])
    )
    chart = re.findall(r'<text class="tb-bar-name"[^>]*>([^<]*)</text>', region(html, "g-auction"))
    assert sorted(chart) == sorted(["Bot Bernoulli", "Bartholomew of Haarlem", "Charles", "Dennis"])


def test_the_black_tulip_ending_names_the_declarers() -> None:
    state = table(
        levels=LEVELS, cash={ANDY: 130, BOB: 125}, market_deck=["rise:red", "plunge", "burst"], round_=3
    )
    state = at_last_placement(state)
    state = play(state, (ENGINE.to_act(state)[0], {"type": "end_turn"}))
    assert state["finished"] and state["end"]["reason"] == "black_tulip"
    ending = plain(region(page(state, None), "g-auction"))
    assert "Andy bought the black tulip in round 4 with 130 guilders and wins." in ending
    assert "Bob declared too, with less cash." in ending


@pytest.mark.parametrize("locale", ["zh_Hant", "zh_Hans"])
def test_the_ending_reads_in_chinese(locale: str) -> None:
    ending = plain(region(page(burst_ending(), BOB, locale), "g-auction"))
    assert "泡沫破裂" in ending and "Dennis" in ending
    assert not re.search(r"\b(tulips?|guilders?|wins|debts)\b", ending), ending


def test_the_finished_page_reveals_no_other_hand() -> None:
    """At the end cash, debts and assets are shown to all (ruling 11), hands only by their size."""
    final = burst_ending()
    swapped = base.copy_state(final)
    swapped["hands"][BOB] = ["yellow-A-2", "red-C3-1"]
    for viewer in (None, ANDY, CHARLES, DENNIS):
        assert page(final, viewer) == page(swapped, viewer)
    assert page(final, BOB) != page(swapped, BOB)


def test_every_amount_carries_its_unit_in_each_language() -> None:
    """Issue 20: money is ƒ12 in English and 12 盾 in Chinese (the zh-Hans rulebook: '市价为 7 盾'),
    written once by the money helper, never twice ('12 盾 盾') nor bare beside a button."""
    selling = at_selling(
        table(levels=LEVELS, hands={ANDY: ["white-C1-1"]}, mortgages={ANDY: [("yellow-A-1", 18)]})
    )
    english = plain(region(page(selling, ANDY), "g-hand"))
    assert "Sell for ƒ5" in english and "Redeem for ƒ18" in english and "Sell: receive ƒ2" in english
    assert "recorded ƒ18, market price ƒ20" in english and "hand value ƒ5" in english
    simplified = plain(region(page(selling, ANDY, "zh_Hans"), "g-hand"))
    assert "以 5 盾卖出" in simplified and "支付 18 盾赎回" in simplified and "卖出：得到 2 盾" in simplified
    traditional = plain(region(page(selling, ANDY, "zh_Hant"), "g-hand"))
    assert "以 5 盾賣出" in traditional and "標示 18 盾，市價 20 盾" in traditional
    auction = at_auction(table(levels=LEVELS), "yellow-B1-1", [BOB, CHARLES])
    assert "Bid ƒ11" in plain(region(page(auction, BOB), "g-decision"))
    assert "出价 11 盾" in plain(region(page(auction, BOB, "zh_Hans"), "g-decision"))
    rng = random.Random(20)
    state = ENGINE.setup(4, {}, 20)
    while not state["finished"]:
        for locale in ("zh_Hant", "zh_Hans"):
            assert not re.search(r"盾\s*盾", plain(page(state, ENGINE.to_act(state)[0], locale)))
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, base.random_bot_action(ENGINE, state, seat, rng))


def test_every_card_chip_names_its_tulip_and_price_in_a_tooltip(game: list[State]) -> None:
    """Issue 20: a piece with a name or a value has a tooltip (a tap shows it on a phone). A card's chip
    shows only its letter and variety; the colours' chips spell their names and prices out."""
    chips_seen = 0
    for state in game:
        for seat in (None, 0):
            for attributes in re.findall(
                r'<span class="tb-chip tb-\w+"([^>]*)><b>[^<]*</b> [A-C]\d', page(state, seat, "zh_Hant")
            ):
                chips_seen += 1
                assert re.fullmatch(r' title="[^"]+ · \d[\d,]* 盾"', attributes), attributes
    assert chips_seen
