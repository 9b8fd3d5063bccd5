"""What every game's bot shares: the strengths, and the guard that makes a bot's move safe to play.

A game's bot (``app/games/<pkg>/bot.py``) is handed one seat's view and legal-action templates only
(``Engine.decide``). ``safe_decision`` is how the platform and the simulator ask it: a bot that
raises, returns something outside its templates or overruns its budget never stalls a table; the
seat then plays a random legal action instead.

The ``strong`` level is not a game's: it is the search of ``app/bots/search.py``, which plays the
game's normal bot out in worlds that each game's ``determinize`` builds from the seat's view alone.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import Any

from app.bots.search import Search, Thought, strong_action
from app.games.base import (
    DEFAULT_STRENGTH,
    STRENGTHS,
    Action,
    Budget,
    Engine,
    View,
    random_legal_action,
)

log = logging.getLogger(__name__)
GRACE = 1.5  # a decision may run this many budgets before the table stops waiting for it

__all__ = [
    "DEFAULT_STRENGTH",
    "STRENGTHS",
    "Budget",
    "Thought",
    "fits",
    "safe_decision",
    "strength_of",
]


def strength_of(text: Any) -> str:
    """A known strength, or the default for anything else (old rows, a missing value)."""
    return text if text in STRENGTHS else DEFAULT_STRENGTH


def fits(action: Any, legal: list[dict[str, Any]]) -> bool:
    """Whether ``action`` matches one of the templates (types, choices and int ranges; a template's
    ``constraint`` is left for the engine to judge)."""
    if not isinstance(action, dict):
        return False
    for template in legal:
        if template["type"] != action.get("type"):
            continue
        if all(_in_domain(action.get(name), domain) for name, domain in template.get("params", {}).items()):
            return True
    return False


def _in_domain(value: Any, domain: dict[str, Any]) -> bool:
    kind = domain["kind"]
    if kind == "choice":
        return value in domain["options"]
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        top = domain.get("max")
        return (
            value >= domain["min"]
            and (top is None or value <= top)
            and value not in domain.get("exclude", [])
        )
    if kind == "counts":
        return isinstance(value, dict) and all(
            isinstance(value.get(key, 0), int) and 0 <= value.get(key, 0) <= top
            for key, top in domain["max"].items()
        )
    return False


def safe_decision(
    engine: Engine,
    view: View,
    seat: int,
    legal: list[dict[str, Any]],
    rng: random.Random,
    strength: str = DEFAULT_STRENGTH,
    budget: Budget | None = None,
    thought: Thought | None = None,
    search: Search = strong_action,
) -> Action:
    """The bot's move if it gives a fitting one in time, else a random legal action. A ``strong`` bot
    searches worlds drawn from ``view`` with ``search`` (in this process, or the server's worker:
    ``app.bots.apart``; hand it a view without the log, ``view_without_log``, to keep that cheap);
    ``thought``, if given, is told how the decision went (the simulator's figures)."""
    budget = budget or Budget()
    thought = thought if thought is not None else Thought()
    fallback = random.Random()
    fallback.setstate(rng.getstate())  # a copy: the bot's own draws (in its thread) leave it alone
    outcome: list[Action | Exception] = []
    level = strength_of(strength)

    def think() -> None:
        try:
            if level == "strong":
                outcome.append(search(engine, view, seat, legal, rng, budget, thought))
            else:
                outcome.append(engine.decide(view, seat, legal, rng, level, budget))
        except Exception as error:  # a bot bug must cost a move, never the table
            outcome.append(error)

    started = time.perf_counter()
    thinker = threading.Thread(target=think, name=f"bot-{strength}", daemon=True)
    thinker.start()
    thinker.join(GRACE * budget.seconds)
    if not outcome:  # over time: the table moves on; the thread's answer, when it comes, is dropped
        log.warning(
            "the %s bot of %r overran its %.2f s; playing at random", strength, engine, budget.seconds
        )
        thought.fallback = "overran"
        return random_legal_action(legal, fallback)
    action = outcome[0]
    if isinstance(action, Exception):
        log.error("the %s bot of %r failed; playing at random", strength, engine, exc_info=action)
        thought.fallback = "failed"
        return random_legal_action(legal, fallback)
    spent = thought.seconds = time.perf_counter() - started
    if spent > budget.seconds:
        log.info("the %s bot of %r took %.2f s (budget %.2f s)", strength, engine, spent, budget.seconds)
    if not fits(action, legal):
        log.warning(
            "the %s bot of %r chose %r, outside its legal actions; playing at random",
            strength,
            engine,
            action,
        )
        thought.fallback = "unfitting"
        return random_legal_action(legal, fallback)
    return action
