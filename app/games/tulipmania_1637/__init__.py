"""Tulipmania 1637 (JKLM Games 2009, Scott Nicholson): trade tulips until each colour's bubble bursts."""

from __future__ import annotations

from app.games.base import N_, GameInfo, make_engine
from app.games.tulipmania_1637 import bot, data, rules, view

INFO = GameInfo(
    id=data.GAME_ID,
    name_en="Tulipmania 1637",
    name_zh_hant="鬱金香狂熱 1637",
    name_zh_hans="郁金香狂热 1637",
    min_players=data.MIN_PLAYERS,
    max_players=data.MAX_PLAYERS,
    minutes="45–60",
    blurb=N_(
        "Sell tulips, speculate through your network of buyers and get out before each colour's "
        "bubble bursts."
    ),
    # then the platform's game log; the decision (this seat's controls, warnings and sealed card) and
    # the hand (its buyer colours) are drawn per seat, everything else once for every viewer
    regions=("decision", "board", "market", "sale", "players", "hand", "history"),
    public_regions=("board", "market", "sale", "players", "history"),
    log_headings=("{seat} holds the current player card.", "{seat} takes the current player card."),
)

ENGINE = make_engine(INFO, rules=rules, view=view, bot=bot)
