"""The games' ``coach`` modules, found by game id, and an option said in the reader's language."""

from __future__ import annotations

import logging
from importlib import import_module
from types import ModuleType
from typing import Any, cast

from app.games.base import Action, View
from app.games.registry import package_of

log = logging.getLogger(__name__)

Message = tuple[str, dict[str, Any]]


def coach_of(game_id: str) -> ModuleType | None:
    """The game's ``coach`` module (``app/games/<pkg>/coach.py``); None for a game without one, whose
    options are then said by their templates' labels."""
    try:
        return import_module(f"app.games.{package_of(game_id)}.coach")
    except ModuleNotFoundError:
        return None


def option_message(
    game_id: str, action: Action, view: View, seat: int, legal: list[dict[str, Any]]
) -> Message:
    """``action`` as a player says it: the game's own words ("Bid 12"), else its template's label."""
    coach = coach_of(game_id)
    said = None if coach is None else cast(Message | None, coach.describe(action, view, seat))
    if said is not None:
        return said
    label = next((t["label"] for t in legal if t["type"] == action.get("type")), action.get("type", ""))
    return str(label), {}


def decision_notes(game_id: str, view: View, seat: int, legal: list[dict[str, Any]]) -> list[Message]:
    """The coach's notes on this decision (its ``notes``), in messages to translate; none for a game
    without a coach."""
    coach = coach_of(game_id)
    return [] if coach is None else cast(list[Message], coach.notes(view, seat, legal))


def coach_notes(
    game_id: str, view: View, seat: int, legal: list[dict[str, Any]]
) -> tuple[Message, ...] | None:
    """What the coach's region shows a seat (``render.COACH``): its notes on the decision before it,
    from its view alone; None when ``legal`` is empty (no decision of the seat's now). A tuple,
    compared as a whole by the region cache: the region is drawn again when a note changes."""
    if not legal:
        return None
    try:
        return tuple(decision_notes(game_id, view, seat, legal))
    except Exception:  # a coach's bug costs its notes (the panel and its hint stay), never the page
        log.exception("the coach of %s failed at seat %s", game_id, seat)
        return ()
