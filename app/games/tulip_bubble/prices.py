"""Tulip Bubble's price track, a concern of its own: what a tulip is worth at its colour's price level,
how the price markers move (ruling 2) and supply and demand (ruling 3).

Pure arithmetic over the levels and the rows that never looks at whose turn it is: the flow
(``rules.py``) moves the markers, the view shows the prices, and the bot replays these moves on a
copy of the levels to forecast what a tulip will fetch.
"""

from __future__ import annotations

from collections import Counter

from app.games.base import State
from app.games.tulip_bubble.data import (
    COLOURS,
    LEVELS,
    PRICE_TABLE,
    ROWS,
    colour_of,
    grade_of,
)


def price_at(grade: str, level: int) -> int:
    return PRICE_TABLE[grade][level - 1]


def market_price(state: State, card: str) -> int:
    """A card's market value: its colour's price level crossed with its grade."""
    return price_at(grade_of(card), state["levels"][colour_of(card)])


# --- price markers ---------------------------------------------------------------------------


def move_marker(levels: dict[str, int], colour: str, steps: int) -> None:
    """Move one colour's price marker by ``steps`` levels (negative: down), in place.

    A level holds one marker: a marker landing on another keeps going the same way. If that runs
    past I or VII it settles on the nearest free level back toward where it started, which may be
    its own level (ruling 2; the rulebook's Rise, Surge and Plunge examples).
    """
    if steps == 0:
        return
    direction = 1 if steps > 0 else -1
    taken = {level for other, level in levels.items() if other != colour}
    target = levels[colour] + steps
    while LEVELS[0] <= target <= LEVELS[-1] and target in taken:
        target += direction
    if not LEVELS[0] <= target <= LEVELS[-1]:
        target = LEVELS[-1] if direction > 0 else LEVELS[0]
        while target in taken:
            target -= direction
    levels[colour] = target


def lowest_colour(levels: dict[str, int]) -> str:
    return min(COLOURS, key=lambda colour: levels[colour])


def highest_colour(levels: dict[str, int]) -> str:
    return max(COLOURS, key=lambda colour: levels[colour])


def row_counts(state: State) -> dict[str, int]:
    """How many tulips of each colour lie in the three rows."""
    counts = Counter(colour_of(card) for row in ROWS for card in state["rows"][row])
    return {colour: counts.get(colour, 0) for colour in COLOURS}


def supply_and_demand(levels: dict[str, int], counts: dict[str, int]) -> None:
    """End-phase price reaction, in place (ruling 3).

    All colours equal: no change. Otherwise every most-numerous colour moves down one level, then
    every least-numerous colour up one; of two markers moving the same way, the one further along
    that way moves first.
    """
    most, least = max(counts.values()), min(counts.values())
    if most == least:
        return
    falling = sorted((c for c in COLOURS if counts[c] == most), key=lambda c: levels[c])
    for colour in falling:
        move_marker(levels, colour, -1)
    rising = sorted((c for c in COLOURS if counts[c] == least), key=lambda c: -levels[c])
    for colour in rising:
        move_marker(levels, colour, 1)
