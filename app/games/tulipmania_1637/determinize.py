"""A Tulipmania 1637 table as one seat may imagine it, for the strong bot's search
(``app/bots/search.py``).

The seat sees everything but the other seats' buyer colours (their number is public), the order of
the deck and the reserve, and the action cards the others have chosen and not yet revealed (ruling 9).
``determinize`` deals the buyer cards it cannot see (the others' hands, the deck and the reserve
together, a set it can count from the public ones and its own) afresh, in the sizes it sees, and
draws each hidden chosen card among those its holder could fulfil; the rest it keeps.
``tests/bots/test_search.py`` checks that the seat's view is unchanged and that the draw depends on
nothing the seat cannot see.
"""

from __future__ import annotations

import random

from app.games import base
from app.games.base import State
from app.games.tulipmania_1637 import rules
from app.games.tulipmania_1637.data import CARDS


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A state the seat cannot tell from ``state``, with what it cannot see drawn from ``rng``."""
    world = base.seat_world(state, seat, rng)
    others = [s for s in range(world["players"]) if s != seat]
    unseen = sorted([*world["deck"], *world["reserve"], *(c for s in others for c in world["buyers"][s])])
    rng.shuffle(unseen)
    for other in others:
        size = len(world["buyers"][other])
        world["buyers"][other], unseen = sorted(unseen[:size]), unseen[size:]
    deck_size = len(world["deck"])
    world["deck"], world["reserve"] = unseen[:deck_size], unseen[deck_size:]
    sale = world["sale"]
    if sale is not None and world["phase"] == rules.CHOOSE:
        for other in others:
            if other != world["current"] and sale["cards"][other] is not None:
                possible = [c for c in CARDS if rules.can_fulfil(world, other, c, sale["colour"])]
                sale["cards"][other] = rng.choice(possible)
    return world
