"""Fifth guess's flow: every seat picks in secret; when all have picked, the round is scored."""

from __future__ import annotations

from typing import Any

from app.games import base
from app.games.base import N_, Action, IllegalAction, Result, State

from .data import GAME_ID, NUMBERS, ROUNDS

REFUSALS = base.Refusals(
    not_an_action=N_("That is not an action."),
    game_over=N_("The game is over."),
    not_seated=N_("You are not playing in this game."),
)


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    state = base.new_state(GAME_ID, players, options, seed)
    state.update(round=1, picks=[None] * players, scores=[0] * players)
    return state


def to_act(state: State) -> list[int]:
    if state["finished"]:
        return []
    return [seat for seat, pick in enumerate(state["picks"]) if pick is None]


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    return [
        {
            "type": "pick",
            "label": N_("Pick"),
            "params": {"number": {"kind": "choice", "options": list(NUMBERS)}},
        }
    ]


def apply(state: State, seat: int, action: Action) -> State:
    if base.open_apply(state, seat, action, REFUSALS).get("type") != "pick":
        raise IllegalAction(N_("Fifth guess has no such action."))
    if seat not in to_act(state):
        raise IllegalAction(N_("You have already picked."))
    number = str(action.get("number"))
    if number not in {str(n) for n in NUMBERS}:
        raise IllegalAction(N_("Pick 1, 2 or 3."))
    new = base.copy_state(state)
    new["picks"][seat] = int(number)
    base.log_event(new, N_("{seat} has picked."), seat=base.seat_ref(seat))
    if None not in new["picks"]:
        _score_round(new)
    return new


def _score_round(state: State) -> None:
    picks = state["picks"]
    unique = [pick for pick in picks if picks.count(pick) == 1]
    if unique:
        winner = picks.index(max(unique))
        state["scores"][winner] += 1
        base.log_event(
            state, N_("{seat} wins round {round}."), seat=base.seat_ref(winner), round=state["round"]
        )
    state["picks"] = [None] * state["players"]
    if state["round"] == ROUNDS:
        state["finished"] = True
    else:
        state["round"] += 1


def result(state: State) -> Result | None:
    if not state["finished"]:
        return None
    best = max(state["scores"])
    return Result(
        [seat for seat, score in enumerate(state["scores"]) if score == best], list(state["scores"])
    )
