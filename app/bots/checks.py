"""What the simulator checks of every position, per game: the things each game conserves, and a
*disguise* — the same table with one seat's secrets (and the hidden deck orders) changed — so that
every other seat's view can be compared (a view that changes with a secret it may not know leaks it).

These mirror the property tests in ``tests/games/*/test_*_properties.py``, in a form the simulator
can run after every action of thousands of games.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from app.games.basari.data import COLOURS, GEMS_PER_COLOUR, MARKET_CARDS
from app.games.base import State
from app.games.qe import data as qe_data
from app.games.tulip_bubble.data import ROWS, all_tulips
from app.games.tulipmania_1637 import data as tulipmania_data

Invariant = Callable[[State], list[str]]
Disguise = Callable[[State, int, random.Random], tuple[State, set[int]]]  # and whose secrets changed


def _tulip_bubble_invariants(state: State) -> list[str]:
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


def _tulip_bubble_disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Another cash figure and other hand cards (swapped with the deck) for ``owner``; the tulip deck,
    market deck and collector piles below the top reordered."""
    other = _copy(state)
    other["cash"][owner] += 37
    hand, deck = other["hands"][owner], other["deck"]
    for index in range(len(hand) if deck else 0):
        swap = rng.randrange(len(deck))
        hand[index], deck[swap] = deck[swap], hand[index]
    rng.shuffle(deck)
    other["market_deck"] = other["market_deck"][::-1]
    other["collectors"] = [pile[:1] + pile[1:][::-1] for pile in other["collectors"]]
    return other, {owner}


def _basari_invariants(state: State) -> list[str]:
    problems = []
    for colour in COLOURS:
        held = [state["gems"][seat][colour] for seat in range(state["players"])]
        if min(held) < 0 or state["bank"][colour] < 0 or sum(held) + state["bank"][colour] != GEMS_PER_COLOUR:
            problems.append(f"{colour} gems not conserved")
    cards = state["deck"] + [card for display in state["displays"] for card in display]
    if sorted(cards) != sorted(MARKET_CARDS):
        problems.append("a market card is missing or twice in play")
    return problems


def _basari_disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Another secret action card for ``owner`` (before the reveal) and another deck order."""
    other = _copy(state)
    rng.shuffle(other["deck"])
    chosen = other["chosen"][owner]
    if chosen is not None and other["phase"] == "choose":
        other["chosen"][owner] = {"A": "B", "B": "C", "C": "A"}.get(chosen, chosen)
    return other, {owner}


def _qe_invariants(state: State) -> list[str]:
    won = [record["tile"] for record in state["auctions"]]
    current = [state["auction"]["tile"]] if state["auction"] else []
    tiles = won + current + list(state["deck"])
    if sorted(tiles) != sorted(qe_data.tiles_in_play(state["players"])):
        return ["a company tile is missing or twice in play"]
    return []


def _qe_disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Another industry token for ``owner`` (the unused one with 3 players, else its neighbour's,
    whose secret then changes too), the deck reordered."""
    other = _copy(state)
    tokens = other["tokens"]
    rng.shuffle(other["deck"])
    unused = [t for t in qe_data.industry_tokens(state["players"]) if t not in tokens]
    if unused:
        tokens[owner] = unused[0]
        return other, {owner}
    neighbour = (owner + 1) % state["players"]
    tokens[owner], tokens[neighbour] = tokens[neighbour], tokens[owner]
    return other, {owner, neighbour}


def _tulipmania_invariants(state: State) -> list[str]:
    buyers = (
        sum(len(hand) for hand in state["buyers"])
        + len(state["deck"])
        + len(state["reserve"])
        + len(state["face_up"])
        + state["buyers_removed"]
    )
    problems = []
    if buyers != tulipmania_data.BUYERS_PER_COLOUR * len(state["colours"]):
        problems.append("buyer cards not conserved")
    if min(state["cash"]) < 0:
        problems.append("negative cash")
    return problems


def _tulipmania_disguise(state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
    """Other buyer colours and another unrevealed action card for ``owner``; decks reordered."""
    other = _copy(state)
    colours = other["colours"]
    rotation = {c: colours[(i + 1) % len(colours)] for i, c in enumerate(colours)}
    other["buyers"][owner] = sorted(rotation[c] for c in state["buyers"][owner])
    if other["sale"] is not None and other["sale"]["cards"][owner] is not None:
        other["sale"]["cards"][owner] = (other["sale"]["cards"][owner] + 2) % 5
    other["deck"] = other["deck"][::-1]
    other["reserve"] = other["reserve"][::-1]
    return other, {owner}


def _copy(state: State) -> State:
    """A copy of everything but the (shared, untouched) game log."""
    events = state["events"]
    other: dict[str, Any] = copy.deepcopy({**state, "events": []})
    other["events"] = events
    return other


INVARIANTS: dict[str, Invariant] = {
    "tulip-bubble": _tulip_bubble_invariants,
    "basari": _basari_invariants,
    "qe": _qe_invariants,
    "tulipmania-1637": _tulipmania_invariants,
}

DISGUISES: dict[str, Disguise] = {
    "tulip-bubble": _tulip_bubble_disguise,
    "basari": _basari_disguise,
    "qe": _qe_disguise,
    "tulipmania-1637": _tulipmania_disguise,
}
