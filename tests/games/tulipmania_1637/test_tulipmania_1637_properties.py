"""Tulipmania 1637: properties over random legal play (bots and random players) with 3, 4 and 5 players.

Checked after every action: tulips and buyer cards conserved; cash conserved apart from the bank
payments the rules name (read back from the public game log); no seat's view depends on another
seat's buyer colours, unrevealed action card or the order of the decks. At the end: the action list
replayed from the seed reproduces the final state exactly, and the state survives a JSON round trip.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.games import base
from app.games.base import State
from app.games.tulipmania_1637 import ENGINE, data
from tests.games.tulipmania_1637.tulipmania_helpers import disguised

# Log lines in which the bank pays a player (+) or a player pays the bank (-); every other cash
# movement is between players. Per the rulebook: proxy sales, all-pass sales, burst sell-offs,
# the final sale after a round of declines (count x amount), and buying from the stockpile.
BANK_PAYS = {
    "{winner} discards one {colour} buyer; the bank pays {seller} ƒ{amount} (1 – Purchase by proxy).",
    "{winner} discards two {colour} buyers; the bank pays {seller} ƒ{amount} (3 – Speculate by proxy).",
    "Nobody wants the {colour} tulip: the bank pays {seller} ƒ{amount}.",
    "{seat} sells one {colour} tulip to one of their {colour} buyers for ƒ{amount}.",
    "{seat} sells off one {colour} tulip for ƒ{amount}.",
    "{seat} sells {count} {colour} tulip(s) at ƒ{amount} each.",
}
BANK_RECEIVES = {
    "{seat} buys one {colour} tulip from the stockpile for ƒ{amount}; the price rises to ƒ{after}.",
}

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# The same examples on every run (so in CI): derandomized, which also keeps no example database.
REPRODUCIBLE = settings(deadline=None, derandomize=True)


def bank_flow(events: list[dict[str, Any]]) -> int:
    total = 0
    for event in events:
        amount = event["params"].get("amount", 0) * event["params"].get("count", 1)
        if event["text"] in BANK_PAYS:
            total += amount
        elif event["text"] in BANK_RECEIVES:
            total -= amount
    return total


def check_conservation(state: State) -> None:
    players = state["players"]
    for colour in state["colours"]:
        held = sum(t[colour] for t in state["tulips"])
        marker = 1 if colour in state["live"] else 0
        total = held + state["stock"][colour] + marker + state["tulips_removed"][colour]
        assert total == data.tulips_per_colour(players), colour
        assert all(t[colour] >= 0 for t in state["tulips"])
    buyers = (
        sum(len(hand) for hand in state["buyers"])
        + len(state["deck"])
        + len(state["reserve"])
        + len(state["face_up"])
        + state["buyers_removed"]
    )
    assert buyers == data.BUYERS_PER_COLOUR * len(state["colours"])
    assert all(card in state["live"] for card in state["face_up"])
    assert all(cash >= 0 for cash in state["cash"])


def view_without_log(state: State, seat: int | None) -> str:
    """A view as JSON, minus the log: ``disguised`` leaves the log alone, so it would always match."""
    seen = ENGINE.view(state, seat)
    seen.pop("events")
    return json.dumps(seen)


def check_secrets(state: State) -> None:
    """No seat's view (nor a spectator's) changes when another seat's secrets change."""
    players = state["players"]
    for target in range(players):
        other = disguised(state, target)
        for seat in [None, *range(players)]:
            if seat != target:
                assert view_without_log(state, seat) == view_without_log(other, seat)
        if sorted(other["buyers"][target]) != sorted(state["buyers"][target]):
            assert view_without_log(state, target) != view_without_log(other, target)  # the owner sees them


def play_game(players: int, seed: int, checks: bool) -> tuple[State, list[tuple[int, dict[str, Any]]]]:
    rng = random.Random(seed * 31 + players)
    state = ENGINE.setup(players, {}, seed)
    history: list[tuple[int, dict[str, Any]]] = []
    bots = {seat for seat in range(players) if rng.random() < 0.6}
    for _ in range(3000):
        if state["finished"]:
            break
        seat = rng.choice(ENGINE.to_act(state))
        legal = ENGINE.legal_actions(state, seat)
        assert legal
        action = ENGINE.bot_action(state, seat, rng) if seat in bots else base.random_legal_action(legal, rng)
        new = ENGINE.apply(state, seat, action)
        if checks:
            cash_change = sum(new["cash"]) - sum(state["cash"])
            assert cash_change == bank_flow(new["events"][len(state["events"]) :])
            check_conservation(new)
            check_secrets(new)
        history.append((seat, action))
        state = new
    assert state["finished"]
    return state, history


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=10)
@given(seed=SEEDS)
def test_random_play_conserves_tulips_buyers_and_cash_and_keeps_secrets(players: int, seed: int) -> None:
    state, _ = play_game(players, seed, checks=True)
    result = ENGINE.result(state)
    assert result is not None and result.winners
    assert all(state["cash"][w] == max(state["cash"]) for w in result.winners)


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=10)
@given(seed=SEEDS)
def test_replay_of_the_action_list_equals_the_final_state(players: int, seed: int) -> None:
    final, history = play_game(players, seed, checks=False)
    state = ENGINE.setup(players, {}, seed)
    for seat, action in history:
        state = ENGINE.apply(json.loads(json.dumps(state)), seat, json.loads(json.dumps(action)))
    assert state == final
    assert json.loads(json.dumps(final)) == final


def expand(template: dict[str, Any]) -> list[dict[str, Any]]:
    """Every concrete action of a template (ours have at most one choice parameter, no constraint)."""
    assert "constraint" not in template
    if not template["params"]:
        return [{"type": template["type"]}]
    ((name, domain),) = template["params"].items()
    assert domain["kind"] == "choice" and domain["options"]
    return [{"type": template["type"], name: value} for value in domain["options"]]


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=4)
@given(seed=SEEDS)
def test_every_offered_action_is_accepted(players: int, seed: int) -> None:
    """Legal-action templates carry no constraint: every value in every domain must apply."""
    _, history = play_game(players, seed, checks=False)
    state = ENGINE.setup(players, {}, seed)
    for seat, action in history:
        for other_seat in ENGINE.to_act(state):
            for template in ENGINE.legal_actions(state, other_seat):
                for concrete in expand(template):
                    ENGINE.apply(state, other_seat, concrete)
        state = ENGINE.apply(state, seat, action)


def test_bot_beats_random_players() -> None:
    """The bot is decent: seated once against random players it wins far more than its share."""
    wins = games = 0
    for players in (3, 4, 5):
        for seed in range(12):
            rng = random.Random(seed)
            state = ENGINE.setup(players, {}, seed)
            bot_seat = seed % players
            while not state["finished"]:
                seat = ENGINE.to_act(state)[0]
                if seat == bot_seat:
                    action = ENGINE.bot_action(state, seat, rng)
                else:
                    action = base.random_legal_action(ENGINE.legal_actions(state, seat), rng)
                state = ENGINE.apply(state, seat, action)
            result = ENGINE.result(state)
            assert result is not None
            wins += bot_seat in result.winners
            games += 1
    assert wins / games > 0.5
