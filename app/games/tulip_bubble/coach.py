"""What the coach says of a Tulip Bubble decision (``app/learn``): each option in a player's words,
from the seat's view alone."""

from __future__ import annotations

from typing import Any

from app.games.base import N_, Action, View
from app.games.tulip_bubble.data import label_of

Message = tuple[str, dict[str, Any]]

ON_A_CARD = {
    "sell": N_("Sell {card} to the market"),
    "sell_mortgage": N_("Sell the mortgaged {card}"),
    "redeem": N_("Redeem the mortgage on {card}"),
    "place": N_("Place a purchase token on {card}"),
}


def describe(action: Action, view: View, seat: int) -> Message | None:
    """``action`` as a player says it ("Raise to 14"), or None for the template's own label."""
    kind = action.get("type", "")
    if kind in ON_A_CARD:
        return ON_A_CARD[kind], {"card": label_of(action["card"])}
    if kind == "sell_to_collector":
        return N_("Sell {cards} to the collector"), {
            "cards": [label_of(card) for card in str(action["cards"]).split(",")]
        }
    if kind == "raise":
        return N_("Raise to {amount}"), {"amount": action["amount"]}
    if kind == "pay":
        return (N_("Pay in cash") if action["method"] == "cash" else N_("Pay with a mortgage")), {}
    return None
