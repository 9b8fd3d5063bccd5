"""Basari (the card game, Reinhard Staupe 2014): secret actions, bargaining with gems, majorities."""

from __future__ import annotations

from app.games.basari import bot, data, rules, view
from app.games.base import N_, GameInfo, make_engine

INFO = GameInfo(
    id=data.GAME_ID,
    name_en="Basari",
    name_zh_hant="巴撒利市集",
    name_zh_hans="巴撒利市集",
    min_players=data.MIN_PLAYERS,
    max_players=data.MAX_PLAYERS,
    minutes="30",
    blurb=N_(
        "Pick an action in secret, bargain with gems when someone picked the same, "
        "and lead the colours when the market closes."
    ),
    # Then the platform's game log. Only ``decision`` (the seat's forms, its secret choice) is private.
    regions=("summary", "bargain", "decision", "actions", "bank", "players"),
    public_regions=("summary", "bargain", "actions", "bank", "players"),
    log_headings=("Round {round} begins.",),
)

ENGINE = make_engine(INFO, rules=rules, view=view, bot=bot)
