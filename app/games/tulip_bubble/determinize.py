"""A Tulip Bubble table as one seat may imagine it, for the strong bot's search (``app/bots/search.py``).

The seat sees its own hand and cash and everything public (ruling 12); it does not see the other
hands (only their size), the others' cash, the order of the tulip deck, the collector piles below
their tops, the market deck or the market card removed at set-up. ``determinize`` deals the tulips it
cannot see (the other hands and the deck together) afresh in the sizes it sees, gives every other
seat its own cash as a guess, reshuffles each collector pile below its top, and redraws the market
deck and the removed card with the Bubble Burst among the bottom cards, as the set-up buries it.
``tests/bots/test_search.py`` checks that the seat's view is unchanged and that the draw depends on
nothing the seat cannot see.
"""

from __future__ import annotations

import random

from app.games import base
from app.games.base import State
from app.games.tulip_bubble.data import BUBBLE_BURST, BURST_SHUFFLED_WITH


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A state the seat cannot tell from ``state``, with what it cannot see drawn from ``rng``."""
    world = base.seat_world(state, seat, rng)
    if world["finished"]:
        return world
    others = [s for s in range(world["players"]) if s != seat]
    unseen = sorted([*world["deck"], *(card for s in others for card in world["hands"][s])])
    rng.shuffle(unseen)
    for other in others:
        size = len(world["hands"][other])
        world["hands"][other], unseen = unseen[:size], unseen[size:]
        world["cash"][other] = world["cash"][seat]
    world["deck"] = unseen
    for pile in world["collectors"]:
        below = sorted(pile[1:])
        rng.shuffle(below)
        pile[1:] = below
    _redraw_market(world, rng)
    return world


def _redraw_market(world: State, rng: random.Random) -> None:
    """The market cards not yet revealed, and the removed one, drawn again; the Burst (still to come
    while the game goes on) at any of the bottom places it may be in."""
    deck = world["market_deck"]
    cards = sorted(card for card in [*deck, world["market_removed"]] if card != BUBBLE_BURST)
    rng.shuffle(cards)
    world["market_removed"] = cards.pop()
    if BUBBLE_BURST in deck:
        places = min(BURST_SHUFFLED_WITH + 1, len(deck))
        cards.insert(len(cards) + 1 - places + rng.randrange(places), BUBBLE_BURST)
    world["market_deck"] = cards
