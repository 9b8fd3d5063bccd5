"""Fifth guess's bot: ``normal`` picks the highest number, ``easy`` any."""

from __future__ import annotations

import random
from typing import Any

from app.games.base import Action, Budget, View

from .data import NUMBERS


def bot_action(
    view: View, seat: int, legal: list[dict[str, Any]], rng: random.Random, strength: str, budget: Budget
) -> Action:
    return {"type": "pick", "number": max(NUMBERS) if strength == "normal" else rng.choice(NUMBERS)}
