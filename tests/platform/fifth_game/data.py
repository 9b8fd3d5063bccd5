"""Fifth guess's components: the numbers a seat may pick and the length of a game."""

from __future__ import annotations

GAME_ID = "fifth-guess"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
ROUNDS = 3
NUMBERS = (1, 2, 3)
