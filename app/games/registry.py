"""The games Bourse offers, by id."""

from __future__ import annotations

import random
from collections.abc import Callable
from importlib import import_module
from typing import cast

from app.games.base import Checks, Engine, SearchHooks, State, View

# game id -> the package under app.games that exports ENGINE
_PACKAGES = {
    "tulip-bubble": "tulip_bubble",
    "basari": "basari",
    "tulipmania-1637": "tulipmania_1637",
    "qe": "qe",
}


def _load() -> dict[str, Engine]:
    engines: dict[str, Engine] = {}
    for game_id, package in _PACKAGES.items():
        module = import_module(f"app.games.{package}")
        engine: Engine = module.ENGINE
        assert engine.info.id == game_id, (engine.info.id, game_id)
        engines[game_id] = engine
    return engines


ENGINES: dict[str, Engine] = _load()


def get_engine(game_id: str) -> Engine | None:
    return ENGINES.get(game_id)


def package_of(game_id: str) -> str | None:
    """The folder under app/games that holds this game (its data, templates' catalogue, ...)."""
    return _PACKAGES.get(game_id)


def checks_of(game_id: str) -> Checks:
    """The game's ``checks`` module (its invariants and disguise), for the simulator and the tests: play
    never needs it, so it is imported only here."""
    return cast(Checks, import_module(f"app.games.{_PACKAGES[game_id]}.checks"))


def determinizer_of(game_id: str) -> Callable[[View, int, random.Random], State]:
    """The game's ``determinize(view, seat, rng)`` (its ``determinize`` module): a state built from the
    seat's view alone, which that seat cannot tell from the table, for the strong bot's search
    (``app/bots/search.py``)."""
    module = import_module(f"app.games.{_PACKAGES[game_id]}.determinize")
    return cast(Callable[[View, int, random.Random], State], module.determinize)


def search_hooks_of(game_id: str) -> SearchHooks:
    """How the strong bot's search should think about the game: its ``determinize`` module's ``SEARCH``
    (the defaults if it declares none)."""
    module = import_module(f"app.games.{_PACKAGES[game_id]}.determinize")
    return cast(SearchHooks, getattr(module, "SEARCH", SearchHooks()))
