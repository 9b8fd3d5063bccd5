"""Tulip Bubble (郁金香泡沫, Moaideas 2017): speculate on tulips in 1636 Holland, 3–5 players."""

from __future__ import annotations

from app.games.base import N_, GameInfo, make_engine
from app.games.tulip_bubble import bot, data, rules, view

INFO = GameInfo(
    id=data.GAME_ID,
    name_en="Tulip Bubble",
    name_zh_hant="鬱金香泡沫",
    name_zh_hans="郁金香泡沫",
    min_players=data.MIN_PLAYERS,
    max_players=data.MAX_PLAYERS,
    minutes="50–70",
    blurb=N_("Holland, 1636: bid for tulips, sell to collectors, and cash out before the bubble bursts."),
    options=data.OPTIONS,
    regions=("auction", "decision", "hand", "board", "history"),  # then the platform's game log
    # The phase, the market and the chart are the same for everyone; the decision (placing, bidding,
    # paying) and the hand behind the seat's screen (with its selling decision) are each seat's own.
    public_regions=("auction", "board", "history"),
    log_headings=("Round {round} begins; {seat} is the start player.",),
)

ENGINE = make_engine(INFO, rules=rules, view=view, bot=bot)
