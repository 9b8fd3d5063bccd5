"""A Q.E. table as one seat may imagine it, for the strong bot's search (``app/bots/search.py``).

``determinize(view, seat, rng)`` builds a state from the seat's view alone: it keeps everything the view
shows and draws from ``rng`` everything it does not: the other seats' industry tokens, the order of
the tiles to come, the winning amounts it did not see and the other seats' sealed bids. Of a past
auction's bid rounds it writes what the seat knows (its own bids, the auctioneer's opening, the
winner's amount if seen, and a bid level with its own in a round that it was tied in, or just above it
in one that it lost); the auctioneer's own auctions it copies whole (it saw every bid).
``tests/bots/test_search.py`` checks that the world shows the seat its view unchanged. ``SEARCH`` has
the search play its best mean.
"""

from __future__ import annotations

import random
from typing import Any

from app.games import base
from app.games.base import SearchHooks, State, View
from app.games.qe import data

SEALED_ZERO_CHANCE = 0.3  # how often a drawn sealed bid is a zero bid

# The search plays the candidate with the best mean. Measured both ways on the same seeded games
# (BENCHMARKS.md, 16 playouts a decision, 240 games a row): strong against three normal bots won
# 52.7% ± 6.3 so, 35.8% ± 6.1 keeping the normal bot's move unless clearly beaten; normal against
# three strong won 10.4% ± 3.9 so, 15.8% ± 4.6 with the caution.
SEARCH = SearchHooks(best_mean=True)


def determinize(view: View, seat: int, rng: random.Random) -> State:
    """A state the seat cannot tell from the table it sees in ``view``, what it cannot see drawn from ``rng``."""
    players = view["players"]
    token = view["sheet"]["token"]
    others = [s for s in range(players) if s != seat]
    unseen_tokens = sorted(t for t in data.industry_tokens(players) if t != token)
    rng.shuffle(unseen_tokens)
    tokens = [token] * players
    for other, drawn in zip(others, unseen_tokens, strict=False):
        tokens[other] = drawn
    deck = sorted(tile["id"] for tile in view["remaining_tiles"])
    rng.shuffle(deck)
    world = base.new_state(data.GAME_ID, players, {}, rng.getrandbits(64))
    world.update(
        {
            "countries": [entry["country"] for entry in view["table"]],
            "tokens": tokens,
            "deck": deck,
            "first_auctioneer": view["first_auctioneer"],
            "turn": view["turn"] - 1,
            "turns": view["turns"],
            "phase": view["phase"],
            "auction": None if view["auction"] is None else _auction(view["auction"], players, seat, rng),
            "auctions": [_record(entry, players, seat, rng) for entry in view["history"]],
            "zero_rounds": [[number - 1 for number in entry["zero_rounds"]] for entry in view["table"]],
            "peek_used": [entry["peek_used"] for entry in view["table"]],
            "final": None,
        }
    )
    return world


def _record(entry: dict[str, Any], players: int, seat: int, rng: random.Random) -> dict[str, Any]:
    """A past auction: its winning amount drawn if the seat did not see it."""
    auctioneer, winner = entry["auctioneer"], entry["winner"]
    amount = entry["amount"]
    if winner is not None and not entry["amount_visible"]:
        amount = _hidden_amount(entry["open_bid"], max(entry["your_bids"], default=0), rng)
    if entry["all_bids"] is not None:
        steps = base.copy_plain(entry["all_bids"])
    else:
        steps = _known_steps(entry, players, seat, len(entry["your_bids"]), rebidding=False)
        if steps and winner is not None and winner not in (seat, auctioneer):
            steps[-1][winner] = amount
    if winner is None:
        seen_by: list[int] = []
    elif winner == auctioneer:
        seen_by = list(range(players))
    else:
        seen = {winner, seat} if entry["amount_visible"] else {winner}
        seen_by = sorted(seen | ({auctioneer} if auctioneer is not None else set()))
    return {
        **_opening(entry),
        "steps": steps,
        "winner": winner,
        "amount": amount,
        "seen_by": seen_by,
        "zero_bids": list(entry["zero_bids"]),
        "zero_scored": list(entry["zero_scored"]),
    }


def _opening(entry: dict[str, Any]) -> dict[str, Any]:
    """What the state says of an auction as it opened (the view counts auctions and rounds from 1)."""
    return {
        "number": entry["number"] - 1,
        "round": entry["round"] - 1,
        "tile": entry["tile"]["id"],
        "auctioneer": entry["auctioneer"],
        "open_bid": entry["open_bid"],
    }


def _auction(entry: dict[str, Any], players: int, seat: int, rng: random.Random) -> dict[str, Any]:
    """The auction under way: the sealed bids the seat has not seen drawn, the standing ones kept."""
    auctioneer = entry["auctioneer"]
    if entry["all_bids"] is not None:
        steps = base.copy_plain(entry["all_bids"])
    else:
        steps = _known_steps(entry, players, seat, entry["ties"], rebidding=seat in entry["bidders"])
    standing = steps[-1] if steps else [None] * players
    bids: list[int | None] = [None] * players
    for other in range(players):
        if other == auctioneer:
            continue
        if other == seat:
            bids[other] = entry["your_bid"]
        elif other in entry["submitted"]:
            bids[other] = _sealed_bid(entry["open_bid"] or 0, entry["open_bid"], rng)
        elif other not in entry["bidders"]:
            bids[other] = standing[other]
    return {
        **_opening(entry),
        "bids": bids,
        "bidders": list(entry["bidders"]),
        "submitted": list(entry["submitted"]),
        "ties": entry["ties"],
        "steps": steps,
    }


def _known_steps(
    entry: dict[str, Any], players: int, seat: int, rounds: int, rebidding: bool
) -> list[list[int | None]]:
    """``rounds`` bid rounds as a bidder knows them: its own bid in each (its last one standing once it
    is out of a tie), the auctioneer's opening, and another seat level with it in every round that it
    was tied in (it bid again after it, or ``rebidding`` now) or just above it in one that it lost."""
    own: list[int] = entry["your_bids"]
    auctioneer, opening = entry["auctioneer"], entry["open_bid"]
    rival = next(s for s in range(players) if s not in (seat, auctioneer))
    steps = []
    for index in range(max(rounds, len(own))):
        row: list[int | None] = [None] * players
        if auctioneer is not None:
            row[auctioneer] = opening
        mine = own[min(index, len(own) - 1)] if own else None
        row[seat] = mine
        tied = index < len(own) - 1 or (rebidding and index == len(own) - 1)
        if mine is not None:
            row[rival] = mine if tied else max(mine, opening or 0) + 1
        steps.append(row)
    return steps


def _hidden_amount(open_bid: int | None, beaten: int, rng: random.Random) -> int:
    """A winning amount the seat did not see: a little above the opening, and above its own bids."""
    guess = round((open_bid or 1) * rng.uniform(1.05, 1.6)) + 1
    return max(guess, beaten + 1)


def _sealed_bid(opening: int, forbidden: int | None, rng: random.Random) -> int:
    if rng.random() < SEALED_ZERO_CHANCE and forbidden != 0:
        return 0
    bid = opening + 1 + rng.randrange(max(2, opening))
    return bid + 1 if bid == forbidden else bid
