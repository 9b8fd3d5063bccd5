"""Q.E. (Gavin Birnbaum): bid any amount for companies; whoever spends the most is eliminated."""

from __future__ import annotations

import random
from typing import Any

from app.games.base import N_, Action, GameInfo, Result, State, View
from app.games.qe import bot, rules
from app.games.qe.view import view as _view

INFO = GameInfo(
    id=rules.GAME_ID,
    name_en="Q.E.",
    name_zh_hant="量化寬鬆",
    name_zh_hans="量化宽松",
    min_players=3,
    max_players=5,
    minutes="45",
    blurb=N_(
        "Central banks print money to bail out companies: bid any amount, but the biggest spender loses."
    ),
    regions=("auction", "sheet", "players", "log"),
)


class QEEngine:
    """The Q.E. rules behind the ``base.Engine`` contract."""

    info = INFO

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        return rules.setup(players, seed)

    def to_act(self, state: State) -> list[int]:
        return rules.to_act(state)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        return rules.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> State:
        return rules.apply(state, seat, action)

    def view(self, state: State, seat: int | None) -> View:
        return _view(state, seat)

    def result(self, state: State) -> Result | None:
        return rules.result(state)

    def bot_action(self, state: State, seat: int, rng: random.Random) -> Action:
        return bot.bot_action(state, seat, rng)


ENGINE = QEEngine()
