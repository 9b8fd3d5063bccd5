"""Helpers shared by the Tulipmania 1637 secrecy tests (views and rendered pages)."""

from __future__ import annotations

import random

from app.games.base import State
from app.games.tulipmania_1637 import checks


def disguised(state: State, target: int) -> State:
    """The same table except for ``target``'s secrets: buyer colours (swapped with hidden cards), an
    unrevealed card, deck order (``checks.disguise``, the simulator's; the log is shared, untouched)."""
    return checks.disguise(state, target, random.Random(target))[0]
