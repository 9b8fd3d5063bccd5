"""What the coach says of a Tulipmania 1637 decision (``app/learn``): each option in a player's
words, from the seat's view alone."""

from __future__ import annotations

from typing import Any

from app.games.base import N_, Action, View
from app.games.tulipmania_1637.data import CARD_NAMES, COLOUR_NAMES

Message = tuple[str, dict[str, Any]]


def describe(action: Action, view: View, seat: int) -> Message | None:
    """``action`` as a player says it ("Buy a red tulip"), or None for the template's own label."""
    kind = action.get("type")
    if kind == "sell":
        return N_("Sell a {colour} tulip"), {"colour": COLOUR_NAMES[action["colour"]]}
    if kind == "buy":
        return N_("Buy a {colour} tulip"), {"colour": COLOUR_NAMES[action["colour"]]}
    if kind == "play":
        return N_("Play {card}"), {"card": CARD_NAMES[action["card"]]}
    if kind == "take_buyer":
        index = action["index"]
        face_up = view.get("face_up", [])
        if 0 <= index < len(face_up):
            return N_("Take the face-up {colour} buyer"), {"colour": COLOUR_NAMES[face_up[index]]}
    return None
