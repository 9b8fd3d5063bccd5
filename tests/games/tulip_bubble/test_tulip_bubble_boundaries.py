"""Tulip Bubble's numbers, each tested on both sides: the value the rule names and one past it (seed
tulip-bubble.zh-Hans.txt, rulings/tulip-bubble.md). Positions are built card by card, so each test
sits exactly on its boundary; the rulebook's own examples are in ``test_tulip_bubble_rules.py``."""

from __future__ import annotations

import pytest

from app.games.base import IllegalAction
from app.games.tulip_bubble import ENGINE, prices, rules
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
)

LEVELS = {"red": 2, "white": 3, "yellow": 4}  # red B/C 5/3, white 7/5, yellow 10/7; A 15/15/20
ROWS = {"new_arrivals": ["red-C1-1", "white-C1-1", "yellow-C1-1"]}
BID_ROWS = {"new_arrivals": ["white-B1-1", "red-C2-1", "yellow-C3-1"], "just_sold": ["white-A-1"]}


def types(state: dict, seat: int) -> set[str]:
    return {template["type"] for template in ENGINE.legal_actions(state, seat)}


# --- the black tulip (5 游戏结束, ruling 10) ----------------------------------------------------------


def auction_phase_begins(cash: dict[int, int], mortgages: dict[int, list[tuple[str, int]]] | None = None):
    """The last seller (Dennis) ends the selling phase: the auction phase, and its black tulip check."""
    state = table(levels=LEVELS, rows=ROWS, cash=cash, mortgages=mortgages)
    return play(at_selling(state, 3), (DENNIS, {"type": "end_turn"}))


def test_black_tulip_is_declared_with_exactly_120_guilders() -> None:
    """5 购买黑色郁金香: 拍卖阶段开始时，持有 120 盾且面前无抵押保留的玩家可以宣告购买黑色郁金香 (3 红字提示:
    持有 120 盾以上且无负债) — 120 itself is enough: Bob declares and wins at once."""
    state = auction_phase_begins({BOB: 120})
    assert state["finished"] and state["end"]["reason"] == "black_tulip"
    result = ENGINE.result(state)
    assert result is not None and result.winners == [BOB]
    assert "seat 1 declares the black tulip with 120 guilders." in texts(state)
    view = ENGINE.view(state, None)
    assert view["end"] is not None and view["end"]["declarers"] == [BOB]  # the ending names him


def test_black_tulip_is_not_declared_with_119_guilders() -> None:
    """5 购买黑色郁金香: one guilder short of 120, nobody declares and the bids begin."""
    state = auction_phase_begins({BOB: 119})
    assert not state["finished"] and state["phase"] == "bidding"
    assert ENGINE.result(state) is None
    assert not any("black tulip" in text for text in texts(state))


def test_black_tulip_reached_by_selling_to_exactly_120_is_declared_when_the_auction_phase_begins() -> None:
    """3 红字提示 and 2: money from this round's sales counts — Bob's 115 plus a white C1 at III (5) is
    120 when the selling phase ends."""
    state = table(levels=LEVELS, rows=ROWS, cash={BOB: 115}, hands={BOB: ["white-C1-2", "red-C3-1"]})
    state = play(at_selling(state, 1), (BOB, {"type": "sell", "card": "white-C1-2"}))
    assert state["cash"][BOB] == 120 and not state["finished"]  # not yet: the check opens the auction
    state = play(state, (BOB, {"type": "end_turn"}))  # Charles and Dennis have nothing to sell
    assert state["finished"] and ENGINE.result(state).winners == [BOB]  # type: ignore[union-attr]


def test_black_tulip_with_120_guilders_and_a_mortgage_is_not_declared() -> None:
    """5: 持有 120 盾且面前无抵押保留 — exactly 120 with one mortgage of any amount does not declare."""
    state = auction_phase_begins({BOB: 120}, mortgages={BOB: [("red-C3-1", 1)]})
    assert not state["finished"] and state["phase"] == "bidding"


def test_black_tulip_declarers_one_guilder_apart_the_richer_wins_alone() -> None:
    """5.2: 比较他们的现金。由现金最多的玩家获胜。若是持有现金依然平手，则他们共同胜利 — 121 beats 120;
    at 120 each they share the win."""
    state = auction_phase_begins({ANDY: 120, BOB: 121})
    assert ENGINE.result(state).winners == [BOB]  # type: ignore[union-attr]
    assert "seat 0 declares the black tulip with 120 guilders." in texts(state)
    state = auction_phase_begins({ANDY: 120, BOB: 120})
    assert ENGINE.result(state).winners == [ANDY, BOB]  # type: ignore[union-attr]


# --- the Bubble Burst's assets (5 泡沫破裂, ruling 11) ----------------------------------------------


def burst_with(cash: dict[int, int], mortgages: dict[int, list[tuple[str, int]]]) -> dict:
    state = table(levels=LEVELS, rows=ROWS, cash=cash, mortgages=mortgages, market_deck=["burst"], round_=9)
    return play(at_last_placement(state), (state["turn"], {"type": "end_turn"}))


def test_burst_assets_equal_to_the_guilder_share_the_win_one_guilder_more_wins_alone() -> None:
    """5 泡沫破裂: 资产最高的玩家获得胜利。若有一位以上的玩家资产一样多，则他们共同胜利 — Bob's 60 − 10 ties
    Andy's 50; with a debt of 11 he is one short and Andy wins alone."""
    state = burst_with({ANDY: 50, BOB: 60, CHARLES: 49, DENNIS: 0}, {BOB: [("red-B1-1", 10)]})
    assert state["end"]["assets"] == [50, 50, 49, 0]
    assert ENGINE.result(state).winners == [ANDY, BOB]  # type: ignore[union-attr]
    state = burst_with({ANDY: 50, BOB: 60, CHARLES: 49, DENNIS: 0}, {BOB: [("red-B1-1", 11)]})
    assert ENGINE.result(state).winners == [ANDY]  # type: ignore[union-attr]


# --- players (一 人数 3～5 人) -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 5])
def test_three_and_five_players_are_the_ends_of_the_player_count(players: int) -> None:
    """一: 人数 3～5 人 — both ends are playable; each row gets players + 2 tulips (三 3)."""
    state = ENGINE.setup(players, {}, seed=1)
    assert all(len(cards) == players + 2 for cards in state["rows"].values())


@pytest.mark.parametrize("players", [2, 6])
def test_two_or_six_players_are_refused(players: int) -> None:
    """一: 人数 3～5 人 — one past either end is refused with the game's own words."""
    with pytest.raises(IllegalAction, match="3 to 5 players"):
        ENGINE.setup(players, {}, seed=1)


# --- one collector a round (2 卖给收藏家) ---------------------------------------------------------------------


def test_the_one_collector_a_round_is_available_again_the_next_round() -> None:
    """2 卖给收藏家: 你一回合只能卖给一位收藏家 — the limit is per round: Charles, who sold to a collector
    this round, may sell to one again once the next round's selling phase comes to him."""
    servant_order = ["red-C1-2", "red-C2-2", "red-C3-2"]
    state = table(
        levels=LEVELS,
        rows=ROWS,
        hands={CHARLES: servant_order},
        collectors=[["nobleman"], ["crusader"], ["servant", "scholar"]],
        market_deck=["rise:red", "burst"],
    )
    state["collector_sold"] = [CHARLES]
    state = play(at_last_placement(state), (state["turn"], {"type": "end_turn"}))
    assert state["round"] == 3 and state["phase"] == "selling" and ENGINE.to_act(state) == [CHARLES]
    assert "sell_to_collector" in types(state, CHARLES)
    order = {"type": "sell_to_collector", "collector": "servant", "cards": ",".join(servant_order)}
    state = play(state, (CHARLES, order))
    assert state["hands"][CHARLES] == [] and state["collectors"][2] == ["scholar"]


# --- cash against a price: redeem, sell a mortgage, pay in cash -----------------------------------------


def test_redeeming_needs_exactly_the_recorded_amount() -> None:
    """3-2-2 赎回抵押: 支付郁金香卡上所标示的金额给银行 — cash equal to the recorded 18 redeems (cash 0);
    17 cannot, and redeem is not offered."""
    state = table(levels=LEVELS, rows=ROWS, cash={BOB: 18}, mortgages={BOB: [("yellow-A-1", 18)]})
    state = at_selling(state)
    assert "redeem" in types(state, BOB)
    redeemed = play(state, (BOB, {"type": "redeem", "card": "yellow-A-1"}))
    assert redeemed["cash"][BOB] == 0 and redeemed["hands"][BOB] == ["yellow-A-1"]
    state["cash"][BOB] = 17
    assert "redeem" not in types(state, BOB)
    with pytest.raises(IllegalAction, match="You have only ƒ17; redeeming this tulip costs ƒ18"):
        play(state, (BOB, {"type": "redeem", "card": "yellow-A-1"}))


def test_selling_a_mortgage_below_its_amount_needs_exactly_the_difference_in_cash() -> None:
    """2 贩卖抵押保留中的郁金香: 标示的金额比市价高的时候你将支付差额给银行 — red A at II is worth 15,
    recorded 19: a seller with exactly 4 pays it (cash 0); with 3 the sale is neither offered nor
    allowed (rules.py: selling below the recorded amount needs the cash to pay the difference)."""
    state = table(levels=LEVELS, rows=ROWS, cash={ANDY: 4}, mortgages={ANDY: [("red-A-1", 19)]})
    state = at_selling(state)
    assert "sell_mortgage" in types(state, ANDY)
    sold = play(state, (ANDY, {"type": "sell_mortgage", "card": "red-A-1"}))
    assert sold["cash"][ANDY] == 0 and sold["mortgages"][ANDY] == []
    assert sold["rows"]["just_sold"] == ["red-A-1"]
    state["cash"][ANDY] = 3
    assert "sell_mortgage" not in types(state, ANDY)
    with pytest.raises(IllegalAction, match="You have only ƒ3; selling this mortgage costs ƒ4"):
        play(state, (ANDY, {"type": "sell_mortgage", "card": "red-A-1"}))


def test_selling_a_mortgage_at_exactly_its_recorded_amount_pays_nothing_either_way() -> None:
    """2 贩卖抵押保留中的郁金香: the difference between market price (red A at II: 15) and a recorded 15
    is nothing, so even a seller with no cash may sell it; recorded 14 gives 1 back."""
    state = at_selling(table(levels=LEVELS, rows=ROWS, cash={ANDY: 0}, mortgages={ANDY: [("red-A-1", 15)]}))
    sold = play(state, (ANDY, {"type": "sell_mortgage", "card": "red-A-1"}))
    assert sold["cash"][ANDY] == 0 and sold["mortgages"][ANDY] == []
    state["mortgages"][ANDY][0]["amount"] = 14
    assert play(state, (ANDY, {"type": "sell_mortgage", "card": "red-A-1"}))["cash"][ANDY] == 1


def overflow_to(price: int, bidders: list[int]) -> dict:
    """An auction on white B1 (market 7 at III) among ``bidders``: the first bids ``price``, the rest drop."""
    state = at_auction(table(levels=LEVELS, rows=BID_ROWS), "white-B1-1", bidders)
    state = play(state, (bidders[0], {"type": "raise", "amount": price}))
    for seat in bidders[1:]:
        state = play(state, (seat, {"type": "drop"}))
    return state


def test_paying_cash_needs_exactly_the_price() -> None:
    """3-2-2: 若你的现金不足，则必须以抵押保留的方式购买 — cash equal to the winning 12 may pay cash (and is
    left with 0); 11 must mortgage (that side is in test_short_cash_forces_a_mortgage)."""
    state = table(levels=LEVELS, rows=BID_ROWS, cash={ANDY: 12})
    state = play(at_auction(state, "white-B1-1", [ANDY, BOB]), (ANDY, {"type": "raise", "amount": 12}))
    state = play(state, (BOB, {"type": "drop"}))
    legal = ENGINE.legal_actions(state, ANDY)
    assert legal[0]["params"]["method"]["options"] == ["cash", "mortgage"]
    state = play(state, (ANDY, {"type": "pay", "method": "cash"}))
    assert state["cash"][ANDY] == 0 and "white-B1-1" in state["hands"][ANDY]


# --- the open auction (3-2-1) and its overflow reward (3-2-3) --------------------------------------------


def test_a_raise_of_exactly_one_guilder_over_the_last_bid_is_accepted() -> None:
    """3-2-1: 必须高于前一位玩家的出价金额至少 1 盾 — 9 after 8 stands (8 after 8 is refused in
    test_raising_needs_more_than_market_price_then_one_more_than_the_last_bid)."""
    state = at_auction(table(levels=LEVELS, rows=BID_ROWS), "white-B1-1", [BOB, CHARLES])
    state = play(state, (BOB, {"type": "raise", "amount": 8}), (CHARLES, {"type": "raise", "amount": 9}))
    assert state["auction"]["high"] == 9 and state["auction"]["high_bidder"] == CHARLES
    raise_template = next(t for t in ENGINE.legal_actions(state, BOB) if t["type"] == "raise")
    assert raise_template["params"]["amount"]["min"] == 10


def test_overflow_smaller_than_the_number_of_losers_pays_nobody() -> None:
    """3-2-3: 由得标者以外参与该次竞标的玩家平分差额，无法平分的余数忽略 — 8 against a market 7 leaves 1
    guilder for two losers: each share rounds down to 0, and no reward is logged."""
    state = play(overflow_to(8, [ANDY, BOB, CHARLES]), (ANDY, {"type": "pay", "method": "cash"}))
    assert state["cash"] == [12, 20, 20, 20]
    assert not any("Overflow" in text for text in texts(state))


def test_overflow_equal_to_the_number_of_losers_pays_one_each() -> None:
    """3-2-3: 9 against a market 7 leaves 2 guilders for two losers: 1 each."""
    state = play(overflow_to(9, [ANDY, BOB, CHARLES]), (ANDY, {"type": "pay", "method": "cash"}))
    assert state["cash"] == [11, 21, 21, 20]
    assert any(text.startswith("Overflow reward: ƒ1 each") for text in texts(state))


def test_overflow_of_one_guilder_goes_whole_to_a_single_loser() -> None:
    """3-2-3: 8 against a market 7 between two bidders: the one loser gets the whole 1."""
    state = play(overflow_to(8, [ANDY, BOB]), (ANDY, {"type": "pay", "method": "mortgage"}))
    assert state["cash"] == [20, 21, 20, 20]


# --- purchase tokens (3-1) ---------------------------------------------------------------------------------


def test_two_mortgages_leave_exactly_one_purchase_token() -> None:
    """3-1 and 3-2-2: 3 tokens each; 抵押保留所使用的购买指示物将不能用来下标 — with two mortgages Andy
    places one token and the second is refused (three mortgages leave none: FAQ Q1's test)."""
    state = table(
        levels=LEVELS, rows=BID_ROWS, mortgages={ANDY: [("red-A-1", 15), ("red-B1-1", 5)]}, cash={ANDY: 0}
    )
    state = at_placement(state)
    assert rules.tokens_available(state, ANDY) == 1
    state = play(state, (ANDY, {"type": "place", "card": "white-B1-1"}))
    assert ENGINE.to_act(state) == [ANDY]  # a seat with mortgages keeps its turn (it may redeem)
    assert "place" not in types(state, ANDY)
    with pytest.raises(IllegalAction, match="no purchase token"):
        play(state, (ANDY, {"type": "place", "card": "red-C2-1"}))


def test_one_mortgage_leaves_two_purchase_tokens_for_the_first_turn() -> None:
    """3-1: 第一次轮到你时，你可以放置最多两个购买指示物 — one mortgage still leaves the two tokens a first
    turn allows; the turn then passes."""
    state = at_placement(table(levels=LEVELS, rows=BID_ROWS, mortgages={ANDY: [("red-A-1", 15)]}))
    state = play(
        state, (ANDY, {"type": "place", "card": "white-B1-1"}), (ANDY, {"type": "place", "card": "red-C2-1"})
    )
    assert state["tokens"] == {"white-B1-1": [ANDY], "red-C2-1": [ANDY]}
    assert ENGINE.to_act(state) == [BOB]


# --- price levels I..VII (1-1 红字提示, ruling 2) --------------------------------------------------------


@pytest.mark.parametrize(
    ("levels", "colour", "steps", "to"),
    [
        ({"red": 6, "white": 1, "yellow": 2}, "red", 1, 7),  # VI + 1 reaches the ceiling VII
        ({"red": 7, "white": 1, "yellow": 2}, "red", 1, 7),  # VII + 1 stays on VII
        ({"red": 6, "white": 7, "yellow": 2}, "red", 1, 6),  # VI + 1 onto a taken VII stays on VI
        ({"red": 3, "white": 6, "yellow": 7}, "red", -2, 1),  # III − 2 reaches the floor I
        ({"red": 2, "white": 6, "yellow": 7}, "red", -2, 1),  # II − 2 runs past I and settles on I
        ({"red": 1, "white": 6, "yellow": 7}, "red", -2, 1),  # I − 2 stays on I
    ],
    ids=["VI-up-to-VII", "VII-stays", "VI-onto-taken-VII", "III-down-to-I", "II-settles-on-I", "I-stays"],
)
def test_price_levels_stop_at_one_and_seven(levels: dict[str, int], colour: str, steps: int, to: int) -> None:
    """1-1 红字提示: 价格等级下限为 I，上限为 VII，若已达上下限而无法移动时，则会停在最接近的价格等级空位上."""
    moved = dict(levels)
    prices.move_marker(moved, colour, steps)
    assert moved[colour] == to
    assert {c: moved[c] for c in moved if c != colour} == {c: levels[c] for c in levels if c != colour}


def test_supply_and_demand_moves_prices_when_one_colour_is_one_card_ahead() -> None:
    """4-1: 将数量最多的该色郁金香价格等级下降一级。将数量最少的该色郁金香价格等级上升一级 — counts 3/3/4 are
    not all equal (4-1.4): yellow, the most, falls VI → V; red and white, the fewest, rise."""
    levels = {"red": 1, "white": 4, "yellow": 6}
    prices.supply_and_demand(levels, {"red": 3, "white": 3, "yellow": 4})
    assert levels == {"red": 2, "white": 6, "yellow": 5}  # white IV → V is taken by yellow: on to VI


# --- the tulip deck (1-2) ----------------------------------------------------------------------------------


def test_a_deck_of_exactly_players_plus_two_fills_next_shipment_without_a_reshuffle() -> None:
    """1-2: 若郁金香卡库的卡片数量不足，则立即将弃牌堆洗牌 — 5 cards for 3 players are enough: no reshuffle
    (4 are too few: test_tulip_deck_reshuffles_its_discards_when_it_runs_short)."""
    state = table(
        3, levels=LEVELS, rows={"next_shipment": ROWS["new_arrivals"]}, market_deck=["rise:red", "burst"]
    )
    keep = state["deck"][:5]
    state["discard"] = state["deck"][5:]
    state["deck"] = keep
    state = play(at_last_placement(state), (state["turn"], {"type": "end_turn"}))
    assert state["rows"]["next_shipment"] == keep and state["deck"] == []
    assert state["reshuffles"] == 0
    assert not any("ran out" in text for text in texts(state))
