"""Properties of random legal Basari games with 3, 4 and 5 players (bots and random legal actions)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.games import base
from app.games.basari import ENGINE
from app.games.basari.data import COLOURS, GEMS_PER_COLOUR, MARKET_CARDS
from app.games.base import Action, State

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# The same examples on every run (so in CI): derandomized, which also keeps no example database.
REPRODUCIBLE = settings(deadline=None, derandomize=True)
MAX_STEPS = 2000


def assert_gems_conserved(state: State) -> None:
    """88 gems, 22 per colour, between the players and the bank; never negative."""
    for colour in COLOURS:
        held = [state["gems"][seat][colour] for seat in range(state["players"])]
        assert min(held) >= 0 and state["bank"][colour] >= 0
        assert sum(held) + state["bank"][colour] == GEMS_PER_COLOUR


def assert_cards_conserved(state: State) -> None:
    """The 39 market cards are in the deck or on a display, each exactly once."""
    cards = state["deck"] + [card for display in state["displays"] for card in display]
    assert sorted(cards) == sorted(MARKET_CARDS)


def assert_choice_is_secret(before: State, seat: int) -> None:
    """Choosing A, B or C (before the reveal) changes nothing that another seat may see."""
    if len(ENGINE.to_act(before)) == 1:
        return  # the last choice reveals every card
    after = [ENGINE.apply(before, seat, {"type": "choose", "card": card}) for card in ("A", "B", "C")]
    for other in [None, *range(before["players"])]:
        if other == seat:
            continue
        views = [ENGINE.view(state, other) for state in after]
        assert views[0] == views[1] == views[2]
    assert ENGINE.view(after[0], seat)["my_choice"] == "A"


def next_action(state: State, seat: int, rng: random.Random) -> Action:
    if rng.random() < 0.5:
        return ENGINE.bot_action(state, seat, rng)
    return base.random_bot_action(ENGINE, state, seat, rng)


def play_out(players: int, seed: int) -> tuple[State, list[tuple[int, Action]]]:
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    actions: list[tuple[int, Action]] = []
    for _ in range(MAX_STEPS):
        assert_gems_conserved(state)
        assert_cards_conserved(state)
        waiting = ENGINE.to_act(state)
        if not waiting:
            break
        seat = rng.choice(waiting)
        if state["phase"] == "choose":
            assert_choice_is_secret(state, seat)
        for template in ENGINE.legal_actions(state, seat):
            if "constraint" not in template:  # every value of an unconstrained domain is legal
                ENGINE.apply(state, seat, base.random_legal_action([template], rng))
        action = next_action(state, seat, rng)
        state = ENGINE.apply(state, seat, action)
        actions.append((seat, action))
    assert state["finished"], "the game did not end"
    return state, actions


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=6)
@given(seed=SEEDS)
def test_random_legal_games_conserve_gems_and_cards_keep_choices_secret_and_replay(
    players: int, seed: int
) -> None:
    final, actions = play_out(players, seed)
    assert final["round"] == 3 and len(final["round_summaries"]) == 3
    result = ENGINE.result(final)
    assert result is not None and result.winners
    assert result.scores == final["scores"]
    replayed = ENGINE.setup(players, {}, seed)
    for seat, action in actions:
        replayed = ENGINE.apply(replayed, seat, action)
    assert replayed == final


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=10)
@given(seed=SEEDS)
def test_views_never_carry_the_deck_order_or_the_seed(players: int, seed: int) -> None:
    """Ruling 9: the deck's order is secret; the seed would reveal it."""
    state = ENGINE.setup(players, {}, seed)
    for seat in [None, *range(players)]:
        view = ENGINE.view(state, seat)
        assert "deck" not in view and "seed" not in view and "rng_step" not in view
        assert view["deck_count"] == len(state["deck"])


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=2)
@given(seed=SEEDS)
def test_bots_alone_finish_the_game(players: int, seed: int) -> None:
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    for _ in range(MAX_STEPS):
        waiting = ENGINE.to_act(state)
        if not waiting:
            break
        seat = waiting[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert ENGINE.result(state) is not None


def test_the_bot_beats_random_play_more_often_than_chance() -> None:
    """Issue #5 asks for a sensible bot: seat 0 (bot) against random legal players."""
    wins = 0
    games = 24
    for seed in range(games):
        rng = random.Random(seed)
        state = ENGINE.setup(3, {}, seed)
        while not state["finished"]:
            seat = ENGINE.to_act(state)[0]
            if seat == 0:
                action = ENGINE.bot_action(state, seat, rng)
            else:
                action = base.random_bot_action(ENGINE, state, seat, rng)
            state = ENGINE.apply(state, seat, action)
        result = ENGINE.result(state)
        assert result is not None
        wins += 0 in result.winners
    assert wins > games / 2
