"""What the coach says of a Q.E. decision (``app/learn``): each option in a player's words, from
the seat's view alone."""

from __future__ import annotations

from typing import Any

from app.games.base import N_, Action, View

Message = tuple[str, dict[str, Any]]

SAID = {
    "open_bid": N_("Open the bidding at {amount}"),
    "bid": N_("Bid {amount}"),
}


def describe(action: Action, view: View, seat: int) -> Message | None:
    """``action`` as a player says it ("Bid 12"), or None for the template's own label."""
    text = SAID.get(action.get("type", ""))
    return None if text is None else (text, {"amount": action["amount"]})
