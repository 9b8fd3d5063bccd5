"""Fifth guess: a throwaway fifth game, written as a game's own files (``tests/platform/test_fifth_game.py``
copies this package to ``app/games/fifth_guess/`` and ``templates/`` to ``templates/games/fifth-guess/``).

Each round every seat secretly picks 1, 2 or 3; the highest pick nobody else made scores a point.
Its modules import each other relatively, so they work both here and where the test puts them.
"""

from __future__ import annotations

from app.games.base import N_, GameInfo, make_engine

from . import bot, data, rules, view

INFO = GameInfo(
    id=data.GAME_ID,
    name_en="Fifth guess",
    name_zh_hant="第五猜",
    name_zh_hans="第五猜",
    min_players=data.MIN_PLAYERS,
    max_players=data.MAX_PLAYERS,
    minutes="2",
    blurb=N_("A throwaway game that proves a game lives in its own folders."),
)

ENGINE = make_engine(INFO, rules=rules, view=view, bot=bot)
