"""A Q.E. bot that plays from its own view only.

It values a tile by how many points it adds to its own sheet (own country, own secret industry,
sets in progress), turns points into money with the price level the table has shown so far (the
public opening bids and the amounts it may see), and keeps its total spend under what it expects
the others to spend, since the top spender is eliminated.
"""

from __future__ import annotations

import random
from statistics import median
from typing import Any

from app.games.base import Action, State
from app.games.qe import data, rules, scoring
from app.games.qe.view import view

DEFAULT_PRICE_PER_POINT = 10
AVERAGE_TILE_POINTS = 2.5


def tile_value(players: int, sheet: dict[str, Any], tile: str) -> float:
    """Points the tile adds to the sheet now, plus a little for sets it may complete later."""
    held = [str(t["id"]) for t in sheet["tiles"]]
    before = scoring.score_sheet(players, sheet["country"], sheet["token"], held, 0)["subtotal"]
    after = scoring.score_sheet(players, sheet["country"], sheet["token"], [*held, tile], 0)["subtotal"]
    info = data.TILES[tile]
    prospects: int = (info["industry"] == sheet["token"]) + (info["country"] == sheet["country"])
    return after - before + 0.5 * prospects


def price_per_point(seen: dict[str, Any], me: int) -> float:
    """The table's price level: money per victory point in the others' opening bids and the
    amounts the bot saw them pay (its own purchases are left out so it does not chase itself)."""
    samples = [
        h["open_bid"] / h["tile"]["points"]
        for h in seen["history"]
        if h["open_bid"] and h["auctioneer"] != me
    ]
    samples += [
        h["amount"] / h["tile"]["points"] for h in seen["history"] if h["amount"] and h["winner"] != me
    ]
    return median(samples) if samples else DEFAULT_PRICE_PER_POINT


def expected_spend(seen: dict[str, Any], seat: int) -> float:
    """A guess at a rival's spend: known amounts, else a bit above the opening bid."""
    total = 0.0
    for h in seen["history"]:
        if h["winner"] != seat:
            continue
        if h["amount"] is not None:
            total += h["amount"]
        else:
            total += 1.3 * (h["open_bid"] or 0) + 1
    return total


def budget_left(seen: dict[str, Any], me: int, price: float) -> float:
    """Money the bot may still spend and likely stay under the biggest rival spend.

    Early on it allows about one typical purchase beyond the top rival; the margin shrinks to
    nothing as the tiles run out.
    """
    rivals = max(expected_spend(seen, s) for s in range(seen["players"]) if s != me)
    remaining: float = 1 - len(seen["history"]) / seen["turns"]
    spent: int = seen["sheet"]["spent"]
    return 0.95 * rivals + price * AVERAGE_TILE_POINTS * remaining - spent


def bot_action(state: State, seat: int, rng: random.Random) -> Action:
    seen = view(state, seat)
    legal = {t["type"] for t in rules.legal_actions(state, seat)}
    if "peek" in legal and rng.random() < 0.3:
        return {"type": "peek"}
    if "reveal" in legal:
        return {"type": "reveal"}
    auction = seen["auction"]
    tile = auction["tile"]["id"]
    value = tile_value(seen["players"], seen["sheet"], tile)
    price = price_per_point(seen, seat)
    worth = value * price
    if "open_bid" in legal:
        # everyone else may bid less, so the opening is a price the bot is ready to pay itself
        ceiling = min(worth, budget_left(seen, seat, price))
        return {"type": "open_bid", "amount": max(1, round(ceiling * rng.uniform(0.3, 0.6)))}
    return {"type": "bid", "amount": _sealed_bid(seen, seat, worth, price, rng)}


def _sealed_bid(seen: dict[str, Any], seat: int, worth: float, price: float, rng: random.Random) -> int:
    auction = seen["auction"]
    opening = auction["open_bid"] or 0
    budget = budget_left(seen, seat, price)
    zero_pays = seen["zero_bids_score"] and auction["round"] not in seen["sheet"]["zero_rounds"]
    if worth <= opening or worth <= 0 or (zero_pays and worth < 2 * price):
        return 0
    ceiling = min(worth, budget)
    if ceiling <= opening:
        return 0
    if auction["rebid"] and auction["your_bids"]:
        opening = max(opening, auction["your_bids"][-1] - 1)
    # shade the bid: sealed bids usually land a little above the opening bid
    return opening + max(1, round((ceiling - opening) * rng.uniform(0.15, 0.6)))
