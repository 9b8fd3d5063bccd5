"""Hints from the search: a seat's options weighed in playouts from worlds drawn from its view.

The same weighing as the strong bot's (``app.bots.search.weigh``: the same candidates, each round in
the same world with the same draws), except that every playout goes to the game's end (a game's
search horizon is dropped), so each option's figure is a share of games won that a player can read.
It is handed the seat's view and legal actions only, never the state: a hint cannot tell anything
the seat could not see (``tests/platform/test_hints.py`` changes every other seat's secrets and
finds every hint unchanged).
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass, replace
from typing import Any

from app.bots.search import Candidate, Floor, weigh
from app.games.base import Action, Budget, Engine, State, View, view_without_log
from app.games.registry import ENGINES, search_hooks_of

HINT_CANDIDATES = 4  # the normal bot's move and three others: more would each get fewer playouts
HINT_PLAYOUTS = 40  # an option's playouts: the search stops there (an idle host gets there early)
# A hint answers within 2 s on a busy machine: its clock runs from the ask (the wait for a worker
# included); after its seconds no new playout starts...
HINT_BUDGET = Budget(seconds=1.4, iterations=HINT_CANDIDATES * HINT_PLAYOUTS)
HINT_FLOOR_ROUNDS = 1  # ...but the first round (every option played out once) goes on...
HINT_HARD_SECONDS = 1.6  # ...until this: the answer then rests on what the playouts have
OPTIONS_SHOWN = 3


@dataclass(frozen=True)
class Weighed:
    """One option and what the playouts said of it."""

    action: Action
    playouts: int  # played to the game's end after this option
    won: float | None  # the seat's share of those playouts' wins (None: not played out)
    only: bool = False  # the seat's only move (not weighed); else, unweighed, no playout ended in time


def hint_seed(code: str, version: int, seat: int) -> int:
    """The draws of one seat's hint at one moment of one room: asking again gives the same hint.
    Never the room's seed, which foretells every hidden card."""
    digest = hashlib.blake2b(f"{code}:{version}:{seat}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def weigh_options(
    game_id: str,
    view: View,
    seat: int,
    legal: list[dict[str, Any]],
    seed: int,
    budget: Budget = HINT_BUDGET,
    deadline: float = math.inf,
    hard_deadline: float | None = None,
) -> list[Weighed]:
    """The seat's best options, best first (at most ``OPTIONS_SHOWN``), weighed from ``view`` alone
    within ``budget`` (its playouts) and ``deadline`` (``time.monotonic``), which cannot cut the
    first round of playouts before ``hard_deadline`` (by default ``HINT_HARD_SECONDS`` from now)."""
    engine = ENGINES[game_id]
    hooks = replace(search_hooks_of(game_id), playout_over=None, position_value=None)
    hard = time.monotonic() + HINT_HARD_SECONDS if hard_deadline is None else hard_deadline
    floor = Floor(HINT_FLOOR_ROUNDS, max(hard, deadline))
    rng = random.Random(seed)
    candidates = weigh(
        engine, view, seat, legal, rng, budget, deadline, hooks, floor=floor, most=HINT_CANDIDATES
    )
    return ranked(candidates)[:OPTIONS_SHOWN]


def ranked(candidates: list[Candidate]) -> list[Weighed]:
    """The candidates the rules took, by their share of games won (then by their mean score, which
    also counts the rivals outscored); a lone candidate (the only move) unweighed, and so the normal
    bot's move (the first) when no playout ended in time."""
    if len(candidates) == 1:
        return [Weighed(candidates[0].action, 0, None, only=True)]
    played = [c for c in candidates if c.wins and not c.refused]
    if not played:
        return [Weighed(candidates[0].action, 0, None)]
    played.sort(key=lambda c: (c.win_share or 0.0, c.mean), reverse=True)
    return [Weighed(c.action, len(c.wins), c.win_share) for c in played]


def hint_for(
    engine: Engine,
    core: State,
    seat: int,
    seed: int,
    budget: Budget = HINT_BUDGET,
    seconds: float | None = None,
) -> list[Weighed]:
    """``weigh_options`` for ``seat`` at the table ``core``: handed that seat's view and legal
    actions, nothing else of the state."""
    view = view_without_log(engine, core, seat)
    legal = engine.legal_actions(core, seat)
    deadline = math.inf if seconds is None else time.monotonic() + seconds
    return weigh_options(engine.info.id, view, seat, legal, seed, budget, deadline)
