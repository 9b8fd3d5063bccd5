"""A Fifth guess table as one seat may imagine it, for the strong bot: the others' picks (it sees only
who has picked) drawn afresh."""

from __future__ import annotations

import random

from app.games.base import State, seat_world

from .data import NUMBERS


def determinize(state: State, seat: int, rng: random.Random) -> State:
    world = seat_world(state, seat, rng)
    for other, pick in enumerate(world["picks"]):
        if other != seat and pick is not None:
            world["picks"][other] = rng.choice(NUMBERS)
    return world
