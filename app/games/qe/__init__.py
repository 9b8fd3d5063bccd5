"""Q.E. (Gavin Birnbaum): bid any amount for companies; whoever spends the most is eliminated."""

from __future__ import annotations

from app.games.base import N_, GameInfo, make_engine
from app.games.qe import bot, data, rules, view

INFO = GameInfo(
    id=data.GAME_ID,
    name_en="Q.E.",
    name_zh_hant="量化寬鬆",
    name_zh_hans="量化宽松",
    min_players=data.MIN_PLAYERS,
    max_players=data.MAX_PLAYERS,
    minutes="45",
    blurb=N_(
        "Central banks print money to bail out companies: bid any amount, but the biggest spender loses."
    ),
    # then the platform's game log. Public: drawn once from the spectators' view for every viewer;
    # the seat's own part of the table (its decision, sheet and notes) is private and small.
    regions=("decision", "auction", "sheet", "players", "sales", "notes"),
    public_regions=("auction", "players", "sales"),
    # the second: the same line as games logged it before it was reworded (no "1 points")
    log_headings=(
        "{seat} reveals {country} {industry} (points: {points}).",
        "{seat} reveals {country} {industry} ({points} points).",
    ),
)

ENGINE = make_engine(INFO, rules=rules, view=view, bot=bot)
