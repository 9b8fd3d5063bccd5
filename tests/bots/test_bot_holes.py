"""The holes issue 22 found in the easy and normal bots, each shown on a concrete position, and a short
sample of easy against three random legal bots in every game.

BENCHMARKS.md ("Bots and the simulator") has the 200-game figures and the commands.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from app import simulate
from app.games.basari import ENGINE as BASARI
from app.games.basari import bot as basari_bot
from app.games.base import State
from app.games.qe import ENGINE as QE
from app.games.registry import ENGINES
from app.games.tulipmania_1637 import ENGINE as TULIPMANIA
from app.games.tulipmania_1637 import data as tulipmania_data
from app.games.tulipmania_1637.data import PURCHASE, SPECULATE_BY_PROXY
from app.games.tulipmania_1637.rules import CHOOSE, SELLER_CHOICE


def _qe_after_a_spree(spender: int, auctions: int) -> State:
    """A Q.E. table of four after ``auctions`` auctions that ``spender`` won at 100 or more each while
    the others bid nothing (so the spender is by far the top spender, and can tell)."""
    state = QE.setup(4, {}, 3)
    while state["turn"] < auctions or state["phase"] == "award":
        seat = QE.to_act(state)[0] if QE.to_act(state) else None
        if state["phase"] == "award":
            seat = next(s for s in range(4) if any(t["type"] == "reveal" for t in QE.legal_actions(state, s)))
            state = QE.apply(state, seat, {"type": "reveal"})
            continue
        assert seat is not None
        amount = 100 + state["turn"] if seat == spender else (1 if state["phase"] == "open_bid" else 0)
        kind = "open_bid" if state["phase"] == "open_bid" else "bid"
        state = QE.apply(state, seat, {"type": kind, "amount": amount})
    return state


def test_easy_qe_stops_bidding_to_win_once_it_is_far_the_top_spender() -> None:
    """It used to price every tile at its face value whatever it had spent, and was eliminated as the
    top spender in every game against three random bots."""
    spender = 1
    state = _qe_after_a_spree(spender, auctions=8)
    while state["phase"] != "bidding" or spender not in QE.to_act(state):  # the next auction it bids in
        seat = QE.to_act(state)[0] if QE.to_act(state) else None
        if state["phase"] == "award":
            seat = next(s for s in range(4) if any(t["type"] == "reveal" for t in QE.legal_actions(state, s)))
            state = QE.apply(state, seat, {"type": "reveal"})
        elif state["phase"] == "open_bid":
            assert seat is not None
            state = QE.apply(state, seat, {"type": "open_bid", "amount": 5})
        else:
            assert seat is not None
            state = QE.apply(state, seat, {"type": "bid", "amount": 0})
    spent = QE.view(state, spender)["sheet"]["spent"]
    assert spent >= 800
    opening = state["auction"]["open_bid"]
    for draw in range(30):
        bid = QE.bot_action(state, spender, random.Random(draw), "easy")
        assert bid["type"] == "bid" and bid["amount"] < opening, bid  # it cannot win this tile


def _tulipmania_burst_sale(buyer_cash: int = 5000) -> tuple[State, int]:
    """A Tulipmania sale where a 2 – Purchase would move yellow from ƒ2000 onto the burst space: the
    seller holds four yellow tulips (each sold off in the burst), the bot none and one yellow buyer."""
    state = TULIPMANIA.setup(4, {}, 1)
    seller = state["current"]
    bot = (seller + 1) % 4
    two_thousand = next(
        cell for cell in tulipmania_data.purchase_track() if tulipmania_data.value(cell) == 2000
    )
    state["price"]["yellow"] = list(two_thousand)
    for seat in range(4):
        state["tulips"][seat]["yellow"] = 4 if seat == seller else 0
    state["buyers"][bot] = ["yellow", "purple", "orange"]
    state["cash"][bot] = buyer_cash
    state["sale"] = {"colour": "yellow", "cards": [None] * 4}
    state["sold_colour"] = "yellow"
    state["phase"] = CHOOSE
    return state, bot


def test_normal_tulipmania_does_not_burst_a_bubble_to_enrich_its_seller() -> None:
    """The logged play: bought at ƒ2000 into the burst, netting itself ƒ250 while the seller collected
    ƒ7,250 (the ƒ2000 and its other tulips in the sell-off)."""
    state, bot = _tulipmania_burst_sale()
    assert tulipmania_data.is_burst(tulipmania_data.purchase(state["price"]["yellow"]))
    legal = TULIPMANIA.legal_actions(state, bot)
    assert any(PURCHASE in t["params"]["card"]["options"] for t in legal if t["type"] == "play")
    cards = Counter(
        TULIPMANIA.bot_action(state, bot, random.Random(draw), "normal")["card"] for draw in range(30)
    )
    assert cards[PURCHASE] == 0, cards


def test_normal_tulipmania_still_buys_a_rising_tulip_nobody_else_holds() -> None:
    """The weighing is against what a move hands the others, not against buying: at ƒ250 with a buyer
    of its own and no rival holding the colour, 2 – Purchase is still worth it."""
    state, bot = _tulipmania_burst_sale()
    seller = state["current"]
    two_fifty = next(cell for cell in tulipmania_data.purchase_track() if tulipmania_data.value(cell) == 250)
    state["price"]["yellow"] = list(two_fifty)
    state["tulips"][seller]["yellow"] = 1
    cards = Counter(
        TULIPMANIA.bot_action(state, bot, random.Random(draw), "normal")["card"] for draw in range(30)
    )
    assert cards.most_common(1)[0][0] != 0, cards  # not Pass


def _basari_choosing(seed: int) -> State:
    state = BASARI.setup(4, {}, seed)
    assert state["phase"] == "choose"
    return state


def _wasted(cards: list[str]) -> bool:
    return any(cards.count(card) >= 3 for card in set(cards) if card != "D")


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_normal_basari_bots_at_one_table_clash_less_than_random_choice(seed: int) -> None:
    """At the first choice of a game, four normal bots used to read one another alike and land three or
    more on the same card in over a third of turns; drawing from the table's choice odds they spread."""
    state = _basari_choosing(seed)
    table = basari_bot.table_of(BASARI.view(state, 0))
    odds = basari_bot.choice_odds(table)
    assert all(abs(sum(seat.values()) - 1) < 1e-9 for seat in odds)
    wasted = 0
    draws = 200
    for draw in range(draws):
        cards = [
            BASARI.bot_action(state, seat, random.Random(f"{draw}/{seat}"), "normal")["card"]
            for seat in range(4)
        ]
        wasted += _wasted(cards)
    assert wasted / draws < 0.25, wasted / draws  # uniform random choice: 1 in 3


def test_the_basari_wasted_action_measure_counts_three_or_more_on_one_card() -> None:
    state = _basari_choosing(1)
    for seat, card in enumerate(["A", "A"]):
        state = BASARI.apply(state, seat, {"type": "choose", "card": card})
    before_last = BASARI.apply(state, 2, {"type": "choose", "card": "A"})
    assert simulate.basari_wasted_action(state, 2, {"type": "choose", "card": "A"}) is None  # one to go
    assert simulate.basari_wasted_action(before_last, 3, {"type": "choose", "card": "B"}) is True
    other = BASARI.apply(state, 2, {"type": "choose", "card": "C"})
    assert simulate.basari_wasted_action(other, 3, {"type": "choose", "card": "B"}) is False


EASY_SAMPLE = 40  # games per game: a few seconds each; BENCHMARKS.md has the 200-game figures


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_easy_beats_three_random_legal_bots(game: str) -> None:
    summary = simulate.simulate(
        game, 4, EASY_SAMPLE, ["easy", "random", "random", "random"], seed=1, check=False
    )
    rates: dict[str, Any] = summary.by_kind()
    print(summary.report())
    assert rates["easy"].mean > 0.4 and rates["easy"].mean > 2 * rates["random"].mean, summary.report()


def test_normal_tulipmania_seller_does_not_burst_a_colour_the_others_hold_plenty_of() -> None:
    """Everybody passed on the seller's yellow at ƒ1000; its 3 – Speculate by proxy would jump the price
    onto the burst space at ƒ4000, paying it ƒ3000 but each rival's four yellow tulips far more in the
    sell-off: a seller weighs that too, and takes another card."""
    state, _ = _tulipmania_burst_sale()
    seller = state["current"]
    thousand = next(cell for cell in tulipmania_data.purchase_track() if tulipmania_data.value(cell) == 1000)
    state["price"]["yellow"] = list(thousand)
    jump = tulipmania_data.speculate(thousand)
    assert jump is not None and tulipmania_data.is_burst(jump[1])
    for seat in range(4):
        state["tulips"][seat]["yellow"] = 1 if seat == seller else 4
    state["buyers"][seller] = ["yellow", "yellow", "purple"]
    state["sale"]["cards"] = [None if seat == seller else 0 for seat in range(4)]
    state["phase"] = SELLER_CHOICE
    legal = TULIPMANIA.legal_actions(state, seller)
    assert any(SPECULATE_BY_PROXY in t["params"]["card"]["options"] for t in legal if t["type"] == "play")
    cards = Counter(
        TULIPMANIA.bot_action(state, seller, random.Random(draw), "normal")["card"] for draw in range(30)
    )
    assert cards[SPECULATE_BY_PROXY] == 0, cards
