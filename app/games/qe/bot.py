"""Q.E. bots that play from their own seat's view only, in two strengths.

Normal values a tile by the points it adds to its own sheet (own country, own secret industry, sets
in progress: ``scoring``), turns points into money at the price level the table has shown (the public
opening bids and the amounts it may see), keeps its total spend under what it expects the others to
spend, since the top spender is eliminated, and takes the 2 points of a zero bid (4–5 players) when a
tile is worth little to it.

Easy plays like a newcomer: it prices a tile by its face value alone at a fixed price (no sets, no
secret industry, no reading of the table's prices), bids what it thinks the tile is worth as long as
its total spend stays about level with the biggest rival's it guesses, and forgets zero bids.
"""

from __future__ import annotations

import random
from statistics import median
from typing import Any

from app.games.base import Action, Budget, View
from app.games.qe import data, scoring

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


def price_per_point(seen: View, me: int) -> float:
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


def expected_spend(seen: View, seat: int) -> float:
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


def budget_left(seen: View, me: int, price: float) -> float:
    """Money the bot may still spend and likely stay under the biggest rival spend.

    Early on it allows about one typical purchase beyond the top rival; the margin shrinks to
    nothing as the tiles run out.
    """
    rivals = max(expected_spend(seen, s) for s in range(seen["players"]) if s != me)
    remaining: float = 1 - len(seen["history"]) / seen["turns"]
    spent: int = seen["sheet"]["spent"]
    return 0.95 * rivals + price * AVERAGE_TILE_POINTS * remaining - spent


def bot_action(
    view: View, me: int, legal: list[dict[str, Any]], rng: random.Random, strength: str, budget: Budget
) -> Action:
    kinds = {t["type"] for t in legal}
    if "peek" in kinds and rng.random() < (0.3 if strength == "normal" else 0.05):
        return {"type": "peek"}
    if "reveal" in kinds:
        return {"type": "reveal"}
    tile = view["auction"]["tile"]["id"]
    if strength == "easy":
        return _easy_bid(view, me, kinds, tile, rng)
    price = price_per_point(view, me)
    worth = tile_value(view["players"], view["sheet"], tile) * price
    if "open_bid" in kinds:
        # everyone else may bid less, so the opening is a price the bot is ready to pay itself
        ceiling = min(worth, budget_left(view, me, price))
        return {"type": "open_bid", "amount": max(1, round(ceiling * rng.uniform(0.3, 0.6)))}
    return {"type": "bid", "amount": _sealed_bid(view, me, worth, price, rng)}


def _sealed_bid(seen: View, me: int, worth: float, price: float, rng: random.Random) -> int:
    auction = seen["auction"]
    opening = auction["open_bid"] or 0
    spendable = budget_left(seen, me, price)
    zero_pays = seen["zero_bids_score"] and auction["round"] not in seen["sheet"]["zero_rounds"]
    if worth <= opening or worth <= 0 or (zero_pays and worth < 2 * price):
        return 0
    ceiling = min(worth, spendable)
    if ceiling <= opening:
        return 0
    if auction["rebid"] and auction["your_bids"]:
        opening = max(opening, auction["your_bids"][-1] - 1)
    # shade the bid: sealed bids usually land a little above the opening bid
    bid = opening + max(1, round((ceiling - opening) * rng.uniform(0.15, 0.6)))
    return bid if bid != auction["open_bid"] else bid + 1


def _easy_bid(seen: View, me: int, kinds: set[str], tile: str, rng: random.Random) -> Action:
    """A newcomer's bid: the tile's face value at a fixed price, a little over the opening bid, but no
    more than keeps its total spend about level with what it guesses the biggest rival spends (the top
    spender is eliminated)."""
    points = int(data.TILES[tile]["points"])
    worth = points * DEFAULT_PRICE_PER_POINT * rng.uniform(0.6, 1.6)
    worth = min(worth, budget_left(seen, me, DEFAULT_PRICE_PER_POINT))
    if "open_bid" in kinds:
        return {"type": "open_bid", "amount": max(1, round(worth * rng.uniform(0.4, 0.9)))}
    opening = seen["auction"]["open_bid"] or 0
    if worth <= opening:
        return {"type": "bid", "amount": 0 if rng.random() < 0.5 or opening <= 1 else opening - 1}
    bid = max(1, round(opening + (worth - opening) * rng.uniform(0.3, 1.0)))
    return {"type": "bid", "amount": bid if bid != opening else bid + 1}
