"""A Q.E. table as one seat may imagine it, for the strong bot's search (``app/bots/search.py``).

``determinize(state, seat, rng)`` keeps everything the seat's view shows and draws afresh, from ``rng``
alone, everything it does not: the other seats' industry tokens, the order of the tiles to come, the
winning amounts it did not see, the other seats' sealed bids and every bid of a past tie that was not
its own. What it writes never depends on what it replaces (a hidden value is only ever overwritten, in
an order the view fixes), so the search cannot learn a secret from it; ``tests/bots/test_search.py``
checks that the seat's view is unchanged and that hiding other secrets gives the same draw.
"""

from __future__ import annotations

import random
from typing import Any

from app.games import base
from app.games.base import State
from app.games.qe import data

SEALED_ZERO_CHANCE = 0.3  # how often a drawn sealed bid is a zero bid


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A state the seat cannot tell from ``state``, with what it cannot see drawn from ``rng``."""
    world = base.seat_world(state, seat, rng)
    if world["finished"]:
        return world
    others = [s for s in range(world["players"]) if s != seat]
    unseen_tokens = sorted(t for t in data.industry_tokens(world["players"]) if t != world["tokens"][seat])
    rng.shuffle(unseen_tokens)
    for other, token in zip(others, unseen_tokens, strict=False):
        world["tokens"][other] = token
    world["deck"] = sorted(world["deck"])
    rng.shuffle(world["deck"])
    for record in world["auctions"]:
        _redraw_record(world, record, seat, rng)
    if world["auction"] is not None:
        _redraw_auction(world["auction"], seat, rng)
    return world


def _amount_visible(state: State, record: dict[str, Any], seat: int) -> bool:
    return record["winner"] == record["auctioneer"] or seat in record["seen_by"]


def _redraw_record(state: State, record: dict[str, Any], seat: int, rng: random.Random) -> None:
    if record["auctioneer"] == seat:
        return  # the auctioneer saw every bid and the amount
    own = [step[seat] for step in record["steps"] if step[seat] is not None]
    if record["winner"] is not None and not _amount_visible(state, record, seat):
        record["amount"] = _hidden_amount(record["open_bid"], max(own, default=0), rng)
    winner_bid = record["amount"] if record["winner"] is not None else None
    record["steps"] = _redrawn_steps(record, seat, winner_bid)


def _hidden_amount(open_bid: int | None, beaten: int, rng: random.Random) -> int:
    """A winning amount the seat did not see: a little above the opening, and above its own bids."""
    guess = round((open_bid or 1) * rng.uniform(1.05, 1.6)) + 1
    return max(guess, beaten + 1)


def _redrawn_steps(auction: dict[str, Any], seat: int, winner_bid: int | None) -> list[list[int | None]]:
    """The bid rounds of an auction as the seat knows them: its own bids, the auctioneer's opening,
    the winner's amount in the last round of a sale and, in a round where the seat was outbid (which it
    knows: it was not asked to bid again), one bid above its own."""
    steps = auction["steps"]
    redrawn = []
    for index, step in enumerate(steps):
        mine = step[seat]
        row: list[int | None] = [None] * len(step)
        if auction["auctioneer"] is not None:
            row[auction["auctioneer"]] = auction["open_bid"]
        row[seat] = mine
        if index == len(steps) - 1 and winner_bid is not None and auction["winner"] != seat:
            row[auction["winner"]] = winner_bid
        elif mine is not None and mine < max(bid for bid in step if bid is not None):
            row[_someone_else(step, seat, auction)] = max(mine, auction["open_bid"] or 0) + 1
        redrawn.append(row)
    return redrawn


def _someone_else(step: list[int | None], seat: int, auction: dict[str, Any]) -> int:
    """A seat other than ``seat`` and the auctioneer to hold the bid that beat the seat's."""
    return next(s for s in range(len(step)) if s not in (seat, auction["auctioneer"]))


def _redraw_auction(auction: dict[str, Any], seat: int, rng: random.Random) -> None:
    if auction["auctioneer"] != seat:
        auction["steps"] = _redrawn_steps({**auction, "winner": None}, seat, None)
    standing = auction["steps"][-1] if auction["steps"] else [None] * len(auction["bids"])
    opening = auction["open_bid"] or 0
    for other in range(len(auction["bids"])):
        if other == seat or other == auction["auctioneer"]:
            continue
        if other in auction["submitted"]:
            auction["bids"][other] = _sealed_bid(opening, auction["open_bid"], rng)
        elif other not in auction["bidders"]:
            auction["bids"][other] = standing[other]


def _sealed_bid(opening: int, forbidden: int | None, rng: random.Random) -> int:
    if rng.random() < SEALED_ZERO_CHANCE and forbidden != 0:
        return 0
    bid = opening + 1 + rng.randrange(max(2, opening))
    return bid + 1 if bid == forbidden else bid
