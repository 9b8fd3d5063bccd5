"""Q.E. final scoring: the rulebook's worked example and the corrected tables (rulings/qe.md)."""

from __future__ import annotations

from collections import Counter

from app.games.qe import data, scoring
from app.games.qe.data import (
    AGRICULTURE,
    CHINA,
    EU,
    FINANCIAL,
    GOVERNMENT,
    HOUSING,
    JAPAN,
    MANUFACTURING,
    UK,
    USA,
    tile_id,
)


def test_worked_example_scores_45_with_corrected_manufacturing_line() -> None:
    """Rulebook 計分範例, corrected: 13 + 6 + 3 + (6 + 3) + 8 = 39, +6 lowest spend = 45.

    USA board, Financial token; tiles worth 1+1+2+1+4+4: two USA tiles, two Financial (three with
    the token), two Manufacturing, one Agriculture and one Housing; a zero bid in each of 3 rounds.
    """
    tiles = [
        tile_id(USA, AGRICULTURE),  # 4
        tile_id(USA, HOUSING),  # 1
        tile_id(JAPAN, FINANCIAL),  # 1
        tile_id(CHINA, FINANCIAL),  # 4
        tile_id(CHINA, MANUFACTURING),  # 1
        tile_id(JAPAN, MANUFACTURING),  # 2
    ]
    sheet = scoring.score_sheet(4, USA, FINANCIAL, tiles, zero_rounds=3)
    assert sheet == {
        "companies": 13,
        "zero_bids": 6,
        "nationalization": 3,
        "monopolization": 6 + 3,
        "diversification": 8,
        "subtotal": 39,
    }
    standings = scoring.final_standings(4, [39, 30, 30, 30], [50, 60, 70, 80])
    assert standings["totals"][0] == 45
    assert standings["bonuses"] == [6, 0, 0, 0]


def test_diversification_five_players_two_sets_of_three_beat_a_greedy_set_of_four() -> None:
    """Ruling 8: counts 2/2/1/1 score 16 (8 + 8), not 12 (a set of four and a useless pair)."""
    counts = Counter({AGRICULTURE: 2, HOUSING: 2, FINANCIAL: 1, GOVERNMENT: 1})
    assert scoring.diversification(5, counts) == 16


def test_diversification_five_different_industries_score_17_with_five_players() -> None:
    counts = Counter({i: 1 for i in data.INDUSTRIES})
    assert scoring.diversification(5, counts) == 17


def test_diversification_three_four_players_counts_sets_several_times() -> None:
    """多種組合可以計分多次: 2/2/2/2 is two sets of four, 8 + 8."""
    counts = Counter({AGRICULTURE: 2, HOUSING: 2, FINANCIAL: 2, MANUFACTURING: 2})
    assert scoring.diversification(4, counts) == 16
    assert scoring.diversification(4, Counter({AGRICULTURE: 3, HOUSING: 1})) == 0


def test_nationalization_counts_own_country_tiles_not_the_token() -> None:
    all_usa = [tile_id(USA, i) for i in (AGRICULTURE, HOUSING, FINANCIAL, MANUFACTURING)]
    assert scoring.nationalization(4, USA, all_usa) == 10
    assert scoring.nationalization(3, EU, all_usa) == 0
    assert scoring.nationalization(5, UK, [tile_id(UK, AGRICULTURE)]) == 3
    uk = [tile_id(UK, i) for i in (AGRICULTURE, FINANCIAL, GOVERNMENT)]
    assert scoring.nationalization(5, UK, uk) == 10


def test_monopolization_counts_the_token_and_caps_at_four_or_more() -> None:
    """5-player line corrected to 2→6, 3→10, 4→16; with the token five of a kind score as four."""
    assert scoring.monopolization(4, Counter({FINANCIAL: 5})) == 10
    assert scoring.monopolization(5, Counter({FINANCIAL: 2, HOUSING: 3, AGRICULTURE: 4})) == 6 + 10 + 16
    assert scoring.monopolization(4, Counter({FINANCIAL: 1})) == 0
    tiles = [tile_id(USA, FINANCIAL)]
    assert scoring.score_sheet(4, EU, FINANCIAL, tiles, 0)["monopolization"] == 3


def test_highest_spender_is_eliminated_even_with_the_best_score() -> None:
    standings = scoring.final_standings(3, [50, 20, 10], [100, 40, 30])
    assert standings["eliminated"] == [True, False, False]
    assert standings["winners"] == [1]


def test_all_tied_highest_spenders_are_eliminated() -> None:
    standings = scoring.final_standings(4, [50, 49, 10, 12], [100, 100, 30, 40])
    assert standings["eliminated"] == [True, True, False, False]
    assert standings["winners"] == [2]  # 10 + 6 for the lowest spend beats 12


def test_everyone_tied_for_highest_spend_means_nobody_is_eliminated() -> None:
    """Ruling 8; and everyone is then also tied for the lowest spend, so all get the bonus."""
    standings = scoring.final_standings(5, [10, 30, 20, 5, 1], [7, 7, 7, 7, 7])
    assert standings["eliminated"] == [False] * 5
    assert standings["bonuses"] == [7] * 5
    assert standings["winners"] == [1]


def test_lowest_spend_bonus_goes_to_every_tied_lowest_spender() -> None:
    standings = scoring.final_standings(4, [10, 10, 10, 10], [5, 5, 9, 12])
    assert standings["bonuses"] == [6, 6, 0, 0]


def test_score_tie_goes_to_the_lower_spender() -> None:
    """平手判定: among tied players, the one who spent least wins."""
    standings = scoring.final_standings(4, [30, 30, 20, 10], [50, 40, 10, 90])
    assert standings["totals"][:2] == [30, 30]
    assert standings["winners"] == [1]


def test_score_and_spend_tie_is_a_shared_win() -> None:
    standings = scoring.final_standings(3, [30, 30, 20], [40, 40, 90])
    assert standings["winners"] == [0, 1]


def test_big_spends_compare_exactly() -> None:
    big = 10**25
    standings = scoring.final_standings(3, [1, 1, 1], [big, big + 1, big])
    assert standings["eliminated"] == [False, True, False]
    assert standings["winners"] == [0, 2]
