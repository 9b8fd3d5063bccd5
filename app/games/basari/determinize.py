"""A Basari table as one seat may imagine it, for the strong bot's search (``app/bots/search.py``).

Built from the seat's view alone. The seat sees everything but the order of the market deck and the
action cards the others have chosen and not yet revealed (ruling 9): ``determinize`` deals the deck
(the market cards on no display) in a fresh order, draws each of those cards from the odds that the
normal bot gives its holder (``bot.choice_odds``, public arithmetic on the view: a search that met
rivals choosing at random would answer the wrong table) and copies the rest from the view. ``tests/bots/test_search.py`` checks that the world shows the seat its view unchanged.
"""

from __future__ import annotations

import random

from app.games import base
from app.games.basari.bot import choice_odds, table_of
from app.games.basari.data import GAME_ID, MARKET_CARDS
from app.games.base import State, View


def determinize(view: View, seat: int, rng: random.Random) -> State:
    """A state the seat cannot tell from the table it sees in ``view``, what it cannot see drawn from ``rng``."""
    players = view["players"]
    seats = view["seats"]
    displays = [[card["id"] for card in entry["display"]] for entry in seats]
    deck = sorted(set(MARKET_CARDS) - {card for display in displays for card in display})
    rng.shuffle(deck)
    odds = choice_odds(table_of(view)) if any(entry["has_chosen"] for entry in seats) else []
    chosen = [
        view["my_choice"] if other == seat else _drawn(odds[other], rng) if entry["has_chosen"] else None
        for other, entry in enumerate(seats)
    ]
    bargain = view["bargain"]
    world = base.new_state(GAME_ID, players, {}, rng.getrandbits(64))
    world.update(
        {
            "finished": view["finished"],
            "first_player": view["first_player"],
            "round": view["round"],
            "turn": view["turn"],
            "phase": view["phase"],
            "deck": deck,
            "displays": displays,
            "gems": [dict(entry["gems"]) for entry in seats],
            "bank": dict(view["bank"]),
            "scores": [entry["score"] for entry in seats],
            "deck_ran_out": view["deck_ran_out"],
            "chosen": chosen,
            "revealed": [entry["played"] for entry in seats],
            "last_revealed": [entry["last_played"] for entry in seats],
            "pending": list(view["pending"]),
            "bargain": None
            if bargain is None
            else {
                "card": bargain["card"],
                "bidders": list(bargain["bidders"]),
                "offers": [{"seat": o["seat"], "gems": dict(o["gems"])} for o in bargain["offers"]],
                "to_move": bargain["to_move"],
            },
            "d_seat": view["d_seat"],
            "d_queue": list(view["d_queue"]),
            "acknowledged": list(view["acknowledged"]),
            "round_summaries": base.copy_plain(view["round_summaries"]),
            "score_history": base.copy_plain(view["score_history"]),
        }
    )
    return world


def _drawn(odds: dict[str, float], rng: random.Random) -> str:
    cards = list(odds)
    return rng.choices(cards, weights=[odds[card] for card in cards])[0]
