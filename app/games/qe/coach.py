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


def _company(tile: dict[str, Any]) -> dict[str, Any]:
    return {"country": tile["country_name"], "industry": tile["industry_name"]}


def notes(view: View, seat: int, legal: list[dict[str, Any]]) -> list[Message]:
    """What this decision is and what it leads to, and what the options mean in numbers the seat can
    work out from what it sees: its own spending, and the least each other player is known to have
    spent (the winning amounts it saw)."""
    auction = view.get("auction")
    phase = view.get("phase")
    said: list[Message] = []
    if phase == "award" or auction is None:
        said.append((N_("Reveal the next company: its auction starts, with you as its auctioneer."), {}))
        return said
    company = _company(auction["tile"])
    if phase == "open_bid":
        said.append(
            (
                N_(
                    "You are the auctioneer of {country} {industry}: open with any amount from 1. The others "
                    "then bid in secret and may not bid your amount; the highest bid wins."
                ),
                company,
            )
        )
    elif auction["forbidden_bid"] is None:  # 3 players: the last company has no auctioneer
        said.append(
            (
                N_(
                    "A sealed bid for {country} {industry}: the highest bid wins it, and a tie means nobody "
                    "gets it. Whoever spent the most in all is eliminated at the end."
                ),
                company,
            )
        )
    else:
        said.append(
            (
                N_(
                    "A sealed bid for {country} {industry}: the highest bid wins it; any whole number but "
                    "{forbidden}. Whoever spent the most in all is eliminated at the end."
                ),
                {**company, "forbidden": auction["forbidden_bid"]},
            )
        )
    sheet = view.get("sheet") or {}
    spent = int(sheet.get("spent", 0))
    known = {
        other["seat"]: sum(tile["amount"] or 0 for tile in other["tiles"])
        for other in view.get("table", [])
        if other["seat"] != seat
    }
    top_seat = max(known, key=lambda other: known[other]) if known else None
    forbidden = auction["forbidden_bid"]
    example = forbidden + 1 if phase != "open_bid" and forbidden is not None else 1
    if top_seat is None or known[top_seat] == 0:
        said.append(
            (
                N_("You have spent {spent}; won at {example}, you will have spent {after}."),
                {"spent": spent, "example": example, "after": spent + example},
            )
        )
    else:
        after = spent + example
        said.append(
            (
                N_(
                    "You have spent {spent}; won at {example}, you will have spent {after}. Of the amounts "
                    "you have seen, {seat} has spent the most: at least {known}."
                ),
                {
                    "spent": spent,
                    "example": example,
                    "after": after,
                    "seat": {"seat": top_seat},
                    "known": known[top_seat],
                },
            )
        )
    if auction.get("zero_bid_scores"):
        said.append((N_("A bid of 0 scores 2 points: you may do it once this round."), {}))
    return said
