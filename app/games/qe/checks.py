"""What the simulator (``app/simulate.py``) and the tests check of every Q.E. position: the things
the game conserves, and a disguise (the same table with one seat's secrets changed) to compare every
other seat's view with. Play never imports this module.
"""

from __future__ import annotations

import random

from app.games.base import State, copy_state_sharing_log
from app.games.qe import data


def invariants(state: State) -> list[str]:
    won = [record["tile"] for record in state["auctions"]]
    current = [state["auction"]["tile"]] if state["auction"] else []
    tiles = won + current + list(state["deck"])
    if sorted(tiles) != sorted(data.tiles_in_play(state["players"])):
        return ["a company tile is missing or twice in play"]
    return []


def disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Another industry token for ``owner`` (the unused one with 3 players, else its neighbour's,
    whose secret then changes too), the deck reordered."""
    other = copy_state_sharing_log(state)
    tokens = other["tokens"]
    rng.shuffle(other["deck"])
    unused = [t for t in data.industry_tokens(state["players"]) if t not in tokens]
    if unused:
        tokens[owner] = unused[0]
        return other, {owner}
    neighbour = (owner + 1) % state["players"]
    tokens[owner], tokens[neighbour] = tokens[neighbour], tokens[owner]
    return other, {owner, neighbour}
