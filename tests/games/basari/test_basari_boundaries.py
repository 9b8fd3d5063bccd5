"""Basari's numbers, each tested on both sides: the value the rule names and one past it (seed
basari.zh-Hant.txt, rulings/basari.md). Tables are arranged card by card and gem by gem; the rule
examples are in ``test_basari_rules.py``."""

from __future__ import annotations

import pytest

from app.games.basari import ENGINE, rules
from app.games.basari.data import COLOURS, GEMS_PER_COLOUR
from app.games.base import IllegalAction, State
from tests.games.basari.basari_helpers import arrange_displays, gems, play, set_gems, table

# Market cards by workers (market_deck.json): 31-34 show 4, 10 and 11 show 2, 1-3 show 1.
FIFTEEN_WORKERS = [31, 32, 33, 10, 1]  # 4 + 4 + 4 + 2 + 1
FOURTEEN_WORKERS = [34, 35, 36, 11]  # 4 + 4 + 4 + 2


def nobody_performs(state: State) -> State:
    """All three seats play B: nobody performs it (ruling 2), so the turn ends with no card drawn."""
    return play(state, ["B", "B", "B"])


def scored_round(**seat_gems: dict[str, int]) -> dict:
    """A turn that ends the round (seat 0 has 15 workers), with each seat's gems set first; the
    round's scoring summary."""
    state = table()
    arrange_displays(state, [FIFTEEN_WORKERS, [2], [3]])
    for seat in range(3):
        set_gems(state, seat, **seat_gems.get(f"s{seat}", gems()))
    state = nobody_performs(state)
    assert state["phase"] == "round_summary"
    summary: dict = state["round_summaries"][-1]
    summary["gems_after"] = [dict(held) for held in state["gems"]]
    return summary


# --- 15 workers: the end of a round and its bonus (遊戲結束, ruling 6) ------------------------------------


def test_a_round_ends_when_a_player_has_exactly_15_workers() -> None:
    """遊戲結束: 若有玩家或多位玩家擁有 15 名以上的工人，本局結束 — 15 itself ends the round."""
    state = table()
    arrange_displays(state, [FIFTEEN_WORKERS, FOURTEEN_WORKERS, [3]])
    state = nobody_performs(state)
    assert state["phase"] == "round_summary" and len(state["round_summaries"]) == 1


def test_a_round_goes_on_while_the_most_workers_anyone_has_is_14() -> None:
    """遊戲結束: 14 workers are one short: the next turn begins (everyone draws again)."""
    state = table()
    arrange_displays(state, [FOURTEEN_WORKERS, [2], [3]])
    state = nobody_performs(state)
    assert state["phase"] == "choose" and state["turn"] == 2
    assert state["round_summaries"] == []


def test_the_12_point_worker_bonus_starts_at_exactly_15_workers() -> None:
    """遊戲結束: 每位擁有 15 名以上工人的玩家，都獲得 12 分 — 15 scores the bonus, 14 does not."""
    state = table()
    arrange_displays(state, [FIFTEEN_WORKERS, FOURTEEN_WORKERS, [3]])
    rows = nobody_performs(state)["round_summaries"][-1]["rows"]
    assert [row["workers"] for row in rows[:2]] == [15, 14]
    assert [row["worker_bonus"] for row in rows] == [12, 0, 0]


# --- colour majorities (遊戲結束, ruling 6) ---------------------------------------------------------------


def test_a_single_gem_is_enough_to_lead_a_colour() -> None:
    """Ruling 6: a leader needs at least one gem of that colour — one red against none scores 14 and
    returns half of 1 rounded up, the gem itself (nobody holding red: test_a_colour_nobody_holds...)."""
    summary = scored_round(s0=gems(red=1), s1=gems(blue=1), s2=gems(blue=1))
    red = summary["colours"][0]
    assert red == {"colour": "red", "most": 1, "leaders": [0], "points": 14, "returned": 1}
    assert summary["gems_after"][0]["red"] == 0


@pytest.mark.parametrize(("held", "returned"), [(1, 1), (2, 1), (3, 2), (4, 2)])
def test_a_sole_leader_returns_half_rounded_up(held: int, returned: int) -> None:
    """遊戲結束: 他將半數的紅寶石 (無條件進位) 放回銀行 — odd counts round up, even ones halve exactly."""
    summary = scored_round(s0=gems(red=held), s1=gems(red=held - 1))
    assert summary["colours"][0]["returned"] == returned
    assert summary["gems_after"][0]["red"] == held - returned


@pytest.mark.parametrize(("held", "returned"), [(1, 1), (2, 2), (3, 2)])
def test_tied_leaders_each_return_two_or_all_they_have(held: int, returned: int) -> None:
    """注意: 這些玩家平分該色寶石對應的分數後，必須將各自的兩顆該色寶石放回銀行; ruling 6: "or all they have,
    if fewer" — tied at 1 each returns the one, at 2 both, at 3 two of three."""
    summary = scored_round(s0=gems(yellow=held), s1=gems(yellow=held))
    yellow = summary["colours"][1]
    assert yellow["leaders"] == [0, 1] and yellow["points"] == 6 and yellow["returned"] == returned
    assert [held_after["yellow"] for held_after in summary["gems_after"][:2]] == [held - returned] * 2


def test_three_tied_leaders_split_the_points_rounded_down() -> None:
    """注意: 平分 (無條件捨去) — 14 red points among three leaders is 4 each (not 5), 8 blue among two is 4."""
    summary = scored_round(s0=gems(red=2, blue=1), s1=gems(red=2, blue=1), s2=gems(red=2))
    red, blue = summary["colours"][0], summary["colours"][3]
    assert (red["leaders"], red["points"]) == ([0, 1, 2], 4)
    assert (blue["leaders"], blue["points"]) == ([0, 1], 4)


# --- three rounds (遊戲結束, ruling 8) -------------------------------------------------------------------


@pytest.mark.parametrize(("round_", "finished"), [(2, False), (3, True)])
def test_the_game_ends_after_the_third_round_not_the_second(round_: int, finished: bool) -> None:
    """遊戲結束: 第三局結束時，遊戲結束 — the second round's end shows the summary and play goes on."""
    state = table()
    arrange_displays(state, [FIFTEEN_WORKERS, [2], [3]])
    state["round"] = round_
    state = nobody_performs(state)
    assert state["finished"] is finished
    assert state["phase"] == ("finished" if finished else "round_summary")
    assert (ENGINE.result(state) is not None) is finished


# --- the bank (遊戲進行: 當某種顏色的寶石耗盡時) ------------------------------------------------------------------


@pytest.mark.parametrize(("in_bank", "received"), [(2, 2), (1, 1)])
def test_action_c_takes_what_the_bank_holds_of_a_colour(in_bank: int, received: int) -> None:
    """遊戲進行 C and ruling 3: card 9 shows 2 red — a bank with exactly 2 red gives both (and is then
    out of red); with 1 red, one arrives and the rest is not received."""
    state = table()
    arrange_displays(state, [[2], [3], [9]])
    state["gems"][0]["red"] += state["bank"]["red"] - in_bank
    state["bank"]["red"] = in_bank
    state = play(state, ["A", "B", "C"])
    assert state["gems"][2]["red"] == 3 + received
    assert state["bank"]["red"] == 0


def test_sole_d_with_one_gem_in_the_bank_still_takes_two() -> None:
    """5 人 D and ruling 5: return one gem, then take two — the returned gem is back in the bank first,
    so a bank of exactly one gem still makes two (with none, one: test_basari_forms)."""
    state = table(5)
    arrange_displays(state, [[1], [2], [3], [4], [5]])
    for colour in COLOURS:  # seat 0 holds the whole bank but one yellow gem
        state["gems"][0][colour] += state["bank"][colour]
        state["bank"][colour] = 0
    state["gems"][0]["yellow"] -= 1
    state["bank"]["yellow"] = 1
    state = play(state, ["A", "B", "B", "D", "B"])
    assert ENGINE.view(state, 3)["d_exchange_size"] == 2
    state = ENGINE.apply(state, 3, {"type": "exchange", "give": "blue", "take": gems(yellow=1, blue=1)})
    assert state["gems"][3] == gems(3, 4, 3, 3)
    assert sum(state["bank"].values()) == 0


# --- action D: five players only (遊戲進行(5人)) -----------------------------------------------------------------


@pytest.mark.parametrize(("players", "has_d"), [(4, False), (5, True)])
def test_action_card_d_is_dealt_with_five_players_not_four(players: int, has_d: bool) -> None:
    """遊戲進行(5人): 每位玩家拿取四張行動牌 (ABCD 各一張) — four players hold A, B and C only."""
    state = table(players)
    options = ENGINE.legal_actions(state, 0)[0]["params"]["card"]["options"]
    assert ("D" in options) is has_d
    if has_d:
        assert ENGINE.apply(state, 0, {"type": "choose", "card": "D"})["chosen"][0] == "D"
    else:
        with pytest.raises(IllegalAction, match="A, B, C"):
            ENGINE.apply(state, 0, {"type": "choose", "card": "D"})


# --- the number of gems (遊戲盒內容: 88 顆寶石，四色各 22 顆) ----------------------------------------------------------


def test_a_gem_count_may_be_22_but_not_23() -> None:
    """遊戲盒內容: 22 gems of each colour — 22 is a count a form may send; 23 is refused plainly."""
    assert rules.parse_count(GEMS_PER_COLOUR) == 22
    with pytest.raises(IllegalAction, match="only 22 gems"):
        rules.parse_count(GEMS_PER_COLOUR + 1)
