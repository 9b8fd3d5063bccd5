"""What the coach says of a Tulip Bubble decision (``app/learn``): each option in a player's words,
from the seat's view alone."""

from __future__ import annotations

from typing import Any

from app.games.base import N_, Action, View
from app.games.tulip_bubble.data import COLOURS, label_of

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


def notes(view: View, seat: int, legal: list[dict[str, Any]]) -> list[Message]:
    """What this decision is and what it leads to, and what the options mean in guilders the seat can
    work out from what it sees: market prices, its cash, the auction's figures."""
    phase = view.get("phase")
    you = view.get("you") or {}
    cash = int(you.get("cash", 0))
    said: list[Message] = []
    if phase == "selling":
        said.append(
            (
                N_(
                    "Your selling turn: a tulip sold to the market brings its market price now; a collector "
                    "pays the cards' market value plus a bonus, once a round. At the end only cash counts."
                ),
                {},
            )
        )
        hand = you.get("hand", [])
        if hand:
            said.append(
                (
                    N_("Selling all your tulips now would bring {value}; you hold {cash} in cash."),
                    {"value": you.get("hand_value", 0), "cash": cash},
                )
            )
        for mortgage in (you.get("player") or {}).get("mortgages", []):
            said.append(
                (
                    N_("{card} is mortgaged: no collector takes it until you redeem it for {amount}."),
                    {"card": mortgage["label"], "amount": mortgage["amount"]},
                )
            )
        for collector in you.get("satisfiable", []):
            said.append(
                (
                    N_("{collector} would pay {total} for {cards}."),
                    {
                        "collector": collector["name"],
                        "total": collector["total"],
                        "cards": [card["label"] for card in collector["cards"]],
                    },
                )
            )
    elif phase == "bidding":
        player = you.get("player", {})
        said.append(
            (
                N_(
                    "Place purchase tokens on New Arrivals or Just Sold: a card with your token alone is "
                    "yours at its market price; with several tokens it goes to auction."
                ),
                {},
            )
        )
        said.append(
            (
                N_("You hold {cash} in cash; free purchase tokens: {tokens}."),
                {"cash": cash, "tokens": player.get("tokens_free", 0)},
            )
        )
        counts = {colour: 0 for colour in COLOURS}
        for row in view.get("rows", []):
            for card in row["cards"]:
                counts[card["colour"]] += 1
        said.append(
            (
                N_(
                    "At the round's end the colour with the most tulips left in the three rows falls a step "
                    "and the one with the fewest rises a step (all equal: none moves), past any level another "
                    "colour holds; then a market card may move prices further. In the rows now: {red} red, "
                    "{white} white, {yellow} yellow."
                ),
                counts,
            )
        )
    elif phase == "auction" and view.get("auction"):
        auction = view["auction"]
        said.append(
            (
                N_(
                    "An open auction for {card}: raise by at least 1 or drop out for good. The winner pays "
                    "the price; the other bidders share what it exceeds the market price by."
                ),
                {"card": auction["card"]["label"]},
            )
        )
        said.append(
            (
                N_(
                    "Won at {bid} (market price {market}), you pay {bid} and each other bidder gets {share} "
                    "from the bank; you hold {cash} in cash."
                ),
                {
                    "bid": auction["min_bid"],
                    "market": auction["market"],
                    "share": auction["overflow_at_min"],
                    "cash": cash,
                },
            )
        )
    elif phase == "payment" and view.get("payment"):
        payment = view["payment"]
        said.append(
            (
                N_(
                    "Pay {price} for {card} in cash (you hold {cash}), or mortgage it: it stays yours with "
                    "{price} recorded, a debt until you redeem it."
                ),
                {"price": payment["price"], "card": payment["card"]["label"], "cash": cash},
            )
        )
    burst = view.get("burst_next")
    if burst:
        said.append(
            (
                N_(
                    "The Bubble Burst may be the next market card, one chance in {cards}: tulips still in "
                    "hand are then worth nothing."
                ),
                {"cards": burst["cards_left"]},
            )
        )
    return said
