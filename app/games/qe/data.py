"""Q.E. game data: company tiles, removals per player count and scoring tables.

Transcribed from ``shared/rulings/qe.md`` (which corrects the seed rulebook's scoring tables).
"""

from __future__ import annotations

from functools import cache

from app.games.base import N_

GAME_ID = "qe"
MIN_PLAYERS, MAX_PLAYERS = 3, 5

USA, EU, CHINA, JAPAN, UK = "USA", "EU", "China", "Japan", "UK"
AGRICULTURE, HOUSING, FINANCIAL, MANUFACTURING, GOVERNMENT = (
    "agriculture",
    "housing",
    "financial",
    "manufacturing",
    "government",
)

COUNTRY_NAMES: dict[str, str] = {
    USA: N_("USA"),
    EU: N_("EU"),
    CHINA: N_("China"),
    JAPAN: N_("Japan"),
    UK: N_("UK"),
}
INDUSTRY_NAMES: dict[str, str] = {
    AGRICULTURE: N_("Agriculture"),
    HOUSING: N_("Housing"),
    FINANCIAL: N_("Financial"),
    MANUFACTURING: N_("Manufacturing"),
    GOVERNMENT: N_("Government"),
}
INDUSTRIES: tuple[str, ...] = tuple(INDUSTRY_NAMES)

# (country, industry) -> victory points; all 21 company tiles.
COMPANY_POINTS: dict[tuple[str, str], int] = {
    (USA, AGRICULTURE): 4,
    (USA, HOUSING): 1,
    (USA, FINANCIAL): 2,
    (USA, MANUFACTURING): 3,
    (CHINA, AGRICULTURE): 2,
    (CHINA, HOUSING): 3,
    (CHINA, FINANCIAL): 4,
    (CHINA, MANUFACTURING): 1,
    (CHINA, GOVERNMENT): 4,
    (JAPAN, AGRICULTURE): 3,
    (JAPAN, HOUSING): 4,
    (JAPAN, FINANCIAL): 1,
    (JAPAN, MANUFACTURING): 2,
    (JAPAN, GOVERNMENT): 3,
    (EU, AGRICULTURE): 1,
    (EU, HOUSING): 2,
    (EU, FINANCIAL): 3,
    (EU, MANUFACTURING): 4,
    (UK, AGRICULTURE): 3,
    (UK, FINANCIAL): 4,
    (UK, GOVERNMENT): 2,
}


def tile_id(country: str, industry: str) -> str:
    return f"{country}-{industry}"


TILES: dict[str, dict[str, str | int]] = {
    tile_id(country, industry): {
        "id": tile_id(country, industry),
        "country": country,
        "industry": industry,
        "points": points,
    }
    for (country, industry), points in COMPANY_POINTS.items()
}


def tiles_in_play(players: int) -> list[str]:
    """The company tiles used with this many players (16 with 3–4, 15 with 5), in table order."""
    if players == 5:
        removed = {tile_id(JAPAN, AGRICULTURE), tile_id(CHINA, FINANCIAL)}
        return [t for t, tile in TILES.items() if tile["points"] != 1 and t not in removed]
    removed = {tile_id(JAPAN, GOVERNMENT), tile_id(CHINA, GOVERNMENT)}
    return [t for t, tile in TILES.items() if tile["country"] != UK and t not in removed]


def countries_in_play(players: int) -> list[str]:
    """The player boards on offer; with 3 players one of the four is dealt to nobody."""
    return [USA, EU, CHINA, JAPAN, UK] if players == 5 else [USA, EU, CHINA, JAPAN]


def industry_tokens(players: int) -> list[str]:
    """Industry tokens in the game; Government only with 5 (with 3 players one stays unused)."""
    return list(INDUSTRIES) if players == 5 else [i for i in INDUSTRIES if i != GOVERNMENT]


@cache
def auction_count(players: int) -> int:
    """16 auctions with 3–4 players, 15 with 5 (one per company tile); counted once a player count,
    as every view asks it three times."""
    return len(tiles_in_play(players))


# Scoring tables, keyed "small" (3–4 players) and "large" (5 players).
NATIONALIZATION: dict[str, dict[int, int]] = {
    "small": {1: 1, 2: 3, 3: 6, 4: 10},
    "large": {1: 3, 2: 6, 3: 10},
}
# Monopolization per industry: 2 / 3 / 4 or more (tiles plus the matching token).
MONOPOLIZATION: dict[str, dict[int, int]] = {
    "small": {2: 3, 3: 6, 4: 10},
    "large": {2: 6, 3: 10, 4: 16},
}
# Diversification per set of different industries: 3 / 4 / 5.
DIVERSIFICATION: dict[str, dict[int, int]] = {
    "small": {3: 4, 4: 8},
    "large": {3: 8, 4: 12, 5: 17},
}
ZERO_BID_POINTS = 2
LOWEST_SPEND_BONUS: dict[str, int] = {"small": 6, "large": 7}
MAX_BID_DIGITS = 30
LARGEST_BID = 10**MAX_BID_DIGITS - 1


def table_size(players: int) -> str:
    return "large" if players == 5 else "small"
