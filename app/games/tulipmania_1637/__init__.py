"""Tulipmania 1637 (JKLM Games 2009, Scott Nicholson): trade tulips until each colour's bubble bursts."""

from __future__ import annotations

import random
from typing import Any

from app.games.base import N_, Action, GameInfo, Result, State, View
from app.games.tulipmania_1637 import bot, rules
from app.games.tulipmania_1637.view import view as _view


class Tulipmania1637:
    """The engine object the platform registry expects (see ``app.games.base.Engine``)."""

    info = GameInfo(
        id=rules.GAME_ID,
        name_en="Tulipmania 1637",
        name_zh_hant="鬱金香狂熱 1637",
        name_zh_hans="郁金香狂热 1637",
        min_players=3,
        max_players=5,
        minutes="45–60",
        blurb=N_(
            "Sell tulips, speculate through your network of buyers and get out before each colour's "
            "bubble bursts."
        ),
        regions=("board", "market", "sale", "players", "hand", "history", "log"),
    )

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        return rules.setup(players, options, seed)

    def to_act(self, state: State) -> list[int]:
        return rules.to_act(state)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        return rules.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> State:
        return rules.apply(state, seat, action)

    def view(self, state: State, seat: int | None) -> View:
        return _view(state, seat)

    def result(self, state: State) -> Result | None:
        if not state["finished"]:
            return None
        return Result(winners=rules.winners(state), scores=list(state["cash"]))

    def bot_action(self, state: State, seat: int, rng: random.Random) -> Action:
        return bot.bot_action(state, seat, rng)


ENGINE = Tulipmania1637()
