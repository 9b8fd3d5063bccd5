"""The Basari table's words and endings (issue 10): the status names each decision and its state for
the seat to act, for the seats that wait and for spectators; counts take plural forms; the finished
table tells who won, by how much, what decided it and where each player's points came from; the new
texts never name another seat's unrevealed action card."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from app.games import base
from app.games.basari import ENGINE
from app.games.base import State
from app.web.render import Table, environment, render_seat_html, seat_context
from tests.games.basari.basari_helpers import arrange_displays, gems, play, set_gems, table

NAMES = ["Ann", "Bob", "Cleo", "Dan", "Eve"]


def prompt(state: State, seat: int | None, locale: str = "en") -> str:
    """The status sentence (games/basari/prompt.html) as the platform's status region includes it."""
    room = Table(
        code="t",
        game="basari",
        status="playing",
        players=[
            {
                "seat": n,
                "name": NAMES[n],
                "is_bot": False,
                "connected": True,
                "is_you": n == seat,
                "is_host": n == 0,
                "bot_controlled": False,
            }
            for n in range(state["players"])
        ],
        to_act=ENGINE.to_act(state),
        result=None,
        next_code=None,
        capacity=state["players"],
    )
    context = seat_context(ENGINE, {**state, "events": []}, seat, room, locale)
    html = environment(locale, "basari").get_template("games/basari/prompt.html").render(context.values)
    return " ".join(html.split())


def text(html: str) -> str:
    """The words of some HTML, one space apart (none before punctuation)."""
    words = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    return re.sub(r" ([.,:;)])", r"\1", words)


def bargain_table() -> State:
    """Ann and Bob both chose B; Bob (more red) offers first."""
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    set_gems(state, 0, red=2, blue=1)
    set_gems(state, 1, red=3, yellow=1)
    return play(state, ["B", "B", "A"])


def test_choosing_names_the_secret_choice_and_how_many_have_chosen() -> None:
    state = table()
    assert text(prompt(state, 0)) == "Choose an action card in secret: 0 of 3 players have chosen."
    assert "<strong>Choose an action card</strong>" in prompt(state, 0)
    state = ENGINE.apply(state, 1, {"type": "choose", "card": "C"})
    assert text(prompt(state, 0)) == "Choose an action card in secret: 1 of 3 players has chosen."
    assert prompt(state, 1) == "You chose card C; waiting for Ann, Cleo to choose an action card."
    assert prompt(state, None) == "Waiting for Ann, Cleo to choose an action card in secret."


def test_bargaining_names_the_offer_to_answer_and_whom_the_table_waits_for() -> None:
    state = bargain_table()
    assert text(prompt(state, 1)) == "Make the first offer to Ann for B: at least one gem."
    assert prompt(state, 0) == "Bargaining for card B: waiting for Bob to make the first offer."
    assert prompt(state, 2) == prompt(state, None) == "Bob is making the first offer to Ann for B."
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(yellow=1)})
    assert text(prompt(state, 0)) == "Bargaining for card B: accept Y yellow 1 from Bob or raise the offer."
    assert text(prompt(state, 1)) == (
        "Bargaining for card B: waiting for Ann to accept your offer of Y yellow 1 or raise it."
    )
    assert text(prompt(state, None)) == (
        "Ann is deciding whether to accept Bob's offer of Y yellow 1 for B or raise it."
    )
    state = ENGINE.apply(state, 0, {"type": "offer", "gems": gems(red=2, blue=1)})
    assert (
        text(prompt(state, 1))
        == "Bargaining for card B: accept R red 2 B blue 1 from Ann or raise the offer."
    )
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(red=3, yellow=1)})
    assert text(prompt(state, 0)) == (
        "Bargaining for card B: accept R red 3 Y yellow 1 from Bob; your gems cannot beat it."
    )


def test_action_d_names_the_exchange_or_the_take_and_who_takes_next() -> None:
    rng = random.Random(1)
    state = play(table(5, 3), ["D", "A", "B", "D", "D"])
    while state["phase"] != "d_take":
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    first, *rest = state["d_queue"]
    assert text(prompt(state, first)) == (
        f"Action D: take one gem from the bank; then {', '.join(NAMES[s] for s in rest)}."
    )
    assert prompt(state, None) == f"{NAMES[first]} is taking one gem from the bank (action D)."
    state = play(table(5, 3), ["A", "B", "C", "C", "D"])
    while state["phase"] != "d_exchange":
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert text(prompt(state, 4)) == "Action D: return one gem and take 2 from the bank."
    assert prompt(state, 0) == "Eve is exchanging gems with the bank (action D)."
    set_gems(state, 4)
    state["bank"] = {"red": 1, "yellow": 0, "green": 0, "blue": 0}
    assert text(prompt(state, 4)) == "Action D: take 1 gem from the bank (you have none to return)."


def test_the_round_summary_asks_to_continue_and_names_who_has_not() -> None:
    state = table()
    arrange_displays(state, [[31, 32, 33, 4, 9], [2], [3]])
    state = play(state, ["A", "B", "C"])
    assert text(prompt(state, 2)) == "Round 1 is scored: read the table, then continue to round 2."
    state = ENGINE.apply(state, 2, {"type": "continue"})
    assert prompt(state, 2) == "Round 1 is scored; waiting for Ann, Bob to continue to round 2."


@pytest.mark.parametrize("locale", ["zh_Hant", "zh_Hans"])
def test_status_texts_are_chinese_with_full_width_punctuation_and_chinese_gem_letters(locale: str) -> None:
    state = bargain_table()
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(yellow=1)})
    said = text(prompt(state, 0, locale))
    assert re.search(r"[\u4e00-\u9fff]", said) and ":" not in said and ";" not in said
    assert "黃" in said if locale == "zh_Hant" else "黄" in said
    assert " Y " not in f" {said} "


def test_counts_take_their_plural_forms() -> None:
    state = table()
    arrange_displays(state, [[1], [2], [3]])
    state["scores"] = [1, 2, 0]
    html = text(render_seat_html(ENGINE, state, 0))
    assert "1 point " in html and "2 points" in html and "0 points" in html
    assert "1 points" not in html
    state = bargain_table()
    state = ENGINE.apply(state, 1, {"type": "offer", "gems": gems(yellow=1)})
    assert "(1 gem)" in text(render_seat_html(ENGINE, state, 0)) and "(1 gems)" not in text(
        render_seat_html(ENGINE, state, 0)
    )


def finished_game(players: int, seed: int) -> State:
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    while not state["finished"]:
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, base.random_bot_action(ENGINE, state, seat, rng))
    return state


@pytest.mark.parametrize(("players", "seed"), [(3, 2), (4, 7), (5, 11)])
def test_the_final_table_says_who_won_by_how_much_and_splits_every_score(players: int, seed: int) -> None:
    state = finished_game(players, seed)
    final: dict[str, Any] = ENGINE.view(state, None)["final"]
    for part in final["parts"]:
        assert part["actions"] >= 0
        assert part["actions"] + sum(part["colours"].values()) + part["workers"] == part["total"]
        assert part["total"] == state["scores"][part["seat"]]
    ranked = sorted(state["scores"], reverse=True)
    assert final["margin"] == ranked[0] - ranked[1]
    html = text(render_seat_html(ENGINE, state, 1, names=lambda n: NAMES[n]))
    winner, runner_up = NAMES[final["winner"]], NAMES[final["runner_up"]]
    if final["margin"]:
        unit = "point" if final["margin"] == 1 else "points"
        assert f"{winner} wins by {final['margin']} {unit} over {runner_up}." in html
        assert "Decided by " in html
    assert "Where the points came from" in html
    for part in final["parts"]:
        row = f"{NAMES[part['seat']]} {part['actions']} " + " ".join(
            str(part["colours"][c]) for c in ("red", "yellow", "green", "blue")
        )
        assert f"{row} {part['workers']} {part['total']}" in html


def test_a_shared_win_is_told_as_one() -> None:
    state = finished_game(3, 2)
    state["scores"] = [40, 40, 12]
    html = text(render_seat_html(ENGINE, state, None))
    assert "Player 1, Player 2 share the win with 40 points." in html
    assert "Decided by" not in html


def test_the_decisive_part_is_where_the_winner_gained_most_over_the_runner_up() -> None:
    state = finished_game(3, 2)
    final = ENGINE.view(state, None)["final"]
    winner, runner = final["parts"][final["winner"]], final["parts"][final["runner_up"]]

    def value(parts: dict[str, Any], part: str) -> int:
        return int(
            parts["colours"].get(part, parts.get(part, 0)) if part in parts["colours"] else parts[part]
        )

    gains = {
        p: value(winner, p) - value(runner, p)
        for p in ("actions", "red", "yellow", "green", "blue", "workers")
    }
    best = final["decisive"]["part"]
    assert gains[best] == max(gains.values())
    assert final["decisive"]["winner"] == value(winner, best)


@pytest.mark.parametrize("players", [3, 5])
def test_the_status_and_danger_cues_never_name_another_seats_chosen_card(players: int) -> None:
    """Ruling 9 for the new texts: whatever card a seat chose, the others' status reads the same."""
    rng = random.Random(players)
    state = ENGINE.setup(players, {}, 60 + players)
    checked = 0
    while not state["finished"] and checked < 12:
        waiting = ENGINE.to_act(state)
        seat = rng.choice(waiting)
        if state["phase"] == "choose" and len(waiting) > 1:
            after = [ENGINE.apply(state, seat, {"type": "choose", "card": card}) for card in ("A", "B", "C")]
            for observer in [None, *(s for s in range(players) if s != seat)]:
                assert len({prompt(s, observer) for s in after}) == 1
                assert len({prompt(s, observer, "zh_Hans") for s in after}) == 1
            checked += 1
        state = ENGINE.apply(state, seat, base.random_bot_action(ENGINE, state, seat, rng))
    assert checked >= 5


def test_a_danger_cue_warns_before_the_last_scoring_of_a_round_and_of_the_game() -> None:
    state = table()
    arrange_displays(state, [[31, 32, 33, 4], [2], [3]])  # Ann: 13 workers, one A from 15
    html = render_seat_html(ENGINE, state, 1)
    assert 'class="danger-cue" role="note"' in html
    assert "With action A, Player 1 could reach 15 workers: round 1 may be scored after this turn." in text(
        html
    )
    arrange_displays(state, [[31, 32, 33, 34, 4], [2], [3]])  # 17 workers: this turn is the last
    assert "Last turn of round 1: Player 1 has 15 or more workers" in text(render_seat_html(ENGINE, state, 2))
    state["round"] = 3
    assert "Last turn of the game: Player 1 has 15 or more workers" in text(
        render_seat_html(ENGINE, state, None)
    )
    arrange_displays(state, [[1], [2], [3]])
    assert "danger-cue" not in render_seat_html(ENGINE, state, 0)


def test_one_decision_panel_holds_the_forms_and_every_form_has_a_stable_id() -> None:
    phases: dict[str, State] = {}
    rng = random.Random(4)
    state = ENGINE.setup(5, {}, 11)
    while not state["finished"]:
        phases.setdefault(state["phase"], state)
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, base.random_bot_action(ENGINE, state, seat, rng))
    phases["finished"] = state
    for phase, at in phases.items():
        for seat in [None, *range(5)]:
            html = render_seat_html(ENGINE, at, seat)
            acting = seat is not None and bool(ENGINE.legal_actions(at, seat)) and not at["finished"]
            panels = re.findall(r'class="(?:[^"]* )?decision[ "]', html)  # the class, not region-g-decision
            assert len(panels) == (1 if acting else 0), (phase, seat)
            forms = re.findall(r'<form [^>]*action="/r/testroom/act"[^>]*>', html)
            ids = [re.search(r'id="(f-[a-z]+)"', form) for form in forms]
            assert all(ids) and len({found.group(1) for found in ids if found}) == len(forms), (phase, seat)
            tracks = re.findall(r'data-track="([^"]+)"', html)
            assert len(tracks) == len(set(tracks)), (phase, seat)
