"""Q.E. auction rules: open and sealed bids, ties and re-bids, the 3-player last tile, zero bids,
the 5-player peek, who sees what (rulings/qe.md 2–7) and bids as players type them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.games.base import IllegalAction, State
from app.games.qe import ENGINE, data, rules
from app.games.qe.data import AGRICULTURE, FINANCIAL, USA, tile_id


def table(players: int, first: int = 0, tiles: tuple[str, ...] = ()) -> State:
    """A fresh game whose first auctioneer is ``first`` and whose deck starts with ``tiles``."""
    seed = next(s for s in range(200) if rules.setup(players, {}, s)["first_auctioneer"] == first)
    state = rules.setup(players, {}, seed)
    deck = [state["auction"]["tile"], *state["deck"]]
    order = [*tiles, *(t for t in deck if t not in tiles)]
    state["auction"]["tile"], state["deck"] = order[0], order[1:]
    return state


def act(state: State, seat: int, kind: str, amount: Any = None) -> State:
    action: dict[str, Any] = {"type": kind}
    if amount is not None:
        action["amount"] = amount
    return ENGINE.apply(state, seat, action)


def auction(state: State, open_bid: int | None, bids: dict[int, Any]) -> State:
    """Run the open bid (if there is an auctioneer) and the given sealed bids, in seat order."""
    if open_bid is not None:
        state = act(state, state["auction"]["auctioneer"], "open_bid", open_bid)
    for seat, amount in sorted(bids.items()):
        state = act(state, seat, "bid", amount)
    return state


def next_tile(state: State) -> State:
    """With 5 players the next auctioneer reveals the next tile after the award window."""
    if state["phase"] == "award":
        auctioneer = rules.next_auctioneer(state)
        assert auctioneer is not None
        state = act(state, auctioneer, "reveal")
    return state


def quiet_auction(state: State) -> State:
    """An auction the auctioneer wins at 1 while everyone else bids 0."""
    a = state["auction"]["auctioneer"]
    return next_tile(auction(state, 1, {s: 0 for s in range(state["players"]) if s != a}))


def dump(state: State, seat: int | None) -> str:
    return json.dumps(ENGINE.view(state, seat))


# --- open and sealed bids (ruling 3) -------------------------------------------------------------


def test_auctioneer_must_open_with_at_least_one() -> None:
    state = table(4)
    with pytest.raises(IllegalAction, match="at least 1"):
        act(state, 0, "open_bid", 0)
    assert ENGINE.to_act(state) == [0]
    assert ENGINE.legal_actions(state, 1) == []


def test_sealed_bid_may_not_equal_the_auctioneers_but_may_be_lower() -> None:
    state = auction(table(4), 10, {})
    assert sorted(ENGINE.to_act(state)) == [1, 2, 3]
    with pytest.raises(IllegalAction, match="may not equal"):
        act(state, 1, "bid", 10)
    state = act(state, 1, "bid", 3)
    with pytest.raises(IllegalAction, match="already handed in"):
        act(state, 1, "bid", 30)
    assert ENGINE.legal_actions(state, 2)[0]["params"]["amount"]["exclude"] == [10]


def test_whether_a_seat_has_bid_is_public_but_not_the_amount() -> None:
    state = act(auction(table(4), 10, {}), 1, "bid", 4567)
    for seat in (None, 0, 2, 3):
        seen = ENGINE.view(state, seat)
        assert seen["auction"]["submitted"] == [1]
        assert "4567" not in dump(state, seat)
    assert ENGINE.view(state, 1)["auction"]["your_bid"] == 4567


def test_auctioneer_can_win_and_then_everyone_sees_the_amount() -> None:
    """Phase 3: the auctioneer may be the highest bidder; the price is then recorded openly."""
    state = auction(table(4), 10, {1: 3, 2: 0, 3: 9})
    record = state["auctions"][0]
    assert (record["winner"], record["amount"]) == (0, 10)
    for seat in (None, 1, 2, 3):
        assert ENGINE.view(state, seat)["history"][0]["amount"] == 10


def test_winning_amount_seen_by_winner_and_auctioneer_only_all_bids_by_auctioneer_only() -> None:
    """Ruling 6."""
    state = auction(table(4), 10, {1: 3333, 2: 2222, 3: 0})
    auctioneer, winner, other = (ENGINE.view(state, s)["history"][0] for s in (0, 1, 2))
    assert auctioneer["amount"] == winner["amount"] == 3333
    assert other["amount"] is None and other["winner"] == 1
    assert auctioneer["all_bids"] == [[10, 3333, 2222, 0]]
    assert winner["all_bids"] is None and other["all_bids"] is None
    assert other["your_bids"] == [2222]
    assert "3333" not in dump(state, 2) and "3333" not in dump(state, None)
    assert "2222" not in dump(state, 1) and "2222" not in dump(state, 3)


# --- ties (ruling 4) -----------------------------------------------------------------------------


def test_tie_for_highest_bid_sends_the_tied_players_into_a_rebid() -> None:
    """競標平手判定: the tied players bid again; the new bid need not be higher."""
    state = auction(table(4), 5, {1: 10, 2: 10, 3: 3})
    assert state["phase"] == "bidding"
    assert ENGINE.to_act(state) == [1, 2]
    assert ENGINE.view(state, None)["auction"]["rebid"] is True
    state = auction(state, None, {1: 7, 2: 6})
    record = state["auctions"][0]
    assert (record["winner"], record["amount"]) == (1, 7)
    assert ENGINE.view(state, 1)["history"][0]["your_bids"] == [10, 7]
    assert ENGINE.view(state, 0)["history"][0]["all_bids"] == [[5, 10, 10, 3], [5, 7, 6, 3]]


def test_rebid_can_tie_a_player_who_did_not_rebid_who_then_joins() -> None:
    """Ruling 4: all bids are re-evaluated; D's standing 8 ties B's re-bid of 8."""
    state = auction(table(4), 5, {1: 10, 2: 10, 3: 8})
    state = auction(state, None, {1: 8, 2: 2})
    assert state["phase"] == "bidding"
    assert ENGINE.to_act(state) == [1, 3]
    assert state["auction"]["ties"] == 2
    state = auction(state, None, {1: 9, 3: 6})
    assert (state["auctions"][0]["winner"], state["auctions"][0]["amount"]) == (1, 9)


def test_rebids_can_drop_below_the_auctioneer_who_then_wins() -> None:
    state = auction(table(4), 5, {1: 10, 2: 10, 3: 0})
    state = auction(state, None, {1: 1, 2: 2})
    assert (state["auctions"][0]["winner"], state["auctions"][0]["amount"]) == (0, 5)


def test_third_tie_in_a_row_goes_to_the_highest_bidder_outside_the_tie() -> None:
    """如果連續 3 次平手,沒有平手的玩家中出價最高的勝出 (the original tie counts as the first)."""
    state = auction(table(4), 5, {1: 10, 2: 10, 3: 7})
    state = auction(state, None, {1: 11, 2: 11})
    assert state["auction"]["ties"] == 2
    state = auction(state, None, {1: 12, 2: 12})
    record = state["auctions"][0]
    assert (record["winner"], record["amount"]) == (3, 7)
    assert ENGINE.view(state, 3)["history"][0]["amount"] == 7


def test_third_tie_with_only_the_auctioneer_outside_goes_to_the_auctioneer() -> None:
    """With 3 players the auctioneer is the only player outside a two-way tie. Nobody may bid the
    auctioneer's amount, so the auctioneer is never in a tie and is always outside it."""
    state = auction(table(3), 5, {1: 10, 2: 10})
    state = auction(state, None, {1: 9, 2: 9})
    state = auction(state, None, {1: 20, 2: 20})
    assert (state["auctions"][0]["winner"], state["auctions"][0]["amount"]) == (0, 5)


def test_third_tie_with_tied_outsiders_goes_to_the_highest_unmatched_bid() -> None:
    """Outside the tie C and D are tied at 7 too: the highest bid nobody matched (A's 5) wins."""
    state = auction(table(5), 5, {1: 10, 2: 7, 3: 7, 4: 10})
    state = auction(state, None, {1: 10, 4: 10})
    state = auction(state, None, {1: 10, 4: 10})
    assert (state["auctions"][0]["winner"], state["auctions"][0]["amount"]) == (0, 5)
    assert rules.highest_unmatched_bidder([5, 10, 7, 7, 10], exclude=[1, 4]) == 0
    assert rules.highest_unmatched_bidder([5, 10, 8, 7, 10], exclude=[1, 4]) == 2


# --- 3 players: the last tile (ruling 5) ---------------------------------------------------------


def three_player_last_tile() -> State:
    state = table(3)
    for _ in range(15):
        state = quiet_auction(state)
    assert state["turn"] == 15 and state["auction"]["auctioneer"] is None
    return state


def test_three_player_last_tile_all_bid_secretly_and_the_highest_wins() -> None:
    """最後板塊規則: no auctioneer; all three bid secretly."""
    state = three_player_last_tile()
    assert sorted(ENGINE.to_act(state)) == [0, 1, 2]
    assert ENGINE.legal_actions(state, 0)[0]["params"]["amount"]["exclude"] == []
    state = auction(state, None, {0: 5, 1: 7777, 2: 3})
    record = state["auctions"][-1]
    assert (record["winner"], record["amount"]) == (1, 7777)
    assert state["finished"] and ENGINE.result(state) is not None


def test_three_player_last_tile_amount_is_seen_only_by_the_winner_before_the_end() -> None:
    state = auction(three_player_last_tile(), None, {0: 5, 1: 7777})
    assert "7777" in dump(state, 1)
    assert "7777" not in dump(state, 0) and "7777" not in dump(state, 2)


def test_three_player_last_tile_tie_means_nobody_gets_it() -> None:
    state = auction(three_player_last_tile(), None, {0: 9, 1: 9, 2: 3})
    record = state["auctions"][-1]
    assert record["winner"] is None
    assert state["finished"]
    assert sum(1 for r in state["auctions"] if r["winner"] is not None) == 15


# --- zero bids (phase 4) -------------------------------------------------------------------------


def test_zero_bid_scores_two_once_per_round_and_is_revealed_publicly() -> None:
    """Phase 4: zero bids are revealed and score 2, once per player per round."""
    state = auction(table(4), 3, {1: 0, 2: 0, 3: 5})
    assert state["zero_rounds"] == [[], [0], [0], []]
    assert ENGINE.view(state, 3)["history"][0]["zero_bids"] == [1, 2]
    state = auction(state, 3, {0: 9, 2: 0, 3: 1})  # B auctions; C bids 0 again in round 1
    assert state["auctions"][1]["zero_bids"] == [2]
    assert state["auctions"][1]["zero_scored"] == []
    assert state["zero_rounds"][2] == [0]
    state = auction(state, 3, {0: 9, 1: 4, 3: 1})
    state = auction(state, 3, {0: 9, 1: 4, 2: 1})
    assert state["auction"]["round"] == 1
    state = auction(state, 3, {1: 4, 2: 0, 3: 1})  # round 2: the box resets
    assert state["zero_rounds"][2] == [0, 1]
    assert ENGINE.view(state, 2)["sheet"]["zero_boxes"] == [True, True, False, False]
    assert ENGINE.view(state, 2)["sheet"]["scores"]["zero_bids"] == 4


def test_zero_bids_never_score_or_show_with_three_players() -> None:
    state = auction(table(3), 3, {1: 0, 2: 0})
    assert state["zero_rounds"] == [[], [], []]
    assert state["auctions"][0]["zero_bids"] == []
    assert ENGINE.view(state, 1)["sheet"]["zero_boxes"] == []
    assert ENGINE.view(state, 2)["history"][0]["your_bids"] == [0]
    assert ENGINE.view(state, 1)["history"][0]["your_bids"] == [0]


# --- 5 players: the peek (ruling 7) --------------------------------------------------------------


def test_peek_once_per_game_for_an_amount_not_already_visible() -> None:
    """看得標價格: once per game, from the award until the next tile is revealed."""
    state = auction(table(5), 5, {1: 8888, 2: 0, 3: 0, 4: 0})
    assert state["phase"] == "award"
    assert ENGINE.to_act(state) == [1]
    assert [a["type"] for a in ENGINE.legal_actions(state, 1)] == ["reveal"]  # the winner knows
    assert ENGINE.legal_actions(state, 0) == []  # so does the auctioneer
    with pytest.raises(IllegalAction, match="already see"):
        act(state, 0, "peek")
    assert [a["type"] for a in ENGINE.legal_actions(state, 2)] == ["peek"]
    assert "8888" not in dump(state, 2)
    state = act(state, 2, "peek")
    assert ENGINE.view(state, 2)["last_award"]["amount"] == 8888
    assert ENGINE.view(state, 2)["table"][2]["peek_used"] is True
    assert "8888" not in dump(state, 3)
    with pytest.raises(IllegalAction, match="already used"):
        act(state, 2, "peek")
    state = act(state, 1, "reveal")
    assert state["phase"] == "open_bid"
    with pytest.raises(IllegalAction, match="only after an award"):
        act(state, 3, "peek")
    state = auction(state, 5, {0: 6666, 2: 0, 3: 0, 4: 0})
    assert [a["type"] for a in ENGINE.legal_actions(state, 2)] == ["reveal"]  # peek used for the game
    assert ENGINE.view(state, 2)["can_peek"] is False and ENGINE.view(state, 3)["can_peek"] is True


def test_no_peek_when_the_auctioneer_won_because_everyone_saw_the_amount() -> None:
    state = auction(table(5), 5, {1: 0, 2: 0, 3: 0, 4: 0})
    assert all(ENGINE.legal_actions(state, s) == [] for s in (0, 2, 3, 4))


def test_peek_is_a_five_player_rule() -> None:
    state = auction(table(4), 5, {1: 8, 2: 0, 3: 0})
    with pytest.raises(IllegalAction, match="5-player"):
        act(state, 2, "peek")


# --- bids as typed (ruling 2) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("-5", "negative"),
        (-5, "negative"),
        ("1.5", "decimals"),
        ("1,000", "separators"),
        (2.0, "decimals"),
        ("", "Write your bid"),
        ("   ", "Write your bid"),
        (None, "whole number"),
        ("twelve", "digits 0 to 9"),
        ("1e5", "digits 0 to 9"),
        ("+5", "sign"),
        ("1" * 31, "at most 30 digits"),
        (10**30, "at most 30 digits"),
        (True, "whole number"),
        (["5"], "whole number"),
    ],
)
def test_malformed_bids_are_refused_with_a_readable_message(typed: Any, message: str) -> None:
    state = auction(table(4), 10, {})
    with pytest.raises(IllegalAction, match=message):
        act(state, 1, "bid", typed) if typed is not None else ENGINE.apply(state, 1, {"type": "bid"})


@pytest.mark.parametrize(
    ("typed", "value"), [(" 42 ", 42), ("４２", 42), ("0012", 12), ("1" * 30, int("1" * 30))]
)
def test_bids_typed_as_digits_are_read_exactly(typed: str, value: int) -> None:
    state = act(auction(table(4), 10, {}), 1, "bid", typed)
    assert state["auction"]["bids"][1] == value


def test_huge_bids_survive_state_and_view_json_exactly() -> None:
    """Ruling 2: no upper limit; a bid of 10^22 + 1 is stored and shown exactly."""
    huge = "10000000000000000000001"
    state = auction(table(4), 10000000000000000000000, {1: huge, 2: 0, 3: 0})
    assert state["auctions"][0]["amount"] == 10**22 + 1
    assert json.loads(json.dumps(state)) == state
    for seat in (0, 1):
        seen = ENGINE.view(state, seat)
        assert json.loads(json.dumps(seen)) == seen
        assert seen["history"][0]["amount"] == 10**22 + 1
        assert huge in json.dumps(seen)
    assert ENGINE.view(state, 1)["sheet"]["spent"] == 10**22 + 1


def test_malformed_actions_are_illegal_not_crashes() -> None:
    state = table(4)
    for action in ({}, {"type": "bribe"}, {"type": ["bid"]}, {"type": "reveal"}, {"type": "peek"}):
        with pytest.raises(IllegalAction):
            ENGINE.apply(state, 0, action)
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, "bid")  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 7, {"type": "open_bid", "amount": 3})
    with pytest.raises(IllegalAction, match="Only the auctioneer"):
        act(state, 2, "open_bid", 3)
    with pytest.raises(IllegalAction, match="no bid to make"):
        act(state, 2, "bid", 3)


def test_apply_never_mutates_its_input() -> None:
    state = table(4)
    before = json.dumps(state)
    auction(state, 10, {1: 11, 2: 11, 3: 0})
    assert json.dumps(state) == before


# --- setup and the score sheet (ruling 1, 9) -----------------------------------------------------


@pytest.mark.parametrize(("players", "tiles"), [(3, 16), (4, 16), (5, 15)])
def test_setup_deals_countries_tokens_and_the_tiles_for_the_player_count(players: int, tiles: int) -> None:
    state = rules.setup(players, {}, 3)
    assert len(state["deck"]) + 1 == tiles == state["turns"]
    assert len(set(state["countries"])) == len(set(state["tokens"])) == players
    if players < 5:
        assert data.UK not in state["countries"] and data.GOVERNMENT not in state["tokens"]


def test_auctioneer_passes_left_from_a_random_first_auctioneer() -> None:
    firsts = {rules.setup(4, {}, seed)["first_auctioneer"] for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    state = table(4, first=2)
    assert [rules.auctioneer_of(state, t) for t in range(5)] == [2, 3, 0, 1, 2]


def test_live_score_sheet_shows_its_owner_tiles_amounts_and_running_scores() -> None:
    """Ruling 9: the owner sees tiles with amounts, zero boxes, peek and category scores."""
    state = table(4, tiles=(tile_id(USA, AGRICULTURE), tile_id(USA, FINANCIAL)))
    state["countries"][1], state["tokens"][1] = USA, FINANCIAL
    state = auction(state, 3, {1: 40, 2: 0, 3: 0})
    state = auction(state, 3, {0: 0, 2: 0, 3: 0})  # B auctions and wins at 3
    sheet = ENGINE.view(state, 1)["sheet"]
    assert [(t["id"], t["amount"]) for t in sheet["tiles"]] == [
        (tile_id(USA, AGRICULTURE), 40),
        (tile_id(USA, FINANCIAL), 3),
    ]
    assert sheet["spent"] == 43 and sheet["token"] == FINANCIAL
    assert sheet["scores"]["nationalization"] == 3 and sheet["scores"]["monopolization"] == 3
    assert sheet["scores"]["companies"] == 6 and sheet["peek_used"] is False
    assert ENGINE.view(state, 2)["sheet"]["seat"] == 2
    assert ENGINE.view(state, None)["sheet"] is None
