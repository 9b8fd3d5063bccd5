"""A Fifth guess table as one seat may imagine it, for the strong bot, built from its view: the others'
picks (it sees only who has picked) drawn afresh."""

from __future__ import annotations

import random

from app.games import base
from app.games.base import State, View

from .data import GAME_ID, NUMBERS


def determinize(view: View, seat: int, rng: random.Random) -> State:
    picks = [
        view["my_pick"] if other == seat else rng.choice(NUMBERS) if picked else None
        for other, picked in enumerate(view["picked"])
    ]
    world = base.new_state(GAME_ID, len(picks), {}, rng.getrandbits(64))
    world.update(round=view["round"], picks=picks, scores=list(view["scores"]))
    return world
