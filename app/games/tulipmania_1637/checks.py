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
    """Other buyer colours for ``owner`` (its cards swapped with live ones of the deck or reserve, so
    the cards nobody else sees keep their colours together), another unrevealed action card; decks
    reordered."""
    other = copy_state_sharing_log(state)
    hand, hidden = other["buyers"][owner], other["deck"] + other["reserve"]
    for index in range(len(hand)):
        swaps = [i for i, card in enumerate(hidden) if card in other["live"] and card != hand[index]]
        if swaps:
            swap = rng.choice(swaps)
            hand[index], hidden[swap] = hidden[swap], hand[index]
    hand.sort()
    rng.shuffle(hidden)
    other["deck"], other["reserve"] = hidden[: len(other["deck"])], hidden[len(other["deck"]) :]
    if other["sale"] is not None and other["sale"]["cards"][owner] is not None:
        other["sale"]["cards"][owner] = (other["sale"]["cards"][owner] + 2) % 5
    return other, {owner}
