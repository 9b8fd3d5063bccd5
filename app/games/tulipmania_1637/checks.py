"""What the simulator (``app/simulate.py``) and the tests check of every Tulipmania 1637 position:
the things the game conserves, and a disguise (the same table with one seat's secrets changed) to
compare every other seat's view with. Play never imports this module.
"""

from __future__ import annotations

import random

from app.games.base import State, copy_state_sharing_log
from app.games.tulipmania_1637 import data


def invariants(state: State) -> list[str]:
    buyers = (
        sum(len(hand) for hand in state["buyers"])
        + len(state["deck"])
        + len(state["reserve"])
        + len(state["face_up"])
        + state["buyers_removed"]
    )
    problems = []
    if buyers != data.BUYERS_PER_COLOUR * len(state["colours"]):
        problems.append("buyer cards not conserved")
    if min(state["cash"]) < 0:
        problems.append("negative cash")
    return problems


def disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Other buyer colours and another unrevealed action card for ``owner``; decks reordered."""
    other = copy_state_sharing_log(state)
    colours = other["colours"]
    rotation = {c: colours[(i + 1) % len(colours)] for i, c in enumerate(colours)}
    other["buyers"][owner] = sorted(rotation[c] for c in state["buyers"][owner])
    if other["sale"] is not None and other["sale"]["cards"][owner] is not None:
        other["sale"]["cards"][owner] = (other["sale"]["cards"][owner] + 2) % 5
    other["deck"] = other["deck"][::-1]
    other["reserve"] = other["reserve"][::-1]
    return other, {owner}
