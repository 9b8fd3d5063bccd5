"""Q.E.'s numbers, each tested on both sides: the value the rule names and one past it (seed
qe.zh-Hant.txt, rulings/qe.md, which corrects the seed's tables). The worked example and the tie
rules are in ``test_qe_scoring.py`` and ``test_qe_auction.py``."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from app.games.base import IllegalAction, State
from app.games.qe import ENGINE, data, rules, scoring
from app.games.qe.data import (
    AGRICULTURE,
    CHINA,
    FINANCIAL,
    GOVERNMENT,
    HOUSING,
    MANUFACTURING,
    UK,
    USA,
    tile_id,
)


def table(players: int) -> State:
    """A fresh game whose first auctioneer is seat 0."""
    seed = next(s for s in range(200) if rules.setup(players, {}, s)["first_auctioneer"] == 0)
    return rules.setup(players, {}, seed)


def auction(state: State, open_bid: int, bids: dict[int, Any]) -> State:
    state = ENGINE.apply(state, state["auction"]["auctioneer"], {"type": "open_bid", "amount": open_bid})
    for seat, amount in sorted(bids.items()):
        state = ENGINE.apply(state, seat, {"type": "bid", "amount": amount})
    return state


# --- the open and the sealed bids (01 公開競標, 02 秘密競標, ruling 3) -------------------------------------------


def test_the_auctioneer_may_open_at_exactly_1() -> None:
    """01: 一定要標正數、整數 — 1 is the smallest open bid (0 is refused: test_auctioneer_must_open...)."""
    state = ENGINE.apply(table(4), 0, {"type": "open_bid", "amount": 1})
    assert state["auction"]["open_bid"] == 1 and state["phase"] == "bidding"
    assert ENGINE.legal_actions(table(4), 0)[0]["params"]["amount"]["min"] == 1


@pytest.mark.parametrize("amount", [9, 11])
def test_a_sealed_bid_one_either_side_of_the_auctioneers_is_allowed(amount: int) -> None:
    """02: 不能標和拍賣主持人訂的價格一樣 — only the auctioneer's 10 itself is barred; 9 and 11 stand."""
    state = auction(table(4), 10, {})
    state = ENGINE.apply(state, 1, {"type": "bid", "amount": amount})
    assert state["auction"]["bids"][1] == amount
    with pytest.raises(IllegalAction, match="may not equal"):
        ENGINE.apply(state, 2, {"type": "bid", "amount": 10})


def test_a_sealed_bid_one_above_the_auctioneers_wins_and_one_below_loses() -> None:
    """03 and ruling 3: the highest bid wins, possibly the auctioneer's — 11 beats an open 10; 9 does not."""
    above = auction(table(4), 10, {1: 11, 2: 0, 3: 0})
    assert above["auctions"][0]["winner"] == 1 and above["auctions"][0]["amount"] == 11
    below = auction(table(4), 10, {1: 9, 2: 0, 3: 0})
    assert below["auctions"][0]["winner"] == 0 and below["auctions"][0]["amount"] == 10


# --- zero bids, once a round (04, ruling 6) --------------------------------------------------------------


def test_a_round_is_one_auction_per_player_so_a_zero_bid_scores_again_only_after_it() -> None:
    """04 註記: 一輪包含所有玩家都當過一次拍賣主持人 — with 4 players the 4th auction is still round 1 (a
    second zero bid scores nothing), the 5th opens round 2 (it scores again)."""
    state = auction(table(4), 5, {1: 0, 2: 1, 3: 1})  # auctioneers 0, 1, 2, 3, then 0 again
    assert state["auctions"][0]["zero_scored"] == [1]
    state = auction(state, 5, {0: 1, 2: 1, 3: 1})
    state = auction(state, 5, {0: 1, 1: 1, 3: 1})
    assert state["auction"]["number"] == 3 and state["auction"]["round"] == 0
    state = auction(state, 5, {0: 1, 1: 0, 2: 1})
    assert state["auctions"][3]["zero_bids"] == [1] and state["auctions"][3]["zero_scored"] == []
    assert state["auction"]["number"] == 4 and state["auction"]["round"] == 1
    state = auction(state, 5, {1: 0, 2: 1, 3: 1})
    assert state["auctions"][4]["zero_scored"] == [1]
    assert state["zero_rounds"][1] == [0, 1]


# --- who auctions (ruling 1; 3 人遊戲 最後板塊規則) -------------------------------------------------------------


@pytest.mark.parametrize(("players", "auctions"), [(3, 16), (4, 16), (5, 15)])
def test_every_auction_has_an_auctioneer_but_the_three_player_sixteenth(players: int, auctions: int) -> None:
    """遊戲進行: 16 auctions with 3–4 players, 15 with 5; 3 人遊戲: the last tile has no auctioneer, so that
    everyone auctions equally often. With 4 and 5 players the last auction has one; with 3 the 15th does,
    the 16th does not."""
    state = table(players)
    assert state["turns"] == data.auction_count(players) == auctions
    last = auctions - 1
    assert rules.auctioneer_of(state, last - 1) is not None
    assert (rules.auctioneer_of(state, last) is None) is (players == 3)


# --- final scoring tables (最終計分, ruling's table) ------------------------------------------------------


def usa_tiles(count: int) -> list[str]:
    return [tile_id(USA, i) for i in (AGRICULTURE, HOUSING, FINANCIAL, MANUFACTURING)][:count]


def uk_tiles(count: int) -> list[str]:
    return [tile_id(UK, i) for i in (AGRICULTURE, FINANCIAL, GOVERNMENT)][:count]


@pytest.mark.parametrize(
    ("players", "own", "points"),
    [(4, 0, 0), (4, 1, 1), (4, 2, 3), (4, 3, 6), (4, 4, 10), (3, 1, 1), (3, 4, 10)]
    + [(5, 0, 0), (5, 1, 3), (5, 2, 6), (5, 3, 10)],
)
def test_nationalization_at_each_count(players: int, own: int, points: int) -> None:
    """國有化: 3-4 人 1 個 1 分、2 個 3 分、3 個 6 分、4 個 10 分; 5 人 1 個 3 分、2 個 6 分、3 個 10 分."""
    tiles = usa_tiles(own) if players < 5 else uk_tiles(own)
    assert scoring.nationalization(players, USA if players < 5 else UK, tiles) == points


@pytest.mark.parametrize(
    ("players", "count", "points"),
    [(4, 1, 0), (4, 2, 3), (4, 3, 6), (4, 4, 10), (4, 5, 10), (3, 2, 3)]
    + [(5, 1, 0), (5, 2, 6), (5, 3, 10), (5, 4, 16), (5, 5, 16)],
)
def test_monopolization_at_each_count(players: int, count: int, points: int) -> None:
    """壟斷 (ruling's corrected 5-player line): 3-4 人 2 個 3、3 個 6、4 個 10; 5 人 2→6、3→10、4→16 — one of
    a kind scores nothing, and more than four score as four."""
    assert scoring.monopolization(players, Counter({FINANCIAL: count})) == points


@pytest.mark.parametrize(
    ("players", "kinds", "points"),
    [(4, 2, 0), (4, 3, 4), (4, 4, 8), (3, 3, 4), (5, 2, 0), (5, 3, 8), (5, 4, 12), (5, 5, 17)],
)
def test_diversification_at_each_number_of_different_industries(
    players: int, kinds: int, points: int
) -> None:
    """多樣化: 3-4 人 3 種 4 分、4 種 8 分; 5 人 3 種 8 分、4 種 12 分、5 種 17 分 — two kinds score nothing."""
    industries = (AGRICULTURE, HOUSING, FINANCIAL, MANUFACTURING, GOVERNMENT)[:kinds]
    assert scoring.diversification(players, Counter(dict.fromkeys(industries, 1))) == points


def test_the_token_counts_towards_a_set_but_not_towards_nationalization() -> None:
    """壟斷/多樣化 註記: 你正面朝下的產業指示物都包含在內; 國有化 counts company tiles only — one USA
    Financial tile plus a Financial token is a pair (3), while one own-country tile scores only 1."""
    sheet = scoring.score_sheet(4, USA, FINANCIAL, [tile_id(USA, FINANCIAL)], 0)
    assert (sheet["monopolization"], sheet["nationalization"]) == (3, 1)
    sheet = scoring.score_sheet(4, CHINA, FINANCIAL, [tile_id(USA, HOUSING), tile_id(USA, MANUFACTURING)], 0)
    assert (sheet["diversification"], sheet["nationalization"]) == (4, 0)


# --- the spending step (總花費) ---------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "bonus"), [(3, 6), (4, 6), (5, 7)])
def test_lowest_spend_bonus_is_6_up_to_four_players_and_7_with_five(players: int, bonus: int) -> None:
    """總花費: 花費最少的玩家獲得分數 3-4 人遊戲 6 分, 5 人遊戲 7 分."""
    spends = [10, *range(20, 20 + players - 1)]
    standings = scoring.final_standings(players, [0] * players, spends)
    assert standings["bonuses"] == [bonus] + [0] * (players - 1)


def test_spending_one_more_than_the_lowest_earns_no_bonus_and_one_less_than_the_highest_survives() -> None:
    """總花費: 花費最高的玩家淘汰; 花費最少的玩家獲得分數 — 30 gets the bonus, 31 not; 90 is eliminated,
    89 is not."""
    standings = scoring.final_standings(4, [0, 0, 0, 0], [30, 31, 89, 90])
    assert standings["bonuses"] == [6, 0, 0, 0]
    assert standings["eliminated"] == [False, False, False, True]


def test_a_one_point_lead_wins_and_equal_scores_go_to_the_lower_spender_by_one() -> None:
    """總分 and 平手判定: the highest total among the survivors wins; tied, the lower spender (by one) wins."""
    assert scoring.final_standings(4, [21, 20, 0, 0], [50, 50, 10, 99])["winners"] == [0]
    assert scoring.final_standings(4, [20, 20, 0, 0], [41, 40, 10, 99])["winners"] == [1]
