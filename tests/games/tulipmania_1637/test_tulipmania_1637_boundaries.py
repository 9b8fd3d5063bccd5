"""Tulipmania 1637's numbers, each tested on both sides: the value the rule names and one past it (seed
tulipmania-1637.en.txt, rulings/tulipmania-1637.md). The rulebook's examples and the board's ★ cells
are in ``test_tulipmania_1637_rules.py``.

Seats as in the rulebook's examples: Ann 0, Bill 1, Charles 2, Dave 3; Bill sells, Ann holds priority.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.games.base import IllegalAction, State
from app.games.tulipmania_1637 import ENGINE, data, rules

ANN, BILL, CHARLES, DAVE = 0, 1, 2, 3


def cell_of(value: int) -> list[int]:
    """The current-price space showing ``value``."""
    (cell,) = [
        [r, c]
        for r in range(data.rows())
        for c in range(data.columns())
        if data.value((r, c)) == value and data.kind((r, c)) == data.CURRENT
    ]
    return cell


def table(players: int = 4) -> State:
    """A fresh game: Bill holds the current player card, Ann the priority card."""
    state = rules.setup(players, {}, 7)
    state["current"], state["priority"] = BILL, ANN
    return state


def play(state: State, seat: int, **action: Any) -> State:
    return ENGINE.apply(state, seat, action)


def offered(state: State, seat: int) -> list[int]:
    """The action cards ``seat`` is offered for the sale under way."""
    options: list[int] = rules.legal_actions(state, seat)[0]["params"]["card"]["options"]
    return options


def bill_sells(state: State, colour: str, cards: dict[int, int], seller_card: int | None = None) -> State:
    """Bill offers ``colour``; the others play ``cards`` (Pass when not given)."""
    state = play(state, BILL, type="sell", colour=colour)
    for seat in range(state["players"]):
        if seat != BILL:
            state = play(state, seat, type="play", card=cards.get(seat, data.PASS))
    if seller_card is not None:
        state = play(state, BILL, type="play", card=seller_card)
    return state


# --- what a card needs (Player plays an Illegal Action Card; ruling 3) -------------------------------------


@pytest.mark.parametrize(("cash", "can"), [(250, True), (249, False)])
def test_2_purchase_needs_cash_of_exactly_the_current_price(cash: int, can: bool) -> None:
    """2 – Purchase: pays the current price (ƒ250 for orange) — insufficient cash makes the card illegal."""
    state = table()
    state["price"]["orange"] = cell_of(250)
    state["cash"][ANN] = cash
    state["buyers"][CHARLES] = ["orange", "purple", "purple"]  # a 1 that wins when Ann's 2 is void
    assert (data.PURCHASE in offered(play(state, BILL, type="sell", colour="orange"), ANN)) is can
    state = bill_sells(state, "orange", {ANN: data.PURCHASE, CHARLES: data.PURCHASE_BY_PROXY})
    assert state["last_sale"]["cards"][ANN] == (data.PURCHASE if can else data.PASS)
    assert state["cash"][ANN] == cash - (250 if can else 0)


@pytest.mark.parametrize(("cash", "can"), [(750, True), (749, False)])
def test_4_speculate_needs_cash_of_exactly_the_transition_price(cash: int, can: bool) -> None:
    """4 – Speculate: pays the transition space above (ƒ750 above ƒ250)."""
    state = table()
    state["price"]["orange"] = cell_of(250)
    state["cash"][ANN] = cash
    assert (data.SPECULATE in offered(play(state, BILL, type="sell", colour="orange"), ANN)) is can
    state = bill_sells(state, "orange", {ANN: data.SPECULATE})
    assert state["cash"][ANN] == cash - (750 if can else 0)


@pytest.mark.parametrize(("card", "needed"), [(data.PURCHASE_BY_PROXY, 1), (data.SPECULATE_BY_PROXY, 2)])
def test_proxy_cards_need_exactly_one_or_two_buyers_of_the_colour(card: int, needed: int) -> None:
    """1 – Purchase by Proxy discards one buyer card of the tulip's colour; 3 – Speculate by Proxy two."""
    state = table()
    state["buyers"][ANN] = ["orange"] * needed + ["purple"]
    assert card in offered(play(state, BILL, type="sell", colour="orange"), ANN)
    state["buyers"][ANN] = ["orange"] * (needed - 1) + ["purple", "purple"]
    assert card not in offered(play(state, BILL, type="sell", colour="orange"), ANN)


# --- buying from the stockpile (III. Purchase a Tulip; ruling 5) ---------------------------------------------


def at_purchase(cash: int, stock: int) -> State:
    """Bill's phase III after selling orange: yellow costs ƒ250 and the stockpile holds ``stock``."""
    state = bill_sells(table(), "orange", {}, seller_card=data.PASS)
    state = play(state, BILL, type="draw_buyer")
    state["price"]["yellow"] = cell_of(250)
    state["cash"][BILL], state["stock"]["yellow"] = cash, stock
    return state


def test_buying_from_the_stockpile_needs_exactly_the_price_and_one_tulip_in_stock() -> None:
    """III: The current player pays the bank the current price for the tulip, and takes the tulip — ƒ250
    and a last tulip in the stockpile are enough."""
    state = at_purchase(cash=250, stock=1)
    assert "yellow" in rules.purchase_options(state, BILL)
    state = play(state, BILL, type="buy", colour="yellow")
    assert state["cash"][BILL] == 0 and state["stock"]["yellow"] == 0 and state["tulips"][BILL]["yellow"] == 2


@pytest.mark.parametrize(
    ("cash", "stock", "refusal"), [(249, 1, "You have only ƒ249"), (250, 0, "no yellow tulip")]
)
def test_buying_from_the_stockpile_one_guilder_or_one_tulip_short_is_refused(
    cash: int, stock: int, refusal: str
) -> None:
    """III: If there is no tulip he can legally purchase, then he must skip this action."""
    state = at_purchase(cash=cash, stock=stock)
    assert "yellow" not in rules.purchase_options(state, BILL)
    with pytest.raises(IllegalAction, match=refusal):
        play(state, BILL, type="buy", colour="yellow")


# --- ƒ3000: the bubble bursts (The Bubble Bursts) ----------------------------------------------------------------


def test_speculating_to_2000_does_not_burst() -> None:
    """The Bubble Bursts: When the price of a tulip reaches ƒ3000 or more — ƒ500 speculated lands on ƒ2000,
    the highest price below it: the market goes on."""
    state = table()
    state["price"]["orange"] = cell_of(500)
    state["cash"][ANN] = 1500
    state = bill_sells(state, "orange", {ANN: data.SPECULATE})
    assert rules.price(state, "orange") == 2000
    assert "orange" in state["live"] and state["bursts"] == []


def test_speculating_to_3000_bursts() -> None:
    """The Bubble Bursts: ƒ750 speculated pays ƒ2250 and lands on ƒ3000, a burst space."""
    state = table()
    state["price"]["orange"] = cell_of(750)
    state["cash"][ANN] = 2250
    state = bill_sells(state, "orange", {ANN: data.SPECULATE})
    assert "orange" in state["burst"] and state["bursts"][0]["peak"] == 3000


# --- the cheap tulip: ƒ100 or less (Unusual Circumstances) --------------------------------------------------


@pytest.mark.parametrize(("before", "paid", "after"), [(100, 100, 75), (125, 75, 25)])
def test_all_passing_at_100_is_the_cheap_tulip_rule_and_at_125_the_pink_arrow(
    before: int, paid: int, after: int
) -> None:
    """All players passing on a Cheap Tulip: when the current price is ƒ100 or less the bank pays the
    current price and the price falls to the next lower current price; above it, the pink arrow (ruling's
    known oddity: 125 pays 75 and lands on 25, while 100 pays 100 and lands on 75)."""
    state = table()
    state["price"]["yellow"] = cell_of(before)
    state = bill_sells(state, "yellow", {}, seller_card=data.PASS)
    assert state["cash"][BILL] == 700 + paid
    assert rules.price(state, "yellow") == after


# --- the buyer deck: three turns each (II. Draw a New Buyer Card) ------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_buyer_deck_lasts_exactly_three_turns_each(players: int) -> None:
    """II: the deck is exhausted — This will always happen after every player has had three turns."""
    assert len(rules.setup(players, {}, 7)["deck"]) == 3 * players


def test_a_draw_that_leaves_one_buyer_card_keeps_the_face_up_buyers() -> None:
    """II: If the buyer deck is now exhausted, then the face-up buyer cards are discarded — with two cards
    a draw leaves one, so the face-up buyers stay (a last card: test_exhausted_deck_discards...)."""
    state = bill_sells(table(), "orange", {}, seller_card=data.PASS)
    state["deck"] = ["yellow", "purple"]
    state["face_up"] = ["orange", "blue"]
    state = play(state, BILL, type="draw_buyer")
    assert state["deck"] == ["purple"] and state["face_up"] == ["orange", "blue"]
    next_turn = play(state, BILL, type="skip_purchase")
    assert rules.legal_actions(next_turn, CHARLES)[0]["type"] == "sell"


# --- the end of the game (End of the Game; ruling 8) ----------------------------------------------------------------


def test_a_burst_that_leaves_two_colours_does_not_end_the_game() -> None:
    """End of the Game: When there is only one colour of tulip which has not burst, the end game is
    triggered — three colours of a 3-player game, one bursts: two remain and play goes on."""
    state = table(players=3)
    state["price"]["yellow"] = cell_of(1000)
    state["cash"][ANN] = 3000
    state = bill_sells(state, "yellow", {ANN: data.SPECULATE})
    assert state["live"] == ["purple", "orange"] and not state["finished"]
    assert state["phase"] == rules.DRAW


def test_equal_cash_shares_the_win_and_one_florin_more_wins() -> None:
    """End of the Game: The player with the most cash wins (ruling 8: equal cash shares the win) — a
    round of declines sells each player's one yellow tulip at ƒ375: ƒ701 twice beats ƒ700 by one."""
    state = table()
    state["deck"], state["face_up"] = [], []
    for seat in range(4):
        state["tulips"][seat] = dict.fromkeys(state["colours"], 0)
        state["tulips"][seat]["yellow"] = 1
    state["price"]["yellow"] = cell_of(375)
    state["cash"] = [700, 701, 701, 0]
    for _ in range(4):
        seat = state["current"]
        state = play(state, seat, type="skip_sale")
        if state["current"] == seat:  # Dave, with nothing to pay with, has no purchase to skip
            state = play(state, seat, type="skip_purchase")
    assert state["finished"] and state["cash"] == [1075, 1076, 1076, 375]
    result = ENGINE.result(state)
    assert result is not None and result.winners == [BILL, CHARLES]
