"""Arranging Basari tables for rule tests (imported by the test_basari_* files)."""

from __future__ import annotations

from app.games.basari import ENGINE
from app.games.basari.data import COLOURS, MARKET_CARDS
from app.games.base import State


def table(players: int = 3, seed: int = 1) -> State:
    """A fresh game in the choose phase of round 1, turn 1."""
    return ENGINE.setup(players, {}, seed)


def arrange_displays(state: State, displays: list[list[int]]) -> None:
    """Give each seat exactly these market cards (last on top); the rest form the deck."""
    used = {card for display in displays for card in display}
    state["displays"] = [list(display) for display in displays]
    state["deck"] = [card for card in sorted(MARKET_CARDS) if card not in used]


def set_gems(state: State, seat: int, **gems: int) -> None:
    """Set a seat's gems (unnamed colours become 0), moving the difference to or from the bank."""
    for colour in COLOURS:
        new = gems.get(colour, 0)
        state["bank"][colour] += state["gems"][seat][colour] - new
        state["gems"][seat][colour] = new
        assert state["bank"][colour] >= 0


def play(state: State, cards: list[str]) -> State:
    """Every seat, in order, plays the given action card."""
    for seat, card in enumerate(cards):
        state = ENGINE.apply(state, seat, {"type": "choose", "card": card})
    return state


def gems(red: int = 0, yellow: int = 0, green: int = 0, blue: int = 0) -> dict[str, int]:
    return {"red": red, "yellow": yellow, "green": green, "blue": blue}


def texts(state: State) -> list[str]:
    return [event["text"] for event in state["events"]]
