"""A Basari table as one seat may imagine it, for the strong bot's search (``app/bots/search.py``).

The seat sees everything but the order of the market deck and the action cards the others have
chosen and not yet revealed (ruling 9): ``determinize`` shuffles the deck afresh and draws those cards
from ``rng``, and keeps the rest. ``tests/bots/test_search.py`` checks that the seat's view is
unchanged and that hiding other secrets gives the same draw.
"""

from __future__ import annotations

import random

from app.games import base
from app.games.basari.data import action_cards
from app.games.base import State


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A state the seat cannot tell from ``state``, with what it cannot see drawn from ``rng``."""
    world = base.seat_world(state, seat, rng)
    world["deck"] = sorted(world["deck"])
    rng.shuffle(world["deck"])
    if world["phase"] == "choose":
        cards = list(action_cards(world["players"]))
        for other, chosen in enumerate(world["chosen"]):
            if other != seat and chosen is not None:
                world["chosen"][other] = rng.choice(cards)
    return world
