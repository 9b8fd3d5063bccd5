"""Tulip Bubble (郁金香泡沫, Moaideas 2017): speculate on tulips in 1636 Holland, 3–5 players."""

from __future__ import annotations

from app.games.base import N_, GameInfo, make_engine
from app.games.tulip_bubble import bot, data, rules, view

# The market's regions, in page order: the round and prices, the three rows of tulips, the collectors
# and decks, the players.
MARKET_REGIONS = ("board", "next-shipment", "new-arrivals", "just-sold", "collectors", "players")

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
    # then the platform's game log; the market is drawn as one panel from six regions (board.html): a
    # move sends only the parts of it that it changed (a token placed: its row and the players)
    regions=("auction", "decision", "hand", *MARKET_REGIONS, "history"),
    # The phase, the market and the chart are the same for everyone; the decision (placing, bidding,
    # paying) and the hand behind the seat's screen (with its selling decision) are each seat's own.
    public_regions=("auction", *MARKET_REGIONS, "history"),
    log_headings=("Round {round} begins; {seat} is the start player.",),
)

ENGINE = make_engine(INFO, rules=rules, view=view, bot=bot)
