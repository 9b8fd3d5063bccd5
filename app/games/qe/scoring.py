"""Q.E. final scoring, in the rulebook's order (pure functions over a player's holdings).

A concern of its own, apart from the flow in ``rules.py``: it never reads the game state, only a
sheet's country, token, tiles and zero bids, so the rules score the end of the game with it and the
bot prices a tile by scoring a sheet with and without it.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations
from typing import TypedDict

from app.games.qe import data

CATEGORIES: tuple[str, ...] = (
    "companies",
    "zero_bids",
    "nationalization",
    "monopolization",
    "diversification",
)


def industry_counts(tiles: list[str], token: str) -> Counter[str]:
    """Industries held for Monopolization and Diversification: the tiles plus the secret token."""
    counts = Counter(str(data.TILES[t]["industry"]) for t in tiles)
    counts[token] += 1
    return counts


def nationalization(players: int, country: str, tiles: list[str]) -> int:
    """Points for tiles of the player's own country (the token does not count here)."""
    own = sum(1 for t in tiles if data.TILES[t]["country"] == country)
    table = data.NATIONALIZATION[data.table_size(players)]
    return table[min(own, max(table))] if own else 0


def monopolization(players: int, counts: Counter[str]) -> int:
    """Per industry: 2 / 3 / 4-or-more of a kind."""
    table = data.MONOPOLIZATION[data.table_size(players)]
    top = max(table)
    return sum(table[min(n, top)] for n in counts.values() if n >= min(table))


def diversification(players: int, counts: Counter[str]) -> int:
    """The best split of the holdings into sets of different industries.

    Every way of forming sets is searched (there are at most five industries with five items
    each), because a greedy "largest set first" split can lose points: with 5 players the
    counts 2/2/1/1 make two sets of three (8 + 8 = 16), not one set of four (12).
    """
    table = tuple(sorted(data.DIVERSIFICATION[data.table_size(players)].items()))
    return _best_sets(tuple(sorted(n for n in counts.values() if n > 0)), table)


@lru_cache(maxsize=4096)
def _best_sets(counts: tuple[int, ...], table: tuple[tuple[int, int], ...]) -> int:
    points = dict(table)
    best = 0
    kinds = range(len(counts))
    for size in points:
        for chosen in combinations(kinds, size):
            rest = list(counts)
            for kind in chosen:
                rest[kind] -= 1
            remaining = tuple(sorted(n for n in rest if n > 0))
            best = max(best, points[size] + _best_sets(remaining, table))
    return best


def score_sheet(players: int, country: str, token: str, tiles: list[str], zero_rounds: int) -> dict[str, int]:
    """Every category before the spending step, plus their ``subtotal``."""
    counts = industry_counts(tiles, token)
    sheet = {
        "companies": sum(int(data.TILES[t]["points"]) for t in tiles),
        "zero_bids": data.ZERO_BID_POINTS * zero_rounds,
        "nationalization": nationalization(players, country, tiles),
        "monopolization": monopolization(players, counts),
        "diversification": diversification(players, counts),
    }
    sheet["subtotal"] = sum(sheet[c] for c in CATEGORIES)
    return sheet


class Standings(TypedDict):
    """The spending step's outcome, per seat (``winners``: the seats that share the win)."""

    bonuses: list[int]
    totals: list[int]
    eliminated: list[bool]
    winners: list[int]


def final_standings(players: int, subtotals: list[int], spends: list[int]) -> Standings:
    """Apply the spending step and pick the winners.

    The lowest spenders (all tied) get the bonus; the highest spenders (all tied) are eliminated,
    unless every player spent the same, in which case nobody is. The winner is the highest total
    among the rest; a tie goes to the lower spender; a tie on both is a shared win.
    """
    bonus = data.LOWEST_SPEND_BONUS[data.table_size(players)]
    lowest, highest = min(spends), max(spends)
    bonuses = [bonus if s == lowest else 0 for s in spends]
    totals = [sub + b for sub, b in zip(subtotals, bonuses, strict=True)]
    eliminated = [s == highest and lowest != highest for s in spends]
    contenders = [seat for seat in range(players) if not eliminated[seat]]
    best = max((totals[seat], -spends[seat]) for seat in contenders)
    winners = [seat for seat in contenders if (totals[seat], -spends[seat]) == best]
    return {"bonuses": bonuses, "totals": totals, "eliminated": eliminated, "winners": winners}
