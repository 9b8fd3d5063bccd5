"""Tulipmania 1637: the rulebook's examples, the ruling's ★ board cells and the unusual circumstances.

Seats in the rulebook's examples: Ann 0, Bill 1, Charles 2, Dave 3 (clockwise; "right" is the
previous seat).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.games import base
from app.games.base import IllegalAction, State
from app.games.tulipmania_1637 import ENGINE, data, rules

ANN, BILL, CHARLES, DAVE = 0, 1, 2, 3


def cell_of(value: int, kind: str = data.CURRENT) -> list[int]:
    cells = [
        [r, c]
        for r in range(data.rows())
        for c in range(data.columns())
        if data.value((r, c)) == value and data.kind((r, c)) == kind
    ]
    assert len(cells) == 1, (value, kind)
    return cells[0]


def table(players: int = 4, current: int = BILL, priority: int = ANN, seed: int = 7) -> State:
    """A fresh game with the current player card and priority card where the example needs them."""
    state = rules.setup(players, {}, seed)
    state["current"], state["priority"] = current, priority
    state["events"] = []
    return state


def play(state: State, seat: int, **action: Any) -> State:
    return ENGINE.apply(state, seat, action)


def sale(state: State, colour: str, cards: dict[int, int], seller_card: int | None = None) -> State:
    """The current player sells ``colour``; the others play ``cards`` (Pass when not given)."""
    seller = state["current"]
    state = play(state, seller, type="sell", colour=colour)
    for seat in range(state["players"]):
        if seat != seller:
            state = play(state, seat, type="play", card=cards.get(seat, data.PASS))
    if seller_card is not None:
        state = play(state, seller, type="play", card=seller_card)
    return state


def finish_turn(state: State) -> State:
    seat = state["current"]
    if state["phase"] == rules.DRAW:
        state = play(state, seat, type="draw_buyer")
    if state["phase"] == rules.BUY and state["current"] == seat:
        state = play(state, seat, type="skip_purchase")
    return state


def texts(state: State) -> list[str]:
    return [e["text"] for e in state["events"]]


# --- the board (ruling's ★ cells) --------------------------------------------------------------------


def test_board_start_is_50_on_the_bottom_row() -> None:
    assert data.value(data.start()) == 50
    assert data.start()[0] == 0


def test_board_purchase_track_wraps_up_rows_into_the_first_burst_space() -> None:
    values = [data.value(c) for c in data.purchase_track()]
    assert values[:13] == [25, 50, 75, 100, 125, 250, 375, 500, 750, 1000, 1500, 2000, 3000]
    assert data.is_burst(data.purchase(cell_of(2000)))


def test_board_star_purchase_250_goes_to_375() -> None:
    assert data.value(data.purchase(cell_of(250))) == 375


def test_board_star_speculate_250_pays_750_lands_1000() -> None:
    paid, landing = data.speculate(cell_of(250))  # type: ignore[misc]
    assert (data.value(paid), data.value(landing)) == (750, 1000)


def test_board_star_all_pass_250_pays_150_lands_50() -> None:
    paid, landing = data.all_pass(cell_of(250))
    assert (paid, data.value(landing)) == (150, 50)


def test_board_star_speculate_1000_pays_3000_lands_4000_and_bursts() -> None:
    paid, landing = data.speculate(cell_of(1000))  # type: ignore[misc]
    assert (data.value(paid), data.value(landing)) == (3000, 4000)
    assert data.is_burst(landing)


def test_board_star_burst_chain_from_4000() -> None:
    cell: data.Position = data.pos(cell_of(4000, data.BURST))
    chain = [data.value(cell)]
    for _ in range(5):
        cell = data.sell_off_step(cell)
        chain.append(data.value(cell))
    assert chain == [4000, 3000, 1000, 750, 250, 150]


def test_board_star_cheap_all_pass_at_25_stays_at_25() -> None:
    paid, landing = data.all_pass(cell_of(25))
    assert (paid, data.value(landing)) == (25, 25)
    assert data.value(data.sell_off_step(cell_of(25))) == 25


def test_board_moves_follow_a_replaced_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """A corrected board needs no code change: every arrow is derived from PRICE_BOARD."""
    corrected = (
        (data.BURST, (3500, 5000)),
        (data.TRANSITION, (2500, 3500)),
        (data.CURRENT, (800, 1200)),
        (data.TRANSITION, (200, 400)),
        (data.CURRENT, (20, 50)),
    )
    monkeypatch.setattr(data, "PRICE_BOARD", corrected)
    assert data.value(data.start()) == 50
    assert [data.value(c) for c in data.purchase_track()] == [20, 50, 800, 1200, 3500, 5000]
    paid, landing = data.speculate(data.start())  # type: ignore[misc]
    assert (data.value(paid), data.value(landing)) == (400, 1200)
    assert data.all_pass(cell_of(1200)) == (400, (0, 1))
    assert data.all_pass(cell_of(50)) == (50, (0, 0))


# --- set-up --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "colours", "deck", "reserve", "face_up"),
    [(3, 3, 11, 4, 2), (4, 4, 14, 6, 2), (5, 5, 18, 7, 3)],
)
def test_setup_per_player_count(players: int, colours: int, deck: int, reserve: int, face_up: int) -> None:
    state = rules.setup(players, {}, 3)
    assert state["colours"] == list(data.ALL_COLOURS[:colours])
    assert len(state["face_up"]) == face_up
    assert len(state["deck"]) == deck - face_up  # the face-up buyers come off the buyer deck
    assert len(state["reserve"]) == reserve
    assert all(len(hand) == 3 for hand in state["buyers"])
    assert state["cash"] == [700] * players
    for colour in state["colours"]:
        assert state["stock"][colour] == 5
        assert all(t[colour] == 1 for t in state["tulips"])
        assert rules.price(state, colour) == 50
        dealt = state["deck"] + state["reserve"] + state["face_up"] + sum(state["buyers"], [])
        assert dealt.count(colour) == 8
    assert state["priority"] == (state["current"] - 1) % players  # on the first player's right


def test_setup_refuses_two_or_six_players() -> None:
    for players in (2, 6):
        with pytest.raises(IllegalAction):
            rules.setup(players, {}, 1)


# --- I. sell a tulip: the rulebook examples ------------------------------------------------------------


def at_250(state: State) -> State:
    state["price"]["orange"] = cell_of(250)
    return state


def test_example_of_purchase() -> None:
    """Bill sells orange at ƒ250; Ann wins with 2 – Purchase, pays Bill ƒ250; price ƒ375."""
    state = sale(at_250(table()), "orange", {ANN: data.PURCHASE})
    assert state["tulips"][ANN]["orange"] == 2 and state["tulips"][BILL]["orange"] == 0
    assert state["cash"][ANN] == 450 and state["cash"][BILL] == 950
    assert rules.price(state, "orange") == 375
    assert state["phase"] == rules.DRAW


def test_example_of_speculate() -> None:
    """Bill sells orange at ƒ250; Ann wins with 4 – Speculate, pays ƒ750; price ƒ1000."""
    state = at_250(table())
    state["cash"][ANN] = 800
    state = sale(state, "orange", {ANN: data.SPECULATE, CHARLES: data.PURCHASE})
    assert state["tulips"][ANN]["orange"] == 2
    assert state["cash"][ANN] == 50 and state["cash"][BILL] == 1450
    assert rules.price(state, "orange") == 1000


def test_example_of_purchase_by_proxy() -> None:
    """Ann discards one orange buyer; Bill's tulip goes to stock; the bank pays Bill ƒ250; ƒ375."""
    state = at_250(table())
    state["buyers"][ANN] = ["orange", "orange", "yellow"]
    stock = state["stock"]["orange"]
    state = sale(state, "orange", {ANN: data.PURCHASE_BY_PROXY})
    assert state["buyers"][ANN] == ["orange", "yellow"]
    assert state["stock"]["orange"] == stock + 1 and state["tulips"][BILL]["orange"] == 0
    assert state["cash"][BILL] == 950 and state["cash"][ANN] == 700
    assert rules.price(state, "orange") == 375


def test_example_of_speculate_by_proxy() -> None:
    """Ann discards two orange buyers; the bank pays Bill ƒ750; price ƒ1000."""
    state = at_250(table())
    state["buyers"][ANN] = ["orange", "orange", "yellow"]
    state = sale(state, "orange", {ANN: data.SPECULATE_BY_PROXY, DAVE: data.PURCHASE})
    assert state["buyers"][ANN] == ["yellow"]
    assert state["cash"][BILL] == 1450 and state["cash"][DAVE] == 700
    assert rules.price(state, "orange") == 1000


def test_example_of_all_players_passed() -> None:
    """Everybody passes (Bill too): the bank pays Bill ƒ150 and orange falls to ƒ50."""
    state = sale(at_250(table()), "orange", {}, seller_card=data.PASS)
    assert state["cash"][BILL] == 850 and state["tulips"][BILL]["orange"] == 0
    assert rules.price(state, "orange") == 50


def test_all_others_pass_gives_the_seller_a_face_up_choice_of_pass_1_or_3() -> None:
    state = at_250(table())
    state["buyers"][BILL] = ["orange", "purple", "yellow"]
    state["cash"][BILL] = 5000
    state = sale(state, "orange", {})
    assert state["phase"] == rules.SELLER_CHOICE and rules.to_act(state) == [BILL]
    options = rules.legal_actions(state, BILL)[0]["params"]["card"]["options"]
    assert options == [data.PASS, data.PURCHASE_BY_PROXY]  # one orange buyer: not 3; never 2 or 4
    for card in (data.PURCHASE, data.SPECULATE):
        with pytest.raises(IllegalAction):
            play(state, BILL, type="play", card=card)
    state = play(state, BILL, type="play", card=data.PURCHASE_BY_PROXY)
    assert state["buyers"][BILL] == ["purple", "yellow"]
    assert state["cash"][BILL] == 5250 and rules.price(state, "orange") == 375


def test_cheap_tulip_all_pass_pays_the_current_price_and_steps_down() -> None:
    """Unusual circumstance: all pass at ƒ100 or less — bank pays the current price, next lower space."""
    for before, after in ((100, 75), (50, 25), (25, 25)):
        state = table()
        state["price"]["yellow"] = cell_of(before)
        state = sale(state, "yellow", {}, seller_card=data.PASS)
        assert state["cash"][BILL] == 700 + before
        assert rules.price(state, "yellow") == after


def test_selling_is_mandatory_with_two_tulips_optional_with_one_skipped_with_none() -> None:
    state = table()
    with pytest.raises(IllegalAction):
        play(state, BILL, type="skip_sale")
    state["tulips"][BILL] = {c: 0 for c in state["colours"]}
    state["tulips"][BILL]["blue"] = 1
    assert {a["type"] for a in rules.legal_actions(state, BILL)} == {"sell", "skip_sale"}
    skipped = play(state, BILL, type="skip_sale")
    assert skipped["phase"] == rules.DRAW and skipped["tulips"][BILL]["blue"] == 1


def test_a_seat_without_tulips_skips_the_sale() -> None:
    state = table()
    state["tulips"][CHARLES] = {c: 0 for c in state["colours"]}
    state = finish_turn(sale(state, "yellow", {}, seller_card=data.PASS))
    assert state["current"] == CHARLES and state["phase"] == rules.DRAW
    assert "{seat} has no tulip to sell." in texts(state)


# --- tie-breaks and the priority card --------------------------------------------------------------------


def test_tie_goes_to_the_priority_card_holder_and_the_card_passes_to_their_right() -> None:
    state = table(priority=CHARLES)
    state = sale(state, "purple", {ANN: data.PURCHASE, CHARLES: data.PURCHASE, DAVE: data.PURCHASE})
    assert state["last_sale"]["winner"] == CHARLES
    assert state["tulips"][CHARLES]["purple"] == 2
    assert state["priority"] == BILL  # Charles's right


def test_tie_without_the_priority_holder_goes_anticlockwise_from_it() -> None:
    """Priority with Ann; Charles and Dave tie: anti-clockwise from Ann comes Dave first."""
    state = sale(table(priority=ANN), "purple", {CHARLES: data.PURCHASE, DAVE: data.PURCHASE})
    assert state["last_sale"]["winner"] == DAVE
    assert state["priority"] == ANN  # the holder did not win: the card stays


def test_highest_card_beats_the_priority_card() -> None:
    state = sale(table(priority=ANN), "purple", {ANN: data.PURCHASE, DAVE: data.SPECULATE})
    assert state["last_sale"]["winner"] == DAVE


def test_priority_card_moves_when_the_new_current_player_holds_it() -> None:
    """Phase IV: Bill passes the current player card to Charles, who holds priority: it goes to Bill."""
    state = finish_turn(sale(table(priority=CHARLES), "purple", {}, seller_card=data.PASS))
    assert state["current"] == CHARLES and state["priority"] == BILL


def test_priority_card_stays_when_the_new_current_player_does_not_hold_it() -> None:
    state = finish_turn(sale(table(priority=ANN), "purple", {}, seller_card=data.PASS))
    assert state["current"] == CHARLES and state["priority"] == ANN


# --- illegal action cards (ruling 3) -----------------------------------------------------------------------


def test_ui_offers_only_cards_the_seat_can_fulfil() -> None:
    state = at_250(table())
    state["cash"][ANN] = 300
    state["buyers"][ANN] = ["orange", "yellow", "yellow"]
    state = play(state, BILL, type="sell", colour="orange")
    options = rules.legal_actions(state, ANN)[0]["params"]["card"]["options"]
    assert options == [data.PASS, data.PURCHASE_BY_PROXY, data.PURCHASE]


def test_illegal_card_through_the_api_is_replaced_by_pass_and_the_winner_reassessed() -> None:
    state = at_250(table())
    state["cash"][ANN] = 100  # cannot pay ƒ250
    state["buyers"][CHARLES] = ["orange", "purple", "purple"]
    state = sale(state, "orange", {ANN: data.SPECULATE, CHARLES: data.PURCHASE_BY_PROXY})
    assert state["last_sale"]["cards"][ANN] == data.PASS
    assert state["last_sale"]["winner"] == CHARLES
    assert "{seat} cannot fulfil {card}; it is replaced by Pass." in texts(state)
    assert state["cash"][ANN] == 100 and state["cash"][BILL] == 950


def test_illegal_card_when_all_others_pass_hands_the_choice_to_the_seller() -> None:
    state = at_250(table())
    state["buyers"][DAVE] = ["purple", "purple", "yellow"]
    state = sale(state, "orange", {DAVE: data.SPECULATE_BY_PROXY})  # no orange buyers
    assert state["phase"] == rules.SELLER_CHOICE
    state["buyers"][BILL] = ["yellow"]
    state = play(state, BILL, type="play", card=data.PURCHASE_BY_PROXY)  # the seller has none either
    assert state["last_sale"]["winner"] is None
    assert state["cash"][BILL] == 850 and rules.price(state, "orange") == 50


@pytest.mark.parametrize(
    "action",
    [
        None,
        "sell",
        {},
        {"type": 5},
        {"type": "sell"},
        {"type": "sell", "colour": ["orange"]},
        {"type": "sell", "colour": "green"},
        {"type": "play", "card": 2},
        {"type": "buy", "colour": "orange"},
        {"type": "fly"},
    ],
)
def test_malformed_actions_become_illegal_action(action: Any) -> None:
    with pytest.raises(IllegalAction):
        ENGINE.apply(table(), BILL, action)


@pytest.mark.parametrize("card", ["abc", None, "9", -1, True, 2.5, "", [1]])
def test_malformed_cards_become_illegal_action(card: Any) -> None:
    state = play(table(), BILL, type="sell", colour="orange")
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, ANN, {"type": "play", "card": card})


@pytest.mark.parametrize(
    "number",
    ["²", "٣", "9" * 5000, 10**5000, -(10**5000)],
    ids=["superscript", "arabic-indic", "long-text", "huge", "huge-negative"],
)
def test_malformed_numbers_for_card_and_face_up_index_become_illegal_action(number: Any) -> None:
    """Contract: anything but IllegalAction escaping apply is a bug — a superscript digit passes
    str.isdigit() but not int(), and a 5000-digit number cannot even be put into an error message."""
    choosing = play(table(), BILL, type="sell", colour="orange")
    with pytest.raises(IllegalAction):
        ENGINE.apply(choosing, ANN, {"type": "play", "card": number})
    with pytest.raises(IllegalAction):
        ENGINE.apply(drawing(["yellow"], [], ["purple"]), BILL, {"type": "take_buyer", "index": number})


def test_acting_out_of_turn_or_twice_is_refused() -> None:
    state = play(table(), BILL, type="sell", colour="orange")
    for seat in (BILL, 9, "1", None):
        with pytest.raises(IllegalAction):
            ENGINE.apply(state, seat, {"type": "play", "card": 0})  # type: ignore[arg-type]
    state = play(state, ANN, type="play", card="2")  # form strings are accepted
    with pytest.raises(IllegalAction, match="already chosen"):
        play(state, ANN, type="play", card=0)


def test_apply_never_mutates_its_input() -> None:
    state = table()
    snapshot = base.copy_state(state)
    sale(state, "orange", {ANN: data.PURCHASE})
    assert state == snapshot


# --- II. draw a new buyer card ------------------------------------------------------------------------------


def drawing(deck: list[str], reserve: list[str], face_up: list[str], burst: str = "blue") -> State:
    """Bill's phase II in a 4-player game where ``burst`` has already burst."""
    state = table()
    state["live"].remove(burst)
    state["burst"].append(burst)
    state["deck"], state["reserve"], state["face_up"] = deck, reserve, face_up
    state["buyers"][BILL] = ["purple"]
    state["phase"] = rules.DRAW
    return state


def test_taking_a_face_up_buyer_turns_over_the_top_of_the_deck() -> None:
    state = play(drawing(["yellow", "orange"], [], ["purple", "orange"]), BILL, type="take_buyer", index="1")
    assert state["buyers"][BILL] == ["orange", "purple"]
    assert state["face_up"] == ["purple", "yellow"] and state["deck"] == ["orange"]


def test_drawing_blind_is_told_only_to_the_drawer() -> None:
    state = play(drawing(["yellow", "orange"], [], ["purple"]), BILL, type="draw_buyer")
    private = [e for e in state["events"] if e["to"] is not None]
    assert private == [{"text": "Your new buyer is {colour}.", "params": {"colour": "yellow"}, "to": [BILL]}]


def test_drawn_buyer_of_a_burst_colour_is_replaced_from_the_reserve_repeatedly() -> None:
    """Unusual circumstance: a blue buyer drawn after blue burst; the reserve's blue is skipped too."""
    state = drawing(["blue", "yellow"], ["blue", "orange", "purple"], ["purple"])
    removed = state["buyers_removed"]
    state = play(state, BILL, type="draw_buyer")
    assert state["buyers"][BILL] == ["orange", "purple"]
    assert state["reserve"] == ["purple"] and state["buyers_removed"] == removed + 2


def test_face_up_replacement_of_a_burst_colour_comes_from_the_reserve() -> None:
    state = play(drawing(["blue", "yellow"], ["purple"], ["orange"]), BILL, type="take_buyer", index=0)
    assert state["face_up"] == ["purple"] and state["deck"] == ["yellow"]


def test_exhausted_reserve_means_no_buyer_card_for_the_drawer() -> None:
    state = play(drawing(["blue", "yellow"], ["blue"], ["purple"]), BILL, type="draw_buyer")
    assert state["buyers"][BILL] == ["purple"] and state["reserve"] == []


def test_exhausted_reserve_leaves_one_less_face_up_buyer() -> None:
    state = play(drawing(["blue", "yellow"], [], ["orange", "purple"]), BILL, type="take_buyer", index=0)
    assert state["face_up"] == ["purple"]


def test_exhausted_deck_discards_the_face_up_buyers_and_stops_drawing() -> None:
    state = drawing(["yellow"], [], ["orange", "purple"])
    removed = state["buyers_removed"]
    state = play(state, BILL, type="draw_buyer")
    assert state["face_up"] == [] and state["buyers_removed"] == removed + 2
    state = finish_turn(state)
    state = sale(state, "yellow", {}, seller_card=data.PASS)
    assert state["phase"] == rules.BUY  # Charles's phase II is skipped


# --- III. purchase a tulip ------------------------------------------------------------------------------------


def test_example_of_purchase_a_tulip() -> None:
    """Bill buys a yellow tulip at ƒ250 from the stockpile, pays the bank; yellow rises to ƒ375."""
    state = sale(table(), "orange", {}, seller_card=data.PASS)
    state = play(state, BILL, type="draw_buyer")
    state["price"]["yellow"] = cell_of(250)
    cash, stock = state["cash"][BILL], state["stock"]["yellow"]
    state = play(state, BILL, type="buy", colour="yellow")
    assert state["cash"][BILL] == cash - 250 and state["stock"]["yellow"] == stock - 1
    assert state["tulips"][BILL]["yellow"] == 2 and rules.price(state, "yellow") == 375
    assert state["current"] == CHARLES


def test_purchase_must_differ_from_the_colour_sold_and_be_affordable() -> None:
    state = play(sale(table(), "orange", {}, seller_card=data.PASS), BILL, type="draw_buyer")
    assert "orange" not in rules.purchase_options(state, BILL)
    with pytest.raises(IllegalAction, match="colour you sold"):
        play(state, BILL, type="buy", colour="orange")
    state["price"]["yellow"] = cell_of(2000)
    with pytest.raises(IllegalAction, match="You have only"):
        play(state, BILL, type="buy", colour="yellow")


def test_purchase_to_3000_bursts_without_buyer_discards() -> None:
    state = play(sale(table(), "orange", {}, seller_card=data.PASS), BILL, type="draw_buyer")
    state["price"]["yellow"] = cell_of(2000)
    state["cash"][BILL] = 2000
    state["buyers"] = [["yellow"], ["purple"], ["purple"], ["purple"]]
    state = play(state, BILL, type="buy", colour="yellow")
    assert "yellow" in state["burst"] and "yellow" not in state["live"]
    assert state["cash"][ANN] == 700 + 3000  # her buyer was not discarded: paired at ƒ3000
    assert state["cash"][BILL] == 2250 + 750  # two tulips, no buyer: ƒ2250 with the others, then ƒ750
    assert state["current"] == CHARLES


# --- the bubble bursts ------------------------------------------------------------------------------------------


def test_example_of_the_bubble_bursts() -> None:
    """Ann speculates on Bill's orange tulip at ƒ1000: ƒ4000, crash. Payments 4000, 3000, 1000, 750, 250."""
    state = table(priority=DAVE)
    state["price"]["orange"] = cell_of(1000)
    state["face_up"] = ["purple", "orange"]
    state["reserve"] = ["orange", "yellow"] + state["reserve"]
    holdings = {ANN: (1, 1), BILL: (2, 3), CHARLES: (4, 4), DAVE: (2, 0)}
    for seat, (tulips, buyers) in holdings.items():
        state["tulips"][seat]["orange"] = tulips
        state["buyers"][seat] = ["orange"] * buyers + ["purple"]
    state["cash"][ANN] = 3000
    state = sale(state, "orange", {ANN: data.SPECULATE})
    payments = [
        (e["params"]["seat"]["seat"], e["params"]["amount"])
        for e in state["events"]
        if e["text"].startswith("{seat} sells")
    ]
    assert payments == [
        (ANN, 4000),
        (BILL, 4000),
        (CHARLES, 4000),
        (CHARLES, 3000),
        (CHARLES, 1000),
        (ANN, 750),
        (CHARLES, 750),
        (DAVE, 750),
        (DAVE, 250),
    ]
    steps = [amount for i, (_, amount) in enumerate(payments) if i == 0 or payments[i - 1][1] != amount]
    assert steps == [4000, 3000, 1000, 750, 250]
    assert state["history"]["orange"][-6:] == [4000, 3000, 1000, 750, 250, 150]
    assert state["cash"] == [0 + 4000 + 750, 700 + 3000 + 4000, 700 + 8750, 700 + 1000]
    assert all(hand == ["purple"] for hand in state["buyers"])  # every orange buyer is gone
    assert state["face_up"] == ["purple", "yellow"]  # the orange face-up buyer replaced from the reserve
    assert state["buyers_removed"] == 8 + 1 + 1  # 8 orange buyers in hands, the face-up and a reserve one
    assert "orange" in state["burst"] and state["stock"]["orange"] == 0
    assert all(t["orange"] == 0 for t in state["tulips"])
    assert state["tulips_removed"]["orange"] == 9 + 5 + 1  # sold off, the stockpile and the marker
    assert state["phase"] == rules.DRAW  # the turn goes on


def test_last_colour_bursts_at_once_and_the_game_ends() -> None:
    state = table(players=3, current=BILL, priority=ANN)
    state["live"].remove("purple")
    state["burst"].append("purple")
    state["price"]["yellow"] = cell_of(1000)
    state["price"]["orange"] = cell_of(250)
    state["cash"][ANN] = 3000
    state["buyers"] = [["orange"], ["yellow", "yellow"], ["orange", "yellow"]]
    state = sale(state, "yellow", {ANN: data.SPECULATE})
    assert state["finished"] and state["phase"] == rules.OVER and state["end_reason"] == "last_colour"
    assert state["live"] == [] and state["burst"] == ["purple", "yellow", "orange"]
    # yellow: Bill and Charles lose a buyer, nobody is paired: Ann and Charles at 4000, Ann at 3000.
    # orange bursts from ƒ250 with no buyer discard: Ann and Charles paired at 250, then Bill at 150.
    assert state["history"]["orange"][-2:] == [150, 50]
    assert state["cash"] == [4000 + 3000 + 250, 700 + 3000 + 150, 700 + 4000 + 250]
    result = ENGINE.result(state)
    assert result is not None and result.scores == state["cash"]
    assert result.winners == [s for s in range(3) if state["cash"][s] == max(state["cash"])]
    assert ENGINE.to_act(state) == [] and ENGINE.legal_actions(state, BILL) == []


def test_a_full_round_of_declines_ends_the_game_at_current_values() -> None:
    """Unusual circumstance: nobody sells, nobody buys, the deck is gone: all tulips sell at value."""
    state = table()
    state["deck"], state["face_up"] = [], []
    for seat in range(4):
        state["tulips"][seat] = {c: 0 for c in state["colours"]}
        state["tulips"][seat]["yellow"] = 1
    state["price"]["yellow"] = cell_of(375)
    for turn in range(4):
        assert not state["finished"] and state["quiet_turns"] == turn
        seat = state["current"]
        state = play(play(state, seat, type="skip_sale"), seat, type="skip_purchase")
    assert state["finished"] and state["end_reason"] == "declines"
    assert state["cash"] == [700 + 375] * 4


def test_a_purchase_breaks_the_round_of_declines() -> None:
    state = table()
    state["deck"], state["face_up"] = [], []
    state["tulips"][BILL] = {c: 0 for c in state["colours"]}
    state["tulips"][BILL]["yellow"] = 1
    state = play(play(state, BILL, type="skip_sale"), BILL, type="buy", colour="purple")
    assert state["quiet_turns"] == 0


# --- who sees what -----------------------------------------------------------------------------------------------


def test_view_shows_who_has_chosen_but_not_what() -> None:
    state = play(table(), BILL, type="sell", colour="orange")
    state = play(state, ANN, type="play", card=data.PURCHASE)
    state = play(state, CHARLES, type="play", card=data.PASS)
    for seat in (None, BILL, CHARLES, DAVE):
        seen = ENGINE.view(state, seat)
        assert [s["chosen"] for s in seen["seats"]] == [True, None, True, False]
        assert seen["my_card"] == (data.PASS if seat == CHARLES else None)
        assert seen["last_sale"] is None
    assert ENGINE.view(state, ANN)["my_card"] == data.PURCHASE
    assert ENGINE.view(state, DAVE)["my_cards"][2]["effect"] == {
        "pay": 50,
        "price_after": 75,
        "bursts": False,
        "bank_pays": False,
        "buyers": 0,
    }


def test_view_shows_only_your_own_buyer_colours() -> None:
    state = table()
    seen = ENGINE.view(state, ANN)
    assert sum(seen["my_buyers"].values()) == 3
    assert [s["buyer_count"] for s in seen["seats"]] == [3, 3, 3, 3]
    assert ENGINE.view(state, None)["my_buyers"] is None
    assert "buyers" not in seen and "deck" not in seen and "reserve" not in seen


def test_a_price_shows_where_its_arrows_lead_on_every_space_and_each_view_owns_its_lists() -> None:
    """Where a live price's arrows lead is worked out once a space (it is the same in every view of
    every state): on every current space of the board each view says what the board's arrows say,
    and a reader changing its view's positions changes no other view."""
    state = table()
    for row in range(data.rows()):
        for column in range(data.columns()):
            cell = [row, column]
            if data.kind(cell) != data.CURRENT:
                continue  # a price stands only on a current space while it is live
            state["price"]["orange"] = list(cell)
            seen = next(c for c in ENGINE.view(state, None)["colours"] if c["key"] == "orange")
            jump, (pass_pay, pass_land) = data.speculate(cell), data.all_pass(cell)
            assert seen["price"] == data.value(cell) and seen["purchase_to"] == data.value(
                data.purchase(cell)
            )
            assert seen["purchase_bursts"] == data.is_burst(data.purchase(cell))
            assert seen["speculate_to"] == (None if jump is None else data.value(jump[1]))
            assert (seen["pass_pay"], seen["pass_to"]) == (pass_pay, data.value(pass_land))
            assert seen["danger"] == (
                data.is_burst(data.purchase(cell)) or (jump is not None and data.is_burst(jump[1]))
            )
            assert seen["cell"] == [data.rows() - 1 - row, column] and seen["cheap"] == (row == 0)
            seen["cell"].append(99)
            seen["pass_cell"][0] = -1
            again = next(c for c in ENGINE.view(state, ANN)["colours"] if c["key"] == "orange")
            assert again["cell"] == [data.rows() - 1 - row, column] and again["pass_cell"][0] != -1


def test_burst_by_speculate_by_proxy_makes_everyone_but_the_speculator_discard_a_buyer() -> None:
    """Seed, The Bubble Bursts: a burst due to "3 – Speculate by Proxy" makes all players except the
    one who played it discard one buyer of that colour (ruling 7). Ann's 3 at ƒ1000: the bank pays
    Bill ƒ3000 and orange bursts at ƒ4000; Charles keeps one of his two buyers, Dave had none."""
    state = table(priority=DAVE)
    state["price"]["orange"] = cell_of(1000)
    state["buyers"] = [["orange"] * 3, ["orange", "purple"], ["orange", "orange"], ["purple"]]
    for seat in range(4):
        state["tulips"][seat]["orange"] = 1
    state = sale(state, "orange", {ANN: data.SPECULATE_BY_PROXY})
    lost = [e["params"]["seat"]["seat"] for e in state["events"] if "loses one" in e["text"]]
    assert lost == [BILL, CHARLES]
    # Bill's sold tulip went to the stockpile. Paired at ƒ4000: Ann (her third buyer) and Charles;
    # then unpaired Dave at ƒ3000.
    assert state["cash"] == [700 + 4000, 700 + 3000, 700 + 4000, 700 + 3000]
    assert "orange" in state["burst"]


def test_burst_face_up_buyer_is_discarded_and_replaced_from_the_reserve_without_a_drawn_buyer_line() -> None:
    """Seed, The Bubble Bursts: "If any of the face-up buyers are of the burst colour, then they are
    discarded, and replaced with a card from the reserve deck." Nobody drew that card, so the log
    must not say "The buyer drawn is orange"; a burst-colour card from the reserve is still skipped."""
    state = table(priority=DAVE)
    state["price"]["orange"] = cell_of(1000)
    state["face_up"] = ["purple", "orange"]
    state["reserve"] = ["orange", "yellow"]
    state["buyers"] = [["purple"]] * 4
    state["cash"][ANN] = 3000
    removed = state["buyers_removed"]
    state = sale(state, "orange", {ANN: data.SPECULATE})
    lines = [
        (e["text"], e["params"].get("colour"))
        for e in state["events"]
        if "face-up" in e["text"] or "drawn" in e["text"] or "reserve" in e["text"]
    ]
    assert lines == [
        ("The face-up {colour} buyer is discarded.", "orange"),
        (
            "The buyer drawn is {colour}, a colour that has burst: it is removed and replaced from the reserve.",
            "orange",
        ),
        ("The new face-up buyer is {colour}.", "yellow"),
    ]
    assert state["face_up"] == ["purple", "yellow"] and state["reserve"] == []
    assert state["buyers_removed"] == removed + 2  # the face-up orange and the reserve's orange
