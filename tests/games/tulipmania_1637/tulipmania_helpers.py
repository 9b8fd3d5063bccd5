"""Helpers shared by the Tulipmania 1637 secrecy tests (views and rendered pages)."""

from __future__ import annotations

from app.games.base import State


def disguised(state: State, target: int) -> State:
    """The same table except for ``target``'s secrets: buyer colours, an unrevealed card, deck order.

    A shallow copy with the changed parts replaced (the log is shared, untouched)."""
    other = dict(state)
    colours = other["colours"]
    rotation = {c: colours[(i + 1) % len(colours)] for i, c in enumerate(colours)}
    other["buyers"] = [list(hand) for hand in state["buyers"]]
    other["buyers"][target] = sorted(rotation[c] for c in state["buyers"][target])
    if state["sale"] is not None and state["sale"]["cards"][target] is not None:
        cards = list(state["sale"]["cards"])
        cards[target] = (cards[target] + 2) % 5
        other["sale"] = {**state["sale"], "cards": cards}
    other["deck"] = state["deck"][::-1]
    other["reserve"] = state["reserve"][::-1]
    return other
