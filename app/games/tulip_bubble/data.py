"""Tulip Bubble game data: the game's id, player counts and options, the price table, the tulip deck
(and how to read a card id), market cards and collectors.

Numbers come from ``shared/rulings/tulip-bubble.md`` (which settles the Young Lady's bonus at 15).
"""

from __future__ import annotations

from functools import lru_cache

from app.games.base import N_, GameOption

GAME_ID = "tulip-bubble"
MIN_PLAYERS, MAX_PLAYERS = 3, 5

JOINING_MID_GAME = "joining_mid_game"
NO_MARGIN_TRADING = "no_margin_trading"
OPTIONS: tuple[GameOption, ...] = (
    GameOption(
        key=JOINING_MID_GAME,
        label=N_("Joining mid-game"),
        help=N_("Prices react to the dealt market once before the first round."),
    ),
    GameOption(
        key=NO_MARGIN_TRADING,
        label=N_("No margin trading"),
        help=N_("Mortgaged tulips must be redeemed with cash before they can be sold."),
    ),
)

COLOURS: tuple[str, ...] = ("red", "white", "yellow")
COLOUR_NAMES: dict[str, str] = {"red": N_("red"), "white": N_("white"), "yellow": N_("yellow")}
# A colour's initial, shown with its colour everywhere (on cards, markers, charts). Translated: the
# Chinese editions use the colour's own character (红/白/黄).
COLOUR_LETTERS: dict[str, str] = {"red": N_("R"), "white": N_("W"), "yellow": N_("Y")}

LEVELS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
LEVEL_NUMERALS: dict[int, str] = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII"}
START_LEVELS: tuple[int, ...] = (2, 3, 4)

# Market price by grade, indexed by price level I..VII.
PRICE_TABLE: dict[str, tuple[int, ...]] = {
    "A": (15, 15, 15, 20, 26, 33, 40),
    "B": (3, 5, 7, 10, 13, 16, 20),
    "C": (1, 3, 5, 7, 9, 11, 13),
}

# Varieties per colour and how many copies of each: 2 + 3 * 5 = 17 cards a colour.
VARIETY_COPIES: dict[str, int] = {"A": 2, "B1": 3, "B2": 3, "C1": 3, "C2": 3, "C3": 3}

CARD_LABELS: dict[tuple[str, str], str] = {
    ("red", "A"): N_("Red A"),
    ("red", "B1"): N_("Red B1"),
    ("red", "B2"): N_("Red B2"),
    ("red", "C1"): N_("Red C1"),
    ("red", "C2"): N_("Red C2"),
    ("red", "C3"): N_("Red C3"),
    ("white", "A"): N_("White A"),
    ("white", "B1"): N_("White B1"),
    ("white", "B2"): N_("White B2"),
    ("white", "C1"): N_("White C1"),
    ("white", "C2"): N_("White C2"),
    ("white", "C3"): N_("White C3"),
    ("yellow", "A"): N_("Yellow A"),
    ("yellow", "B1"): N_("Yellow B1"),
    ("yellow", "B2"): N_("Yellow B2 (Lily-flowered)"),
    ("yellow", "C1"): N_("Yellow C1"),
    ("yellow", "C2"): N_("Yellow C2"),
    ("yellow", "C3"): N_("Yellow C3"),
}

START_CASH = 20
TOKENS_PER_PLAYER = 3
BLACK_TULIP_PRICE = 120
MAX_BID_DIGITS = 9  # a bid may exceed one's cash (3-2-1), but not run to thousands of digits
FIRST_TURN_TOKENS = 2
SECOND_TURN_TOKENS = 1

# Market cards: kind -> (label, effect). "rise:<colour>" raises that colour by one level.
MARKET_DECK: tuple[str, ...] = (
    "rise:red",
    "rise:red",
    "rise:white",
    "rise:white",
    "rise:yellow",
    "rise:yellow",
    "surge",
    "plunge",
    "plunge",
    "plunge",
)
BUBBLE_BURST = "burst"
BURST_SHUFFLED_WITH = 2  # Bubble Burst is shuffled with the bottom two cards
MARKET_CARD_NAMES: dict[str, str] = {
    "rise:red": N_("Rise (red)"),
    "rise:white": N_("Rise (white)"),
    "rise:yellow": N_("Rise (yellow)"),
    "surge": N_("Surge"),
    "plunge": N_("Plunge"),
    "burst": N_("Bubble Burst"),
}
SURGE_LEVELS = 2
PLUNGE_LEVELS = 2
RISE_LEVELS = 1

# Collectors. "colours": "same" (one colour) or "different" (three colours). "slots": one per card,
# either an exact variety ("B1"), a grade ("C" = any C variety) or "=" (all three the same variety).
COLLECTORS: dict[str, dict[str, object]] = {
    "nobleman": {
        "name": N_("Nobleman"),
        "bonus": 20,
        "colours": "same",
        "slots": ("A", "B1", "B2"),
        "order": N_("A, B1 and B2 of one colour"),
    },
    "crusader": {
        "name": N_("Crusader"),
        "bonus": 15,
        "colours": "same",
        "slots": ("B", "B", "B"),
        "order": N_("three B tulips of one colour"),
    },
    "madame": {
        "name": N_("Madame"),
        "bonus": 15,
        "colours": "different",
        "slots": ("B", "B", "B"),
        "order": N_("three B tulips of three colours"),
    },
    "young_lady": {
        "name": N_("Young Lady"),
        "bonus": 15,
        "colours": "same",
        "slots": ("B1", "B2", "C"),
        "order": N_("B1, B2 and one C of one colour"),
    },
    "servant": {
        "name": N_("Servant"),
        "bonus": 10,
        "colours": "same",
        "slots": ("C1", "C2", "C3"),
        "order": N_("C1, C2 and C3 of one colour"),
    },
    "scholar": {
        "name": N_("Scholar"),
        "bonus": 10,
        "colours": "different",
        "slots": ("=", "=", "="),
        "order": N_(
            "one red, one white and one yellow of the same grade and number (say three C2, or three A)"
        ),
    },
    "young_man": {
        "name": N_("Young Man"),
        "bonus": 10,
        "colours": "same",
        "slots": ("C", "C", "C"),
        "order": N_("three C tulips of one colour"),
    },
    "tavern_keeper": {
        "name": N_("Tavern Keeper"),
        "bonus": 10,
        "colours": "different",
        "slots": ("C", "C", "C"),
        "order": N_("three C tulips of three colours"),
    },
}
COLLECTOR_PILES: tuple[int, ...] = (20, 15, 10)  # one face-down pile per bonus, top card revealed

ROWS: tuple[str, ...] = ("next_shipment", "new_arrivals", "just_sold")
ROW_NAMES: dict[str, str] = {
    "next_shipment": N_("Next Shipment"),
    "new_arrivals": N_("New Arrivals"),
    "just_sold": N_("Just Sold"),
}
AUCTION_ROWS: tuple[str, ...] = ("new_arrivals", "just_sold")  # bid on and resolved in this order


def all_tulips() -> list[str]:
    """The 51 tulip card ids, ``<colour>-<variety>-<copy>``."""
    return [
        f"{colour}-{variety}-{copy}"
        for colour in COLOURS
        for variety, copies in VARIETY_COPIES.items()
        for copy in range(1, copies + 1)
    ]


# A card id is parsed once: views and bots ask these of every card on the table at every decision. The
# caches are bounded, since a refused action may name any string.
CARD_CACHE = 1024


@lru_cache(maxsize=CARD_CACHE)
def colour_of(card: str) -> str:
    return card.split("-")[0]


@lru_cache(maxsize=CARD_CACHE)
def variety_of(card: str) -> str:
    return card.split("-")[1]


@lru_cache(maxsize=CARD_CACHE)
def grade_of(card: str) -> str:
    return variety_of(card)[0]


@lru_cache(maxsize=CARD_CACHE)
def label_of(card: str) -> str:
    """The translatable display name of a card ("Red B1")."""
    return CARD_LABELS[(colour_of(card), variety_of(card))]
