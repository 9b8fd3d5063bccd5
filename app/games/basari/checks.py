"""What the simulator (``app/simulate.py``) and the tests check of every Basari position: the things
the game conserves, and a disguise (the same table with one seat's secrets changed) to compare every
other seat's view with. Play never imports this module.
"""

from __future__ import annotations

import random

from app.games.basari.data import COLOURS, GEMS_PER_COLOUR, MARKET_CARDS
from app.games.base import State, copy_state_sharing_log


def invariants(state: State) -> list[str]:
    problems = []
    for colour in COLOURS:
        held = [state["gems"][seat][colour] for seat in range(state["players"])]
        if min(held) < 0 or state["bank"][colour] < 0 or sum(held) + state["bank"][colour] != GEMS_PER_COLOUR:
            problems.append(f"{colour} gems not conserved")
    cards = state["deck"] + [card for display in state["displays"] for card in display]
    if sorted(cards) != sorted(MARKET_CARDS):
        problems.append("a market card is missing or twice in play")
    return problems


def disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Another secret action card for ``owner`` (before the reveal) and another deck order."""
    other = copy_state_sharing_log(state)
    rng.shuffle(other["deck"])
    chosen = other["chosen"][owner]
    if chosen is not None and other["phase"] == "choose":
        other["chosen"][owner] = {"A": "B", "B": "C", "C": "A"}.get(chosen, chosen)
    return other, {owner}
