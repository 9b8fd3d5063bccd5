"""What the simulator (``app/simulate.py``) and the tests check of every Tulip Bubble position: the
things the game conserves, and a disguise (the same table with one seat's secrets changed) to compare
every other seat's view with. Play never imports this module.
"""

from __future__ import annotations

import random

from app.games.base import State, copy_state_sharing_log
from app.games.tulip_bubble.data import ROWS, all_tulips


def invariants(state: State) -> list[str]:
    cards = list(state["deck"]) + list(state["discard"])
    cards += [card for row in ROWS for card in state["rows"][row]]
    cards += [card for hand in state["hands"] for card in hand]
    cards += [m["card"] for ms in state["mortgages"] for m in ms]
    problems = []
    if sorted(cards) != sorted(all_tulips()):
        problems.append("a tulip is missing or twice in play")
    if min(state["cash"]) < 0:
        problems.append("negative cash")
    if any(len(ms) > 3 for ms in state["mortgages"]):
        problems.append("more than three mortgages")
    return problems


def disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Another cash figure and other hand cards (swapped with the deck) for ``owner``; the tulip deck,
    market deck and collector piles below the top reordered."""
    other = copy_state_sharing_log(state)
    other["cash"][owner] += 37
    hand, deck = other["hands"][owner], other["deck"]
    for index in range(len(hand) if deck else 0):
        swap = rng.randrange(len(deck))
        hand[index], deck[swap] = deck[swap], hand[index]
    rng.shuffle(deck)
    other["market_deck"] = other["market_deck"][::-1]
    other["collectors"] = [pile[:1] + pile[1:][::-1] for pile in other["collectors"]]
    return other, {owner}
