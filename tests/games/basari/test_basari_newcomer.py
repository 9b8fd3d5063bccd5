"""What the newcomer trial (issue 46) misread at the Basari table: the heading over the bank named a
turn of a round already scored."""

from __future__ import annotations

import re

import pytest

from app.games.basari import ENGINE
from app.games.base import State
from app.web.render import render_seat_html
from tests.games.basari.basari_helpers import arrange_displays, play, table

NAMES = ("Ann", "Bob", "Cleo")


def bank_heading(state: State, seat: int | None, locale: str = "en") -> str:
    html = render_seat_html(ENGINE, state, seat, locale, names=lambda n: NAMES[n])
    bank = re.search(r'<section id="r-g-bank"[^>]*>(.*?)</section>', html, re.S)
    assert bank, "the bank region"
    heading = re.search(r"<h2[^>]*>(.*?)</h2>", bank.group(1), re.S)
    assert heading, "the bank's heading"
    return " ".join(heading.group(1).split())


def scored_first_round() -> State:
    """Round 1 ends after its first turn (Ann starts it with 15 workers) and its summary is shown."""
    state = table()
    arrange_displays(state, [[31, 32, 33, 4, 9], [2], [3]])
    return play(state, ["A", "B", "C"])


def test_while_a_turn_is_played_the_heading_names_the_round_and_the_turn() -> None:
    assert bank_heading(table(), 0) == "Round 1 of 3, turn 1"


@pytest.mark.parametrize("seat", [0, 2, None])
def test_once_a_round_is_scored_the_heading_says_so_not_a_turn_still_under_way(seat: int | None) -> None:
    """The trial read "Round 1 of 3, turn 1" above round 1's scoring table, and took it for a round
    that had not ended."""
    state = scored_first_round()
    assert state["phase"] == "round_summary"
    assert bank_heading(state, seat) == "Round 1 of 3 scored after 1 turn"
    state = ENGINE.apply(state, 2, {"type": "continue"})  # Cleo has read it; Ann and Bob have not
    assert bank_heading(state, seat) == "Round 1 of 3 scored after 1 turn"


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("zh_Hant", "第 1 局（共 3 局）已計分，共進行 1 輪"),
        ("zh_Hans", "第 1 局（共 3 局）已计分，共进行 1 轮"),
    ],
)
def test_the_scored_rounds_heading_reads_in_chinese(locale: str, said: str) -> None:
    assert bank_heading(scored_first_round(), 0, locale) == said


def test_the_finished_game_names_its_last_round_as_scored() -> None:
    state = scored_first_round()
    for _ in range(2):
        for seat in range(3):
            state = ENGINE.apply(state, seat, {"type": "continue"})
        arrange_displays(state, [[31, 32, 33, 4, 9], [2], [3]])
        state = play(state, ["A", "B", "C"])
    assert state["finished"]
    assert bank_heading(state, 1) == "Round 3 of 3 scored after 1 turn"
