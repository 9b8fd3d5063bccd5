"""Basari's components and rulebook numbers: gems, rounds and scoring, the action cards, and the 39
market cards, read from ``market_deck.json`` (our reconstruction, see that file's note)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.games.base import N_

GAME_ID = "basari"
MIN_PLAYERS, MAX_PLAYERS = 3, 5

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")  # by value, highest first
COLOUR_LETTERS: dict[str, str] = {"red": N_("R"), "yellow": N_("Y"), "green": N_("G"), "blue": N_("B")}
GEMS_PER_COLOUR = 22
START_GEMS_PER_COLOUR = 3
ROUNDS = 3
ROUND_END_WORKERS = 15
WORKER_BONUS = 12
MAJORITY_POINTS: dict[str, int] = {"red": 14, "yellow": 12, "green": 10, "blue": 8}
TIED_LEADER_RETURN = 2

Gems = dict[str, int]


def _load_market_deck() -> dict[int, dict[str, Any]]:
    """The 39 market cards from ``market_deck.json`` (our reconstruction, see that file's note)."""
    data = json.loads(Path(__file__).with_name("market_deck.json").read_text(encoding="utf-8"))
    return {card["id"]: card for card in data["cards"]}


MARKET_CARDS: dict[int, dict[str, Any]] = _load_market_deck()
MOST_WORKERS_ON_A_CARD = max(card["workers"] for card in MARKET_CARDS.values())


def action_cards(players: int) -> tuple[str, ...]:
    """A, B, C for everyone; D too with five players."""
    return ("A", "B", "C", "D") if players == 5 else ("A", "B", "C")
