"""What the simulator and the tests check of every Fifth guess position: no more points than rounds
played, and a disguise that changes one seat's secret pick."""

from __future__ import annotations

import random

from app.games.base import State, copy_state_sharing_log

from .data import NUMBERS


def invariants(state: State) -> list[str]:
    scored_rounds = state["round"] if state["finished"] else state["round"] - 1
    if sum(state["scores"]) > scored_rounds or min(state["scores"]) < 0:
        return ["more points than rounds played"]
    return []


def disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Another pick for ``owner``, if it has picked."""
    other = copy_state_sharing_log(state)
    if other["picks"][owner] is not None:
        other["picks"][owner] = rng.choice([n for n in NUMBERS if n != other["picks"][owner]])
    return other, {owner}
