"""Tulipmania 1637's rulebook tables: colours, action cards, the set-up table, and the price board as
ONE data table with every price move derived from it.

No public source prints the board's values: ``PRICE_BOARD`` is the reconstruction of the ruling
(cells marked ★ there are stated or forced by the rulebook, the rest are inferred). Every arrow —
purchase, speculate, all players passed, the cheap all-pass and the burst sell-off step — is computed
from the grid's geometry, so replacing the table with the real board needs no code change.

A position is ``(row, column)`` with row 0 the bottom row of the printed board; states store it as a
two-item list.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from app.games.base import N_

GAME_ID = "tulipmania-1637"
MIN_PLAYERS, MAX_PLAYERS = 3, 5

ALL_COLOURS = ("purple", "yellow", "orange", "blue", "red")
COLOUR_NAMES = {
    "purple": N_("purple"),
    "yellow": N_("yellow"),
    "orange": N_("orange"),
    "blue": N_("blue"),
    "red": N_("red"),
}
# The letter each colour carries beside its colour (translated: 紫, 黃, 橙, 藍, 紅 in Chinese).
COLOUR_LETTERS = {"purple": N_("P"), "yellow": N_("Y"), "orange": N_("O"), "blue": N_("B"), "red": N_("R")}

# The action cards, by the number printed on them (Pass counts as 0).
PASS, PURCHASE_BY_PROXY, PURCHASE, SPECULATE_BY_PROXY, SPECULATE = 0, 1, 2, 3, 4
CARDS = (PASS, PURCHASE_BY_PROXY, PURCHASE, SPECULATE_BY_PROXY, SPECULATE)
CARD_NAMES = {
    PASS: N_("Pass"),
    PURCHASE_BY_PROXY: N_("1 – Purchase by proxy"),
    PURCHASE: N_("2 – Purchase"),
    SPECULATE_BY_PROXY: N_("3 – Speculate by proxy"),
    SPECULATE: N_("4 – Speculate"),
}
BUYERS_NEEDED = {PURCHASE_BY_PROXY: 1, SPECULATE_BY_PROXY: 2}
SELLER_CARDS = (PASS, PURCHASE_BY_PROXY, SPECULATE_BY_PROXY)  # never 2 or 4 (ruling 2)

# Set-up summary: players -> (colours used, buyer deck, reserve deck, face-up buyers).
SETUP_TABLE = {3: (3, 11, 4, 2), 4: (4, 14, 6, 2), 5: (5, 18, 7, 3)}
STARTING_CASH = 700
STOCK_PER_COLOUR = 5
BUYERS_PER_COLOUR = 8
BUYERS_DEALT = 3


def tulips_per_colour(players: int) -> int:
    """One per player, the price indicator and the stockpile (9, 10 or 11)."""
    return players + 1 + STOCK_PER_COLOUR


# --- the price board -----------------------------------------------------------------------------

CURRENT = "current"  # white "current price" spaces
TRANSITION = "transition"  # grey "transition price" spaces
BURST = "burst"  # yellow "burst" spaces

# The board as printed, top row first: (kind of space, values of columns c1..c4), in florins.
PRICE_BOARD: tuple[tuple[str, tuple[int, ...]], ...] = (
    (BURST, (3000, 4000, 6000, 8000)),
    (TRANSITION, (2250, 3000, 4500, 6000)),
    (CURRENT, (750, 1000, 1500, 2000)),
    (TRANSITION, (375, 750, 1125, 1500)),
    (CURRENT, (125, 250, 375, 500)),
    (TRANSITION, (75, 150, 225, 300)),
    (CURRENT, (25, 50, 75, 100)),
)
START_PRICE = 50  # every price indicator tulip starts on this space of the bottom row

Position = tuple[int, int]


def _row(row: int) -> tuple[str, tuple[int, ...]]:
    """Row ``row`` counted from the bottom, read from the table at each call (so a replaced table
    takes effect everywhere)."""
    return PRICE_BOARD[len(PRICE_BOARD) - 1 - row]


def rows() -> int:
    return len(PRICE_BOARD)


def columns() -> int:
    return len(PRICE_BOARD[0][1])


def pos(cell: Sequence[int]) -> Position:
    """A position from its stored (list) form."""
    return (int(cell[0]), int(cell[1]))


def value(cell: Sequence[int]) -> int:
    return _row(cell[0])[1][cell[1]]


def kind(cell: Sequence[int]) -> str:
    return _row(cell[0])[0]


def is_burst(cell: Sequence[int]) -> bool:
    """A price on a yellow space: the bubble of that colour bursts."""
    return kind(cell) == BURST


def is_cheap(cell: Sequence[int]) -> bool:
    """On the bottom row there is no pink arrow down: the 'cheap tulip' rule applies (ƒ100 or less)."""
    return cell[0] == 0


def start() -> Position:
    return (0, _row(0)[1].index(START_PRICE))


def purchase_track() -> list[Position]:
    """The green arrows: current spaces in reading order (bottom row first, left to right), then the
    burst spaces, so the last current space leads to the first burst space."""
    return list(_track(PRICE_BOARD))


@lru_cache(maxsize=4)
def _track(table: tuple[tuple[str, tuple[int, ...]], ...]) -> tuple[Position, ...]:
    bottom_up = table[::-1]
    cells = [(r, c) for r, (kind, values) in enumerate(bottom_up) for c in range(len(values))]
    current = [(r, c) for r, c in cells if bottom_up[r][0] == CURRENT]
    burst = [(r, c) for r, c in cells if bottom_up[r][0] == BURST]
    return tuple(current + burst)


def purchase(cell: Sequence[int]) -> Position:
    """Where a purchase (2, 1 or buying from stock) moves the price: along the green arrow."""
    track = _track(PRICE_BOARD)
    return track[track.index(pos(cell)) + 1]


def speculate(cell: Sequence[int]) -> tuple[Position, Position] | None:
    """The gold arrow: (transition space paid, space landed on), or None off the top of the board."""
    row, col = pos(cell)
    if row + 2 >= rows():
        return None
    return (row + 1, col), (row + 2, col)


def lower_current(cell: Sequence[int]) -> Position:
    """The next lower current space on the bottom row (the cheapest space stays put)."""
    track = _track(PRICE_BOARD)
    index = track.index(pos(cell))
    return track[max(index - 1, 0)]


def all_pass(cell: Sequence[int]) -> tuple[int, Position]:
    """When everybody passes: (what the bank pays, where the price lands).

    Above the bottom row the price goes down the pink arrow: the bank pays the transition space below
    and the price lands on the current space below that. On the bottom row (the cheap tulip rule) the
    bank pays the current price and the price moves to the next lower current space.
    """
    row, col = pos(cell)
    if is_cheap(cell):
        return value(cell), lower_current(cell)
    return value((row - 1, col)), (row - 2, col)


def sell_off_step(cell: Sequence[int]) -> Position:
    """One step of a burst sell-off: one row down the same column (transition spaces included); on the
    bottom row the next lower current space, the cheapest being the floor (ruling: the seed is silent)."""
    row, col = pos(cell)
    if row == 0:
        return lower_current(cell)
    return (row - 1, col)
