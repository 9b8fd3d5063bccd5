"""Basari rules, one test per rule of the seed (basari.zh-Hant.txt) and ruling (rulings/basari.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.games.basari import ENGINE, rules
from app.games.basari.data import COLOURS, MARKET_CARDS
from app.games.base import IllegalAction
from tests.games.basari.basari_helpers import arrange_displays, gems, play, set_gems, table, texts

# --- components and setup -----------------------------------------------------------------------


def test_market_deck_is_one_data_file_marked_as_our_reconstruction() -> None:
    """Ruling "The market deck": 39 cards, 1-4 workers, 97 workers in all, kept as data."""
    data = json.loads(Path(rules.__file__).with_name("market_deck.json").read_text(encoding="utf-8"))
    assert data["reconstruction"] is True
    assert [card["id"] for card in data["cards"]] == list(range(1, 40))
    assert sum(card["workers"] for card in data["cards"]) == 97
    assert {card["workers"] for card in data["cards"]} == {1, 2, 3, 4}
    assert MARKET_CARDS[9] == {"id": 9, "workers": 1, "points": 2, "gems": gems(red=2, green=1)}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_three_gems_of_each_colour_and_the_rest_in_the_bank(players: int) -> None:
    """Seed 遊戲準備: 12 gems each (3 per colour); 88 gems, 22 per colour."""
    state = table(players)
    assert all(state["gems"][seat] == gems(3, 3, 3, 3) for seat in range(players))
    assert state["bank"] == dict.fromkeys(COLOURS, 22 - 3 * players)
    view = ENGINE.view(state, 0)
    assert view["action_cards"] == (["A", "B", "C", "D"] if players == 5 else ["A", "B", "C"])


def test_every_player_draws_the_top_market_card_in_seat_order() -> None:
    """Ruling 1 (1): each turn begins with every player drawing the top card, from the first player."""
    state = ENGINE.setup(4, {}, 7)
    drawn = [display[0] for display in state["displays"]]
    assert len(state["deck"]) == 39 - 4
    assert sorted(drawn + state["deck"]) == list(range(1, 40))
    again = ENGINE.setup(4, {}, 7)
    assert again == state
    assert all(len(display) == 1 for display in state["displays"])


# --- secret choice and reveal -------------------------------------------------------------------


def test_chosen_cards_stay_secret_until_everyone_has_chosen() -> None:
    """Ruling 1 (2) and 9: others see only whether a seat has chosen, never what."""
    state = ENGINE.apply(table(), 0, {"type": "choose", "card": "B"})
    other = ENGINE.view(state, 1)
    assert other["seats"][0]["has_chosen"] is True
    assert other["seats"][0]["played"] is None
    assert other["my_choice"] is None
    other_choice = ENGINE.apply(table(), 0, {"type": "choose", "card": "C"})
    assert ENGINE.view(other_choice, 1) == other
    assert ENGINE.view(state, 0)["my_choice"] == "B"
    assert ENGINE.to_act(state) == [1, 2]
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, {"type": "choose", "card": "A"})


def test_all_cards_are_revealed_at_once_when_the_last_player_chooses() -> None:
    state = play(table(), ["B", "B"])
    assert "{seat} played card {card}." not in texts(state)
    state = ENGINE.apply(state, 2, {"type": "choose", "card": "A"})  # two on B: the bargain holds the turn
    assert [s["played"] for s in ENGINE.view(state, None)["seats"]] == ["B", "B", "A"]
    assert texts(state).count("{seat} played card {card}.") == 3


def test_actions_resolve_in_order_a_then_b_then_c() -> None:
    """Seed 執行行動: A first, then B, then C, whatever the seat order."""
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    state = play(state, ["C", "B", "A"])
    order = [t for t in texts(state) if "performs" in t]
    assert order[:3] == [
        "{seat} performs card A and adds a market card (workers {workers}).",
        "{seat} performs card B and scores {count} point.",
        "{seat} performs card C and takes {gems} from the bank.",
    ]


# --- A, B, C --------------------------------------------------------------------------------------


def test_action_a_draws_a_card_onto_the_display() -> None:
    """Ruling 3: A adds the top card, whose workers count."""
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    top = state["deck"][0]
    state = play(state, ["A", "B", "C"])
    assert state["displays"][0][:2] == [1, top]


def test_action_b_scores_the_points_of_the_top_card() -> None:
    state = table()
    arrange_displays(state, [[2], [3, 1], [4]])
    state = play(state, ["A", "B", "C"])
    assert state["scores"] == [0, 8, 0]


def test_action_c_takes_the_gems_of_the_top_card_from_the_bank() -> None:
    state = table()
    arrange_displays(state, [[2], [3], [9]])
    state = play(state, ["A", "B", "C"])
    assert state["gems"][2] == gems(5, 3, 4, 3)


def test_a_colour_missing_from_the_bank_is_not_received() -> None:
    """Seed: an exhausted colour stays unavailable until the round is scored (ruling 3)."""
    state = table()
    arrange_displays(state, [[2], [3], [9]])
    state["gems"][0]["red"] += state["bank"]["red"]
    state["bank"]["red"] = 0
    state = play(state, ["A", "B", "C"])
    assert state["gems"][2] == gems(3, 3, 4, 3)
    assert state["bank"]["red"] == 0
    assert any("the bank lacks the rest" in text for text in texts(state))


def test_three_players_on_one_action_nobody_performs_it() -> None:
    """Ruling 2: three or more on one card — nobody performs it, no bargaining."""
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    state = play(state, ["B", "B", "B"])
    assert state["scores"] == [0, 0, 0]
    assert "{count} players chose card {card}: nobody performs it." in texts(state)
    assert state["phase"] == "choose" and state["turn"] == 2


# --- bargaining -----------------------------------------------------------------------------------


def bargain_table(first_gems: dict[str, int], second_gems: dict[str, int]) -> dict:
    """Seats 0 and 1 both play B for card 1 (8 points); seat 2 plays A."""
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    set_gems(state, 0, **first_gems)
    set_gems(state, 1, **second_gems)
    return play(state, ["B", "B", "A"])


@pytest.mark.parametrize(
    ("seat0", "seat1", "extra", "first"),
    [
        (gems(2, 0, 0, 9), gems(1, 9, 9, 9), {}, 0),  # more red
        (gems(1, 1, 0, 0), gems(1, 2, 0, 0), {}, 1),  # red equal: more yellow
        (gems(1, 1, 3, 0), gems(1, 1, 2, 5), {}, 0),  # then green
        (gems(0, 0, 0, 1), gems(0, 0, 0, 2), {}, 1),  # then blue
        (gems(1, 1, 1, 1), gems(1, 1, 1, 1), {"scores": [0, 5, 0]}, 1),  # then points
        (gems(1, 1, 1, 1), gems(1, 1, 1, 1), {"displays": [[4, 31], [2], [3]]}, 0),  # then workers
        (gems(1, 1, 1, 1), gems(1, 1, 1, 1), {}, 0),  # all equal: earlier from the first player
    ],
)
def test_who_offers_first_colours_then_points_then_workers_then_seat(
    seat0: dict[str, int], seat1: dict[str, int], extra: dict, first: int
) -> None:
    """Seed 競價: more red offers first, then yellow, green, blue, points, workers; ruling 4 for the seat."""
    state = table()
    arrange_displays(state, extra.get("displays", [[1], [2], [3]]))
    state["scores"] = extra.get("scores", [0, 0, 0])
    set_gems(state, 0, **seat0)
    set_gems(state, 1, **seat1)
    state = play(state, ["B", "B", "A"])
    assert state["phase"] == "bargain"
    assert ENGINE.to_act(state) == [first]
    assert ENGINE.legal_actions(state, first)[0]["type"] == "offer"
    assert ENGINE.legal_actions(state, 1 - first) == []


def test_an_offer_is_at_least_one_of_your_own_gems() -> None:
    state = bargain_table(gems(2, 0, 0, 0), gems(1, 0, 0, 0))
    with pytest.raises(IllegalAction, match="at least one gem"):
        ENGINE.apply(state, 0, {"type": "offer", "gems": gems()})
    with pytest.raises(IllegalAction, match="hold only"):
        ENGINE.apply(state, 0, {"type": "offer", "gems": gems(blue=1)})
    with pytest.raises(IllegalAction, match="no offer to accept"):
        ENGINE.apply(state, 0, {"type": "accept"})


@pytest.mark.parametrize(
    ("current", "raised", "beats"),
    [
        (gems(red=2), gems(blue=3), True),  # by count: colour does not matter
        (gems(red=1, blue=1), gems(red=1, green=1), True),  # same count, equal red, more green
        (gems(red=1, blue=1), gems(yellow=2), False),  # same count, less red
        (gems(yellow=1, green=1), gems(yellow=2), True),  # equal red, more yellow
        (gems(green=2), gems(green=1, blue=1), False),  # less green
        (gems(green=1, blue=1), gems(green=1, blue=1), False),  # equal is not higher
        (gems(red=2), gems(red=1), False),  # fewer gems never beat
        (gems(blue=2), gems(blue=3), True),  # more of the lowest colour
    ],
)
def test_raise_by_count_or_by_value(current: dict[str, int], raised: dict[str, int], beats: bool) -> None:
    """Seed 提高出價: more gems, or as many gems worth more (red, then yellow, green, blue)."""
    state = bargain_table(gems(3, 3, 3, 3), gems(4, 4, 4, 4))
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": current})
    if beats:
        state = ENGINE.apply(state, 0, {"type": "offer", "gems": raised})
        assert state["bargain"]["offers"][-1] == {"seat": 0, "gems": raised}
    else:
        with pytest.raises(IllegalAction, match="does not beat"):
            ENGINE.apply(state, 0, {"type": "offer", "gems": raised})


def test_accepting_transfers_the_offered_gems_and_the_offerer_performs() -> None:
    """Seed 接受出價: the accepter takes the gems; the payer performs the action."""
    state = bargain_table(gems(2, 2, 2, 2), gems(3, 3, 3, 3))
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(green=1, blue=1)})
    state = ENGINE.apply(state, 0, {"type": "accept"})
    assert state["gems"][0] == gems(2, 2, 3, 3)
    assert state["gems"][1] == gems(3, 3, 2, 2)
    assert state["scores"] == [0, 7, 0]  # seat 1's top card, #2, shows 7 points


def test_a_raiser_may_withdraw_and_recompose_the_earlier_offer() -> None:
    """Seed 注意: a new offer need not contain the earlier one, only beat the other's offer."""
    state = bargain_table(gems(2, 2, 2, 2), gems(3, 3, 3, 3))
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(blue=2)})
    state = ENGINE.apply(state, 0, {"type": "offer", "gems": gems(green=2)})
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(red=1, yellow=1)})
    state = ENGINE.apply(state, 0, {"type": "accept"})
    assert state["gems"][1] == gems(2, 2, 3, 3)
    assert state["gems"][0] == gems(3, 3, 2, 2)
    assert state["scores"] == [0, 7, 0]


def test_raise_is_offered_only_when_a_higher_offer_is_possible() -> None:
    """Ruling 4: the UI offers "raise" only when the seat's gems can beat the offer."""
    state = bargain_table(gems(blue=2), gems(red=3))
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(red=2)})
    assert [t["type"] for t in ENGINE.legal_actions(state, 0)] == ["accept"]
    state = bargain_table(gems(blue=3), gems(red=3))
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(red=2)})
    legal = ENGINE.legal_actions(state, 0)
    assert [t["type"] for t in legal] == ["accept", "offer"]
    assert legal[1]["params"]["gems"] == {"kind": "counts", "max": gems(blue=3), "min_total": 2}
    assert legal[1]["constraint"]


def test_a_bidder_with_no_gems_lets_the_other_perform_without_paying() -> None:
    """Seed: if one bidder has no gems, the other wins the bargain automatically."""
    state = bargain_table(gems(), gems(blue=1))
    assert state["phase"] == "choose"
    assert state["scores"] == [0, 7, 0]
    assert state["gems"][1] == gems(blue=1)


def test_when_neither_bidder_has_gems_the_one_with_priority_performs() -> None:
    """Our reading (rules silent): seat order decides, as for the first offer."""
    state = bargain_table(gems(), gems())
    assert state["scores"] == [8, 0, 0]


def test_forms_may_send_gems_as_dotted_string_fields() -> None:
    state = bargain_table(gems(2, 2, 2, 2), gems(3, 3, 3, 3))
    form = {"type": "offer", "gems.red": "1", "gems.yellow": "", "gems.green": "0", "gems.blue": " 2 "}
    state = ENGINE.apply(state, 1, form)
    assert state["bargain"]["offers"] == [{"seat": 1, "gems": gems(red=1, blue=2)}]


@pytest.mark.parametrize(
    "action",
    [
        None,
        "offer",
        {},
        {"type": 3},
        {"type": "dance"},
        {"type": "offer"},
        {"type": "offer", "gems": "lots"},
        {"type": "offer", "gems": {"purple": 1}},
        {"type": "offer", "gems": {"red": "x"}},
        {"type": "offer", "gems": {"red": -1}},
        {"type": "offer", "gems": {"red": 1.5}},
        {"type": "offer", "gems": {"red": float("inf")}},
        {"type": "offer", "gems": {"red": float("nan")}},
        {"type": "offer", "gems": {"red": "9" * 5000}},
        {"type": "offer", "gems": {"red": {"x": 1}}},
        {"type": "choose", "card": ["A"]},
        {"type": "offer", "gems": {"red": True}},
        {"type": "offer", "gems.red": [1]},
        {"type": "choose", "card": "B"},
        {"type": "take", "colour": "red"},
        {"type": "exchange", "give": "red", "take": {"red": 2}},
        {"type": "continue"},
    ],
)
def test_malformed_or_untimely_actions_are_refused_with_a_readable_message(action: object) -> None:
    state = bargain_table(gems(2, 2, 2, 2), gems(3, 3, 3, 3))
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, 1, action)  # type: ignore[arg-type]
    assert refused.value.message


HUGE = 10**5000  # more digits than Python turns into text by default


@pytest.mark.parametrize(
    "action",
    [
        {"type": "offer", 5: 1},  # keys that are not text (a Python caller, not a form)
        {"type": "offer", None: "1"},
        {"type": "offer", "gems": {5: 1}},
        {"type": "offer", "gems": {HUGE: 1}},
        {"type": "offer", "gems": {"red": HUGE}},
        {"type": "offer", "gems": {"red": 23}},
        {"type": HUGE},
    ],
)
def test_odd_keys_and_huge_counts_are_refused_never_crash(action: dict) -> None:
    """Platform contract (app/games/base.py): a malformed action raises IllegalAction, nothing else."""
    state = bargain_table(gems(2, 2, 2, 2), gems(3, 3, 3, 3))
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, 1, action)
    assert refused.value.message
    str(refused.value)


@pytest.mark.parametrize("take", [{"red": HUGE}, {"red": 1e300}, {HUGE: 1}, {"red": 23, "blue": -21}])
def test_odd_gem_counts_in_the_d_exchange_are_refused_never_crash(take: dict) -> None:
    state = play(five_table(), ["A", "B", "B", "D", "B"])
    action = {"type": "exchange", "give": "blue", "take": take, 7: "x"}  # 7: a key that is not text
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, 3, action)  # type: ignore[arg-type]
    assert refused.value.message


# --- action D with five players (ruling 5) ------------------------------------------------------------


def five_table() -> dict:
    state = table(5)
    arrange_displays(state, [[1], [2], [3], [4], [5]])
    return state


def test_sole_d_returns_one_gem_and_takes_any_two() -> None:
    state = play(five_table(), ["A", "B", "B", "D", "B"])
    assert state["phase"] == "d_exchange" and ENGINE.to_act(state) == [3]
    with pytest.raises(IllegalAction, match="exactly 2"):
        ENGINE.apply(state, 3, {"type": "exchange", "give": "blue", "take": gems(red=1)})
    state = ENGINE.apply(state, 3, {"type": "exchange", "give": "blue", "take": gems(red=1, blue=1)})
    assert state["gems"][3] == gems(4, 3, 3, 3)
    assert state["phase"] == "choose"


def test_sole_d_may_take_back_the_gem_just_returned() -> None:
    state = five_table()
    state["gems"][0]["red"] += state["bank"]["red"]
    state["bank"]["red"] = 0
    state = play(state, ["A", "B", "B", "D", "B"])
    with pytest.raises(IllegalAction, match="bank holds only"):
        ENGINE.apply(state, 3, {"type": "exchange", "give": "blue", "take": gems(red=2)})
    state = ENGINE.apply(state, 3, {"type": "exchange", "give": "red", "take": gems(red=1, yellow=1)})
    assert state["gems"][3] == gems(3, 4, 3, 3)


def test_shared_d_is_never_blocked_each_takes_one_gem_in_priority_order() -> None:
    """Ruling 5: several D choosers each take one gem, in the bidding priority order of ruling 4."""
    state = five_table()
    set_gems(state, 4, red=4, yellow=3, green=3, blue=3)
    set_gems(state, 2, red=3, yellow=4, green=3, blue=3)
    state = play(state, ["A", "D", "D", "B", "D"])
    assert state["phase"] == "d_take"
    assert state["d_queue"] == [4, 2, 1]
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 2, {"type": "take", "colour": "red"})
    state = ENGINE.apply(state, 4, {"type": "take", "colour": "red"})
    state = ENGINE.apply(state, 2, {"type": "take", "colour": "green"})
    state = ENGINE.apply(state, 1, {"type": "take", "colour": "blue"})
    assert state["gems"][4]["red"] == 5 and state["gems"][2]["green"] == 4 and state["gems"][1]["blue"] == 4
    assert state["phase"] == "choose"


def test_d_waits_until_a_b_and_c_are_resolved() -> None:
    state = play(five_table(), ["C", "B", "B", "D", "B"])
    assert state["phase"] == "d_exchange"
    assert state["gems"][0] == gems(3, 3, 3, 4)  # C (card 1: one blue) came first


# --- round end and scoring (ruling 6) -----------------------------------------------------------


def near_round_end() -> dict:
    """Seat 0 has 14 workers (cards 31, 32, 33 and 9 on top), so A ends the round."""
    state = table()
    arrange_displays(state, [[31, 32, 33, 4, 9], [2], [3]])
    return state


def test_the_round_ends_after_the_turn_in_which_someone_reaches_15_workers() -> None:
    state = near_round_end()
    state = play(state, ["A", "B", "C"])
    assert state["phase"] == "round_summary"
    summary = state["round_summaries"][-1]
    assert summary["round"] == 1
    assert summary["rows"][0]["workers"] >= 15
    assert state["scores"][1] >= MARKET_CARDS[2]["points"]  # B of that turn still happened


def test_a_sole_majority_scores_full_points_and_returns_half_rounded_up() -> None:
    """Seed 遊戲結束: most red scores 14 and returns half, rounded up (5 red: 3 go back)."""
    state = near_round_end()
    set_gems(state, 0, red=5, yellow=3, green=3, blue=3)
    state = play(state, ["A", "B", "C"])
    red = state["round_summaries"][-1]["colours"][0]
    assert red == {"colour": "red", "most": 5, "leaders": [0], "points": 14, "returned": 3}
    assert state["gems"][0]["red"] == 2


def test_tied_majorities_split_points_rounded_down_and_each_return_two() -> None:
    """Seed 注意: tied leaders share the points (rounded down) and each return 2 of that colour."""
    state = near_round_end()
    set_gems(state, 0, red=4, yellow=5, green=3, blue=2)
    set_gems(state, 1, red=4, yellow=5, green=3, blue=1)
    set_gems(state, 2, red=1, yellow=2, green=3, blue=2)
    state = play(state, ["A", "B", "C"])  # seat 2's C brings one yellow (card 3)
    colours = {c["colour"]: c for c in state["round_summaries"][-1]["colours"]}
    assert colours["red"]["leaders"] == [0, 1] and colours["red"]["points"] == 7
    assert colours["green"]["leaders"] == [0, 1, 2] and colours["green"]["points"] == 3
    assert colours["blue"]["leaders"] == [0, 2] and colours["blue"]["points"] == 4
    assert colours["yellow"]["points"] == 6
    assert all(c["returned"] == 2 for c in colours.values())
    assert state["gems"][2] == gems(1, 3, 1, 0)
    rows = state["round_summaries"][-1]["rows"]
    assert rows[2]["colour_points"] == gems(green=3, blue=4)


def test_a_colour_nobody_holds_scores_for_nobody() -> None:
    state = near_round_end()
    for seat in range(3):
        set_gems(state, seat, red=0, yellow=1, green=1, blue=1)
    state = play(state, ["A", "B", "C"])
    red = state["round_summaries"][-1]["colours"][0]
    assert red["leaders"] == [] and red["points"] == 0


def test_every_player_with_15_workers_scores_the_12_point_bonus() -> None:
    """Seed: each player with 15+ workers scores 12; the bonus is not shared."""
    state = table()
    arrange_displays(state, [[31, 32, 33, 34], [35, 36, 37, 5, 6], [38, 39, 3]])
    state = play(state, ["A", "A", "A"])
    rows = state["round_summaries"][-1]["rows"]
    assert [row["workers"] for row in rows] == [16, 14, 9]
    assert [row["worker_bonus"] for row in rows] == [12, 0, 0]
    state = table()
    arrange_displays(state, [[31, 32, 33, 34], [35, 36, 37, 38], [2]])
    state = play(state, ["A", "A", "A"])
    rows = state["round_summaries"][-1]["rows"]
    assert [row["worker_bonus"] for row in rows] == [12, 12, 0]


def test_the_round_summary_waits_for_every_player_then_the_cards_are_reshuffled() -> None:
    """Ruling 6 and 10: the scoring table is shown; then all market cards form a new deck."""
    state = near_round_end()
    state = play(state, ["A", "B", "C"])
    kept = [dict(g) for g in state["gems"]]
    assert ENGINE.to_act(state) == [0, 1, 2]
    state = ENGINE.apply(state, 1, {"type": "continue"})
    assert ENGINE.to_act(state) == [0, 2] and state["phase"] == "round_summary"
    state = ENGINE.apply(state, 0, {"type": "continue"})
    state = ENGINE.apply(state, 2, {"type": "continue"})
    assert state["round"] == 2 and state["turn"] == 1 and state["phase"] == "choose"
    assert all(len(display) == 1 for display in state["displays"])
    assert len(state["deck"]) == 36
    assert state["gems"] == kept
    assert ENGINE.view(state, 0)["last_summary"]["round"] == 1


def test_deck_guard_an_empty_deck_ends_the_round_after_that_turn() -> None:
    """Ruling 7: a card that must come from an empty deck is not drawn; the round ends after the turn."""
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    state["deck"] = [10]
    state = play(state, ["A", "B", "C"])  # seat 0 takes the last card; the next turn draws none
    assert state["displays"] == [[1, 10], [2], [3]]
    assert state["phase"] == "choose" and state["deck_ran_out"] is True
    state = play(state, ["B", "B", "B"])
    assert state["phase"] == "round_summary"


def test_deck_guard_when_the_turn_draw_empties_the_deck() -> None:
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    state["deck"] = [10, 11]
    state = play(state, ["B", "B", "B"])
    assert state["deck_ran_out"] is True
    assert state["displays"] == [[1, 10], [2, 11], [3]]  # seat 2 found the deck empty
    state = play(state, ["C", "C", "C"])
    assert state["phase"] == "round_summary"


def test_after_the_third_round_the_highest_total_wins_and_ties_share() -> None:
    """Ruling 8."""
    state = near_round_end()
    state["round"] = 3
    state["scores"] = [10, 40, 40]
    state = play(state, ["A", "B", "C"])
    assert state["finished"] is True and state["phase"] == "finished"
    result = ENGINE.result(state)
    assert result is not None
    best = max(state["scores"])
    assert result.winners == [s for s in range(3) if state["scores"][s] == best]
    assert ENGINE.to_act(state) == [] and ENGINE.legal_actions(state, 0) == []
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, {"type": "continue"})


def test_players_with_the_same_highest_total_share_the_win() -> None:
    state = table()
    arrange_displays(state, [[31, 32, 33, 34], [35, 36, 37, 38], [2]])
    for seat in range(3):
        set_gems(state, seat, red=1, yellow=1, green=1, blue=1)
    state["round"] = 3
    state = play(state, ["B", "B", "B"])
    result = ENGINE.result(state)
    assert result is not None
    assert result.winners == [0, 1]  # three-way ties: 4 + 4 + 3 + 2 each; seats 0 and 1 add 12 for workers
