"""Tulip Bubble rules: the rulebook's worked examples (seed tulip-bubble.zh-Hans.txt) and the
ruling's edge cases (rulings/tulip-bubble.md). Positions are built card by card."""

from __future__ import annotations

import json
import random

import pytest

from app.games.base import IllegalAction
from app.games.tulip_bubble import ENGINE, prices, rules
from app.games.tulip_bubble.data import COLLECTORS, PRICE_TABLE, all_tulips, colour_of
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
    texts,
    where_is_every_tulip,
)

EXAMPLE_LEVELS = {"red": 2, "white": 3, "yellow": 4}  # the selling and supply-and-demand examples
BALANCED_SHIPMENT = ["red-C1-1", "white-C1-1", "yellow-C1-1"]


# --- data and set-up ----------------------------------------------------------------------------


def test_price_table_matches_every_numeric_example_of_the_rulebook() -> None:
    """P.7 white B2 at III = 7; P.8 white C1 at III = 5, yellow A at IV = 20, red C at II = 3, red B1 = 5."""
    assert prices.price_at("B", 3) == 7
    assert prices.price_at("C", 3) == 5
    assert prices.price_at("A", 4) == 20
    assert prices.price_at("C", 2) == 3
    assert prices.price_at("B", 2) == 5
    assert all(len(prices) == 7 for prices in PRICE_TABLE.values())


def test_deck_holds_17_tulips_per_colour_and_collectors_carry_their_bonus_in_data() -> None:
    """Contents: 51 tulips (A×2, B1/B2/C1/C2/C3 ×3 per colour); ruling: Young Lady is +15."""
    cards = all_tulips()
    assert len(cards) == len(set(cards)) == 51
    for colour in ("red", "white", "yellow"):
        assert sum(colour_of(card) == colour for card in cards) == 17
    assert {name: spec["bonus"] for name, spec in COLLECTORS.items()} == {
        "nobleman": 20, "crusader": 15, "madame": 15, "young_lady": 15,
        "servant": 10, "scholar": 10, "young_man": 10, "tavern_keeper": 10,
    }  # fmt: skip


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_deals_players_plus_two_to_each_row_and_starts_with_the_auction(players: int) -> None:
    """Set-up 3 and 7: players+2 cards per row; round 1 skips the event and selling phases."""
    state = ENGINE.setup(players, {}, seed=players)
    assert all(len(state["rows"][row]) == players + 2 for row in state["rows"])
    assert len(state["deck"]) == 51 - 3 * (players + 2)
    assert sorted(where_is_every_tulip(state)) == sorted(all_tulips())
    assert state["phase"] == "bidding" and state["round"] == 1
    assert state["cash"] == [20] * players
    assert len(state["market_deck"]) == 9 and len(state["market_discard"]) == 1
    assert [len(pile) for pile in state["collectors"]] == [1, 3, 4]
    assert ENGINE.to_act(state) == [state["start_player"]]


def test_setup_markers_start_on_two_three_and_four_in_random_colour_order() -> None:
    """Set-up 1 (ruling 1); the first market card is applied at once, so compare the logged start."""
    orders = set()
    for seed in range(40):
        state = ENGINE.setup(3, {}, seed)
        start = state["events"][0]["params"]
        orders.add(tuple(sorted(start, key=start.get)))
        assert sorted(start.values()) == ["II", "III", "IV"]
    assert len(orders) > 1


def test_bubble_burst_lies_among_the_last_three_market_cards_and_one_card_is_removed() -> None:
    """Set-up 4: 10 cards after removing one; Burst shuffled into the bottom three → rounds 8 to 10."""
    rounds = set()
    for seed in range(60):
        state = ENGINE.setup(4, {}, seed)
        deck = state["market_deck"]
        assert len(deck) + len(state["market_discard"]) == 10
        rounds.add(deck.index("burst") + 2)  # deck[0] is flipped at the start of round 2
        assert state["market_removed"] != "burst"
    assert rounds == {8, 9, 10}


def test_joining_mid_game_variant_applies_supply_and_demand_after_the_deal() -> None:
    """Variant 我们是中途参与的投机客: one price reaction to the dealt rows before the first market card."""
    plain = ENGINE.setup(4, {}, seed=11)
    joined = ENGINE.setup(4, {"joining_mid_game": True}, seed=11)
    assert plain["rows"] == joined["rows"]
    assert any("Supply and demand" in text for text in texts(joined))
    assert not any("Supply and demand" in text for text in texts(plain))


# --- marker movement (1-1) ----------------------------------------------------------------------

RULEBOOK_MOVE_START = {"red": 1, "white": 2, "yellow": 3}


def test_rise_moves_one_colour_up_one_level() -> None:
    """1-1 example: red I, white II, yellow III; Rise (yellow) → yellow IV."""
    levels = dict(RULEBOOK_MOVE_START)
    prices.move_marker(levels, "yellow", 1)
    assert levels == {"red": 1, "white": 2, "yellow": 4}


def test_surge_jumps_over_an_occupied_level() -> None:
    """1-1 example: Surge raises the lowest (red I) two levels to III, taken by yellow, so IV."""
    levels = dict(RULEBOOK_MOVE_START)
    prices.move_marker(levels, prices.lowest_colour(levels), 2)
    assert levels == {"red": 4, "white": 2, "yellow": 3}


def test_plunge_that_runs_past_level_one_stays_put() -> None:
    """1-1 example: Plunge drops yellow III two levels to I (red), past the floor: it stays at III."""
    levels = dict(RULEBOOK_MOVE_START)
    prices.move_marker(levels, prices.highest_colour(levels), -2)
    assert levels == RULEBOOK_MOVE_START


def test_a_marker_pushed_past_seven_settles_on_the_nearest_free_level_below() -> None:
    """Ruling 2 (edge rule): VI + 2 with VII taken runs past VII and settles back on VI (no move);
    V + 3 with VII taken settles on VI, the nearest free level back toward V."""
    levels = {"red": 6, "white": 7, "yellow": 1}
    prices.move_marker(levels, "red", 2)
    assert levels["red"] == 6
    levels = {"red": 5, "white": 7, "yellow": 1}
    prices.move_marker(levels, "red", 3)
    assert levels["red"] == 6


def test_event_phase_flips_the_market_card_ships_tulips_and_passes_the_start_player() -> None:
    """1-1 to 1-3: Rise (white) raises white (over yellow); Next Shipment becomes New Arrivals; start passes left."""
    shipment = ["red-A-1", "white-A-1", "yellow-A-1"]
    state = table(
        3,
        levels=EXAMPLE_LEVELS,
        rows={"next_shipment": shipment, "new_arrivals": BALANCED_SHIPMENT},
        market_deck=["rise:white", "plunge", "burst"],
        start=2,
    )
    state = play(at_last_placement(state), (state["turn"], {"type": "end_turn"}))
    assert state["levels"] == {"red": 2, "white": 5, "yellow": 4}  # white jumps over yellow at IV
    assert state["rows"]["new_arrivals"] == shipment
    assert len(state["rows"]["next_shipment"]) == 5
    assert state["start_player"] == 0 and state["round"] == 3
    assert state["phase"] == "bidding"  # nobody holds a tulip or a mortgage: the selling turns pass
    assert "Market card: Rise (white)." in texts(state)


# --- selling phase (2) ------------------------------------------------------------------------------


def selling_example() -> dict:
    """The P.8 position: red II, white III, yellow IV; Andy starts."""
    state = table(
        levels=EXAMPLE_LEVELS,
        hands={ANDY: ["white-C1-1"], CHARLES: ["red-C1-1", "red-C2-1", "red-C3-1", "red-B1-1"],
               DENNIS: ["yellow-C1-1"]},
        mortgages={BOB: [("yellow-A-1", 18)]},
        rows={"new_arrivals": ["red-A-2", "white-A-2", "yellow-A-2"]},
        collectors=[["nobleman"], ["crusader", "madame", "young_lady"], ["servant", "scholar", "young_man",
                                                                         "tavern_keeper"]],
    )  # fmt: skip
    return at_selling(state)


def test_selling_example_andy_sells_a_white_c1_to_the_market_for_5() -> None:
    """P.8 Andy: white C1 to Just Sold, 5 guilders from the bank; then he ends his turn."""
    state = play(selling_example(), (ANDY, {"type": "sell", "card": "white-C1-1"}))
    assert state["cash"][ANDY] == 25
    assert state["rows"]["just_sold"] == ["white-C1-1"]
    assert state["hands"][ANDY] == []
    assert texts(state)[-2:] == ["seat 0 sold White C1 to the market for ƒ5.", "seat 0 is done selling."]
    assert ENGINE.to_act(state) == [BOB]  # an empty hand and no mortgage: nothing left to sell


def test_selling_example_bob_sells_a_mortgaged_yellow_a_and_receives_the_difference() -> None:
    """P.8 Bob: mortgaged yellow A recorded 18, market 20: +2, token back, card to Just Sold."""
    state = play(selling_example(), (ANDY, {"type": "end_turn"}))
    state = play(state, (BOB, {"type": "sell_mortgage", "card": "yellow-A-1"}))
    assert state["cash"][BOB] == 22
    assert state["mortgages"][BOB] == []
    assert rules.tokens_available(state, BOB) == 3
    assert state["rows"]["just_sold"] == ["yellow-A-1"]


def test_selling_a_mortgage_below_its_recorded_amount_costs_the_difference() -> None:
    """2, 贩卖抵押保留中的郁金香: when the recorded amount is higher, pay the bank the difference."""
    state = selling_example()
    state["mortgages"][ANDY] = [{"card": "red-A-1", "amount": 19}]
    state["deck"].remove("red-A-1")
    state = play(state, (ANDY, {"type": "sell_mortgage", "card": "red-A-1"}))
    assert state["cash"][ANDY] == 20 - 4


def test_selling_example_charles_sells_to_the_servant_then_a_red_b1() -> None:
    """P.8 Charles: red C1+C2+C3 (3+3+3) + 10 bonus = 19 to the Servant; next +10 collector revealed;
    then red B1 to the market for 5."""
    state = play(selling_example(), (ANDY, {"type": "end_turn"}), (BOB, {"type": "end_turn"}))
    state = play(
        state,
        (
            CHARLES,
            {"type": "sell_to_collector", "collector": "servant", "cards": "red-C1-1,red-C2-1,red-C3-1"},
        ),
    )
    assert state["cash"][CHARLES] == 39
    assert set(state["discard"]) == {"red-C1-1", "red-C2-1", "red-C3-1"}
    assert state["collectors"][2] == ["scholar", "young_man", "tavern_keeper"]
    state = play(state, (CHARLES, {"type": "sell", "card": "red-B1-1"}))
    assert state["cash"][CHARLES] == 44


def test_only_one_collector_a_round() -> None:
    """2, 卖给收藏家: you may sell to only one collector per round."""
    state = selling_example()
    state["hands"][CHARLES] += ["red-C1-2", "red-C2-2", "red-C3-2"]
    state["deck"] = [card for card in state["deck"] if card not in state["hands"][CHARLES]]
    state = play(state, (ANDY, {"type": "end_turn"}), (BOB, {"type": "end_turn"}))
    state = play(state, (CHARLES, {"type": "sell_to_collector", "collector": "servant",
                                   "cards": ["red-C1-1", "red-C2-1", "red-C3-1"]}))  # fmt: skip
    with pytest.raises(IllegalAction, match="only one collector"):
        play(state, (CHARLES, {"type": "sell_to_collector", "collector": "young_man",
                               "cards": "red-C1-2,red-C2-2,red-C3-2"}))  # fmt: skip


def test_a_mortgaged_tulip_must_be_redeemed_before_going_to_a_collector() -> None:
    """2: 你无法直接将抵押保留中的郁金香卖给收藏家 — redeem first, then sell it to the collector."""
    state = selling_example()
    state["hands"][CHARLES].remove("red-C3-1")
    state["mortgages"][CHARLES] = [{"card": "red-C3-1", "amount": 4}]
    offer = {"type": "sell_to_collector", "collector": "servant", "cards": "red-C1-1,red-C2-1,red-C3-1"}
    state = play(state, (ANDY, {"type": "end_turn"}), (BOB, {"type": "end_turn"}))
    with pytest.raises(IllegalAction, match="Redeem"):
        play(state, (CHARLES, offer))
    state = play(state, (CHARLES, {"type": "redeem", "card": "red-C3-1"}), (CHARLES, offer))
    assert state["cash"][CHARLES] == 20 - 4 + 19


def test_selling_example_dennis_passes_and_the_auction_phase_begins() -> None:
    """P.8 Dennis does not sell; the selling phase ends and bidding starts with the start player."""
    state = play(
        selling_example(),
        (ANDY, {"type": "end_turn"}), (BOB, {"type": "end_turn"}), (CHARLES, {"type": "end_turn"}),
        (DENNIS, {"type": "end_turn"}),
    )  # fmt: skip
    assert state["phase"] == "bidding"
    assert ENGINE.to_act(state) == [ANDY]


def test_no_margin_trading_variant_forbids_selling_a_mortgage() -> None:
    """Variant 融资炒股是个坏文明: a mortgaged tulip must be redeemed with cash before it is sold."""
    state = selling_example()
    state["options"]["no_margin_trading"] = True
    state = play(state, (ANDY, {"type": "end_turn"}))
    assert "sell_mortgage" not in {t["type"] for t in ENGINE.legal_actions(state, BOB)}
    with pytest.raises(IllegalAction, match="No margin trading"):
        play(state, (BOB, {"type": "sell_mortgage", "card": "yellow-A-1"}))


def test_redeeming_is_allowed_out_of_turn() -> None:
    """3-2-2 赎回抵押 / ruling 6: at any moment before the Burst, even when it is not your turn."""
    state = selling_example()
    state["cash"][BOB] = 30
    assert {"type": "redeem"}.items() <= {"type": "redeem"}.items()
    legal = {t["type"]: t for t in ENGINE.legal_actions(state, BOB)}
    assert legal["redeem"]["params"]["card"]["options"] == ["yellow-A-1"]
    state = play(state, (BOB, {"type": "redeem", "card": "yellow-A-1"}))
    assert state["cash"][BOB] == 12 and state["hands"][BOB] == ["yellow-A-1"]
    assert ENGINE.to_act(state) == [ANDY]


# --- bids (3-1) and resolution (3-2) ----------------------------------------------------------------

BID_ROWS = {
    "new_arrivals": ["yellow-C3-1", "yellow-B1-1", "white-B1-1", "red-B1-1", "red-C2-1", "white-C2-1"],
    "just_sold": ["white-A-1"],
}


def bidding_example() -> dict:
    return at_placement(table(levels=EXAMPLE_LEVELS, rows=BID_ROWS))


def place(seat: int, card: str) -> tuple[int, dict]:
    return seat, {"type": "place", "card": card}


def test_bid_placement_and_resolution_example() -> None:
    """P.9 example: round one Andy yellow C3; Bob yellow B1; Charles yellow B1 + white B1; Dennis white B1
    + red B1. Round two Andy yellow B1; Bob red B1; Charles red B1; Dennis white A. Andy buys yellow C3 at
    7, Dennis white A at 15; yellow B1, white B1 and red B1 go to auctions, in row order."""
    state = play(
        bidding_example(),
        place(ANDY, "yellow-C3-1"), (ANDY, {"type": "end_turn"}),
        place(BOB, "yellow-B1-1"), (BOB, {"type": "end_turn"}),
        place(CHARLES, "yellow-B1-1"), place(CHARLES, "white-B1-1"),
        place(DENNIS, "white-B1-1"), place(DENNIS, "red-B1-1"),
        place(ANDY, "yellow-B1-1"), place(BOB, "red-B1-1"), place(CHARLES, "red-B1-1"),
    )  # fmt: skip
    assert state["tokens"] == {
        "yellow-C3-1": [ANDY],
        "yellow-B1-1": [BOB, CHARLES, ANDY],
        "white-B1-1": [CHARLES, DENNIS],
        "red-B1-1": [DENNIS, BOB, CHARLES],
    }
    state = play(state, place(DENNIS, "white-A-1"))
    assert state["phase"] == "payment"
    assert state["payment"] == {
        "card": "yellow-C3-1", "winner": ANDY, "price": 7, "market": 7, "participants": [ANDY],
    }  # fmt: skip
    state = play(state, (ANDY, {"type": "pay", "method": "cash"}))
    assert state["cash"][ANDY] == 13 and "yellow-C3-1" in state["hands"][ANDY]
    assert state["phase"] == "auction"
    assert state["auction"]["card"] == "yellow-B1-1"
    assert state["auction"]["bidders"] == [ANDY, BOB, CHARLES]  # from the start player, clockwise
    state = play(state, (ANDY, {"type": "drop"}), (BOB, {"type": "raise", "amount": 11}),
                 (CHARLES, {"type": "drop"}), (BOB, {"type": "pay", "method": "mortgage"}))  # fmt: skip
    assert state["auction"]["card"] == "white-B1-1"
    state = play(state, (CHARLES, {"type": "drop"}), (DENNIS, {"type": "pay", "method": "cash"}))
    assert state["auction"]["card"] == "red-B1-1"
    assert state["auction"]["bidders"] == [BOB, CHARLES, DENNIS]
    state = play(
        state,
        (BOB, {"type": "drop"}),
        (CHARLES, {"type": "drop"}),
        (DENNIS, {"type": "pay", "method": "cash"}),
    )
    assert state["payment"]["card"] == "white-A-1" and state["payment"]["price"] == 15
    state = play(state, (DENNIS, {"type": "pay", "method": "mortgage"}))
    assert state["round"] == 3  # every bid resolved, the end phase ran and a new round began


def test_first_placement_turn_allows_two_tokens_and_the_second_one_token() -> None:
    """3-1: up to two tokens on the first turn, one on the second; unused tokens do not carry over."""
    state = play(bidding_example(), place(ANDY, "yellow-C3-1"), place(ANDY, "white-A-1"))
    assert ENGINE.to_act(state) == [BOB]  # two tokens end the turn
    state = play(
        state, (BOB, {"type": "end_turn"}), (CHARLES, {"type": "end_turn"}), (DENNIS, {"type": "end_turn"})
    )
    state = play(state, (ANDY, {"type": "end_turn"}), place(BOB, "yellow-B1-1"))
    assert ENGINE.to_act(state) == [CHARLES]  # Bob's second turn: one token only, none carried over
    assert state["tokens"]["yellow-B1-1"] == [BOB]


def test_never_two_own_tokens_on_one_card() -> None:
    """3-1: 你不能将自己的购买指示物放在同一张郁金香卡上."""
    state = play(bidding_example(), place(ANDY, "yellow-C3-1"))
    with pytest.raises(IllegalAction, match="already have a token"):
        play(state, place(ANDY, "yellow-C3-1"))


def test_tokens_go_only_on_new_arrivals_and_just_sold() -> None:
    """3-1: tokens are placed on cards in the New Arrivals and Just Sold rows."""
    state = bidding_example()
    state["rows"]["next_shipment"] = ["red-A-2"]
    state["deck"].remove("red-A-2")
    with pytest.raises(IllegalAction, match="New Arrivals or Just Sold"):
        play(state, place(ANDY, "red-A-2"))


def test_three_mortgages_leave_no_token_until_a_redemption() -> None:
    """FAQ Q1: with three mortgaged tulips you cannot bid — unless you redeem one on your turn."""
    state = table(
        levels=EXAMPLE_LEVELS, rows=BID_ROWS, cash={ANDY: 30},
        mortgages={ANDY: [("red-A-1", 15), ("white-C1-1", 5), ("yellow-C1-1", 7)]},
    )  # fmt: skip
    state = at_placement(state)
    assert ENGINE.to_act(state) == [ANDY]  # the turn is kept: Andy may redeem
    legal = {t["type"] for t in ENGINE.legal_actions(state, ANDY)}
    assert "place" not in legal and {"redeem", "end_turn"} <= legal
    with pytest.raises(IllegalAction, match="no purchase token"):
        play(state, place(ANDY, "yellow-C3-1"))
    state = play(state, (ANDY, {"type": "redeem", "card": "white-C1-1"}), place(ANDY, "yellow-C3-1"))
    assert state["tokens"] == {"yellow-C3-1": [ANDY]}
    assert state["cash"][ANDY] == 25


def test_all_bidders_dropping_out_leaves_the_card_to_the_last_in_order_at_market_price() -> None:
    """3-2-1: 若所有竞标玩家都不出价，则由顺位最后的玩家得标，得标价等同于市价."""
    state = at_auction(table(levels=EXAMPLE_LEVELS, rows=BID_ROWS), "white-B1-1", [BOB, CHARLES, DENNIS])
    state = play(state, (BOB, {"type": "drop"}), (CHARLES, {"type": "drop"}))
    assert state["phase"] == "payment"
    assert state["payment"]["winner"] == DENNIS and state["payment"]["price"] == 7
    state = play(state, (DENNIS, {"type": "pay", "method": "cash"}))
    assert state["cash"] == [20, 20, 20, 13]  # no overflow at market price


def test_raising_needs_more_than_market_price_then_one_more_than_the_last_bid() -> None:
    """3-2-1: the first bid beats the market price; each further bid is at least 1 higher."""
    state = at_auction(table(levels=EXAMPLE_LEVELS, rows=BID_ROWS), "white-B1-1", [BOB, CHARLES])
    with pytest.raises(IllegalAction, match="at least ƒ8"):
        play(state, (BOB, {"type": "raise", "amount": 7}))
    state = play(state, (BOB, {"type": "raise", "amount": "8"}))
    with pytest.raises(IllegalAction, match="at least ƒ9"):
        play(state, (CHARLES, {"type": "raise", "amount": 8}))
    state = play(state, (CHARLES, {"type": "raise", "amount": 100}))  # a bid may exceed your cash
    state = play(state, (BOB, {"type": "drop"}))
    assert state["payment"]["winner"] == CHARLES and state["payment"]["price"] == 100


def overflow_example() -> dict:
    """P.10: yellow B1 at market price 7 (yellow at III); Andy, Bob and Charles bid; Charles wins at 12."""
    levels = {"red": 2, "white": 4, "yellow": 3}
    state = at_auction(table(levels=levels, rows=BID_ROWS), "yellow-B1-1", [ANDY, BOB, CHARLES])
    assert state["auction"]["market"] == 7
    return play(
        state,
        (ANDY, {"type": "raise", "amount": 8}), (BOB, {"type": "raise", "amount": 10}),
        (CHARLES, {"type": "raise", "amount": 12}), (ANDY, {"type": "drop"}), (BOB, {"type": "drop"}),
    )  # fmt: skip


def test_overflow_example_paid_in_cash() -> None:
    """P.10: 12 − 7 = 5, 5 ÷ 2 = 2: Andy and Bob get 2 each; Charles pays 12 and takes the card."""
    state = play(overflow_example(), (CHARLES, {"type": "pay", "method": "cash"}))
    assert state["cash"] == [22, 22, 8, 20]
    assert "yellow-B1-1" in state["hands"][CHARLES]
    assert "yellow-B1-1" not in state["tokens"]
    assert all(rules.tokens_available(state, seat) == 3 for seat in range(4))


def test_overflow_example_with_a_mortgage() -> None:
    """P.10 续前例: mortgaged at 12 — Charles keeps his cash, his token stays; Andy and Bob still get 2."""
    state = play(overflow_example(), (CHARLES, {"type": "pay", "method": "mortgage"}))
    assert state["cash"] == [22, 22, 20, 20]
    assert state["mortgages"][CHARLES] == [{"card": "yellow-B1-1", "amount": 12}]
    assert rules.tokens_available(state, CHARLES) == 2
    assert rules.tokens_available(state, ANDY) == 3


def test_short_cash_forces_a_mortgage() -> None:
    """3-2-2: 若你的现金不足，则必须以抵押保留的方式购买."""
    state = overflow_example()
    state["cash"][CHARLES] = 11
    legal = ENGINE.legal_actions(state, CHARLES)
    assert legal == [
        {"type": "pay", "label": "Pay", "params": {"method": {"kind": "choice", "options": ["mortgage"]}}}
    ]
    with pytest.raises(IllegalAction, match="You have only ƒ11; a price of ƒ12 needs a mortgage"):
        play(state, (CHARLES, {"type": "pay", "method": "cash"}))


# --- end phase (4) -----------------------------------------------------------------------------------


def test_supply_and_demand_example() -> None:
    """P.10 4-1: red II, white III, yellow IV; yellow most → down past II and III to I; red and white
    fewest → both up one: red III, white IV. Then the 4 cards of New Arrivals and Just Sold are discarded."""
    rows = {
        "next_shipment": ["yellow-C1-1", "yellow-C1-2", "red-C1-1", "red-C1-2", "white-C1-1", "white-C1-2"],
        "new_arrivals": ["yellow-C2-1", "red-C2-1"],
        "just_sold": ["yellow-C3-1", "white-C3-1"],
    }
    state = table(levels=EXAMPLE_LEVELS, rows=rows, market_deck=["burst"])
    state = play(at_last_placement(state), (state["turn"], {"type": "end_turn"}))
    assert state["levels"] == {"red": 3, "white": 4, "yellow": 1}
    assert sorted(state["discard"]) == sorted(rows["new_arrivals"] + rows["just_sold"])
    assert state["rows"]["new_arrivals"] == state["rows"]["just_sold"] == []


def test_supply_and_demand_with_equal_counts_changes_nothing() -> None:
    """4-1.4: 如果三色郁金香的数量一样多，则价格不会变动."""
    levels = dict(EXAMPLE_LEVELS)
    prices.supply_and_demand(levels, {"red": 2, "white": 2, "yellow": 2})
    assert levels == EXAMPLE_LEVELS


def test_two_most_numerous_colours_fall_together_the_lower_one_first() -> None:
    """4-1 红字提示 / ruling 3: two most-numerous colours move down at once, the one further down first
    (red III → II, then white IV → III); the other order would push white past red to II and red to I."""
    levels = {"red": 3, "white": 4, "yellow": 5}
    prices.supply_and_demand(levels, {"red": 4, "white": 4, "yellow": 1})
    assert levels == {"red": 2, "white": 3, "yellow": 6}


def test_tulip_deck_reshuffles_its_discards_when_it_runs_short() -> None:
    """1-2: 若郁金香卡库的卡片数量不足，则立即将弃牌堆洗牌后做为新的牌库使用."""
    state = table(3, levels=EXAMPLE_LEVELS, rows={"next_shipment": BALANCED_SHIPMENT},
                  market_deck=["rise:red", "burst"])  # fmt: skip
    keep = state["deck"][:2]
    state["discard"] = state["deck"][2:]
    state["deck"] = keep
    state = play(at_last_placement(state), (state["turn"], {"type": "end_turn"}))
    assert set(keep) <= set(state["rows"]["next_shipment"])
    assert len(state["rows"]["next_shipment"]) == 5
    assert state["discard"] == []
    assert len(state["deck"]) == 51 - 3 - 5
    assert sorted(where_is_every_tulip(state)) == sorted(all_tulips())
    assert "The tulip deck ran out: the discards were shuffled into a new deck." in texts(state)


def test_a_collector_pile_running_out_does_not_stop_the_game() -> None:
    """FAQ Q2: after the Nobleman (the only +20) is served nothing happens; the others remain."""
    state = selling_example()
    state["hands"][ANDY] = ["red-A-1", "red-B1-1", "red-B2-1"]
    state["deck"] = [card for card in state["deck"] if card not in state["hands"][ANDY]]
    state = play(state, (ANDY, {"type": "sell_to_collector", "collector": "nobleman",
                                "cards": "red-A-1,red-B1-1,red-B2-1"}))  # fmt: skip
    assert state["cash"][ANDY] == 20 + 15 + 5 + 5 + 20
    assert state["collectors"][0] == []
    assert rules.collector_tops(state) == ["crusader", "servant"]
    assert ENGINE.view(state, BOB)["collectors"][0] == {"size": 0, "top": None}
    state["collector_sold"] = []
    with pytest.raises(IllegalAction, match="not face up"):
        play(state, (BOB, {"type": "sell_to_collector", "collector": "nobleman", "cards": "x,y,z"}))


@pytest.mark.parametrize(
    ("collector", "cards", "ok"),
    [
        ("nobleman", ["red-A-1", "red-B1-1", "red-B2-1"], True),
        ("nobleman", ["red-A-1", "red-B1-1", "red-B1-2"], False),
        ("crusader", ["white-B1-1", "white-B1-2", "white-B2-1"], True),
        ("crusader", ["white-B1-1", "red-B1-2", "white-B2-1"], False),
        ("madame", ["white-B1-1", "red-B1-2", "yellow-B2-1"], True),
        ("young_lady", ["red-B1-1", "red-B2-1", "red-C3-1"], True),
        ("young_lady", ["red-B1-1", "red-B1-2", "red-C3-1"], False),
        ("servant", ["red-C1-1", "red-C2-1", "red-C3-1"], True),
        ("servant", ["red-C1-1", "red-C1-2", "red-C3-1"], False),
        ("scholar", ["red-C2-1", "white-C2-1", "yellow-C2-1"], True),
        ("scholar", ["red-A-1", "white-A-1", "yellow-A-1"], True),
        ("scholar", ["red-C2-1", "white-C1-1", "yellow-C2-1"], False),
        ("young_man", ["yellow-C1-1", "yellow-C1-2", "yellow-C3-1"], True),
        ("tavern_keeper", ["yellow-C1-1", "red-C1-2", "white-C3-1"], True),
        ("tavern_keeper", ["yellow-C1-1", "red-C1-2", "red-C3-1"], False),
    ],
)
def test_collector_orders_from_the_quick_reference(collector: str, cards: list[str], ok: bool) -> None:
    """八、速查表: each collector's order."""
    assert rules.fulfils(collector, cards) is ok


# --- game end (5) -------------------------------------------------------------------------------------


def test_two_players_declaring_the_black_tulip_with_equal_cash_share_the_win() -> None:
    """5 购买黑色郁金香: ≥120 and no mortgage declares at the auction phase start; equal cash shares."""
    state = table(
        levels=EXAMPLE_LEVELS, rows={"new_arrivals": BALANCED_SHIPMENT},
        cash={ANDY: 130, BOB: 130, CHARLES: 125, DENNIS: 200}, mortgages={DENNIS: [("red-A-1", 15)]},
    )  # fmt: skip
    state = play(at_selling(state, 3), (DENNIS, {"type": "end_turn"}))
    assert state["finished"] and state["end"]["reason"] == "black_tulip"
    result = ENGINE.result(state)
    assert result is not None and result.winners == [ANDY, BOB]
    assert "seat 2 declares the black tulip with 125 guilders." in texts(state)
    assert not any("seat 3 declares" in text for text in texts(state))


def test_the_richest_black_tulip_declarer_wins_alone() -> None:
    """5: 若有一位玩家以上同时宣告购买黑色郁金香，则比较他们的现金。由现金最多的玩家获胜."""
    state = table(
        levels=EXAMPLE_LEVELS, rows={"new_arrivals": BALANCED_SHIPMENT}, cash={BOB: 121, DENNIS: 150}
    )
    state = play(at_selling(state, 3), (DENNIS, {"type": "end_turn"}))
    result = ENGINE.result(state)
    assert result is not None and result.winners == [DENNIS]


def test_final_assets_example_dennis_wins_with_87() -> None:
    """P.11 泡沫破裂: Andy 81; Bob 55 (5 worthless tulips); Charles 90 − 15 = 75; Dennis 113 − 17 − 9 = 87."""
    state = table(
        levels=EXAMPLE_LEVELS,
        rows={"next_shipment": BALANCED_SHIPMENT},
        cash={ANDY: 81, BOB: 55, CHARLES: 90, DENNIS: 113},
        hands={BOB: ["red-A-1", "red-C1-2", "white-B1-1", "white-C2-1", "yellow-C3-1"]},
        mortgages={CHARLES: [("white-B2-1", 15)], DENNIS: [("yellow-B1-1", 17), ("red-B2-1", 9)]},
        market_deck=["burst"],
        round_=9,
    )
    state = play(at_last_placement(state), (state["turn"], {"type": "end_turn"}))
    assert state["finished"] and state["end"]["reason"] == "burst"
    assert state["end"]["assets"] == [81, 55, 75, 87]
    assert state["end"]["debts"] == [0, 0, 15, 26]
    result = ENGINE.result(state)
    assert result is not None and result.winners == [DENNIS] and result.scores == [81, 55, 75, 87]
    assert ENGINE.legal_actions(state, DENNIS) == []  # no redemption after the Burst
    with pytest.raises(IllegalAction, match="over"):
        play(state, (DENNIS, {"type": "redeem", "card": "red-B2-1"}))


def _seed_with_burst_at_round(target: int) -> int:
    for seed in range(500):
        state = ENGINE.setup(3, {}, seed)
        if state["market_deck"].index("burst") + 2 == target:
            return seed
    raise AssertionError(target)


@pytest.mark.parametrize("burst_round", [8, 10])
def test_bubble_burst_at_the_earliest_and_latest_round_the_setup_allows(burst_round: int) -> None:
    """Set-up 4 ②: the Burst comes at the start of round 8 at the earliest and round 10 at the latest."""
    seed = _seed_with_burst_at_round(burst_round)
    state = ENGINE.setup(3, {}, seed)
    rng = random.Random(seed)
    while not state["finished"]:
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert state["end"]["reason"] == "burst"
    assert state["round"] == burst_round
    assert state["market_discard"][-1] == "burst" and len(state["market_discard"]) == burst_round
    assert [entry["round"] for entry in state["history"]] == list(range(1, burst_round))


# --- malformed actions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        {},
        {"type": None},
        {"type": "fly"},
        {"type": "sell"},
        {"type": "sell", "card": 5},
        {"type": "sell", "card": "red-Z9-1"},
        {"type": "sell_to_collector", "collector": "servant", "cards": 7},
        {"type": "sell_to_collector", "collector": ["servant"], "cards": "a,b,c"},
        {"type": "sell_mortgage", "card": None},
        {"type": "redeem", "card": ""},
        {"type": "place", "card": "red-A-1"},
        {"type": "raise", "amount": "lots"},
        {"type": "pay", "method": "iou"},
    ],
)
def test_malformed_actions_are_refused_with_a_readable_message(action: dict) -> None:
    """Engine contract: any malformed action becomes IllegalAction, never a crash."""
    for state in (selling_example(), bidding_example(), overflow_example()):
        for seat in range(4):
            try:
                ENGINE.apply(state, seat, action)
            except IllegalAction as refusal:
                assert refusal.message
    with pytest.raises(IllegalAction):
        ENGINE.apply(selling_example(), 9, {"type": "end_turn"})
    with pytest.raises(IllegalAction):
        ENGINE.apply(overflow_example(), CHARLES, {"type": "raise", "amount": True})


@pytest.mark.parametrize(
    "amount",
    ["++9", "+-9", "9" * 5000, 10**5000, "1" + "0" * 9, 10**9],
    ids=["double-plus", "plus-minus", "5000-digit-text", "5000-digit-int", "ten-digit-text", "ten-digit-int"],
)
def test_a_bid_above_cash_is_allowed_but_must_be_a_sane_whole_number(amount: object) -> None:
    """3-2-1 你可以喊出比持有金钱还要多的金额 — yet a bid is a whole number of guilders: doubled signs and
    thousands of digits are refused with a readable message (they crashed int() and the JSON store)."""
    state = at_auction(table(levels=EXAMPLE_LEVELS, rows=BID_ROWS), "white-B1-1", [BOB, CHARLES])
    with pytest.raises(IllegalAction) as refusal:
        play(state, (BOB, {"type": "raise", "amount": amount}))
    assert refusal.value.message
    for accepted in ("+12", "１２", 999_999_999):
        after = play(state, (BOB, {"type": "raise", "amount": accepted}))
        assert after["auction"]["high"] == (12 if accepted != 999_999_999 else accepted)


def test_apply_never_mutates_its_input() -> None:
    """Engine contract: apply returns a new state."""
    state = selling_example()
    before = json.dumps(state, sort_keys=True)
    play(state, (ANDY, {"type": "sell", "card": "white-C1-1"}))
    assert json.dumps(state, sort_keys=True) == before
