"""A Basari table as one seat may imagine it, for the strong bot's search (``app/bots/search.py``).

Built from the seat's view alone. The seat sees everything but the order of the market deck and the
action cards the others have chosen and not yet revealed (ruling 9): ``determinize`` deals the deck
(the market cards on no display) in a fresh order, draws each of those cards from the odds that the
normal bot gives its holder (``bot.choice_odds``, public arithmetic on the view: a search that met
rivals choosing at random would answer the wrong table) and copies the rest from the view.
``tests/bots/test_search.py`` checks that the world shows the seat its view unchanged.

Its ``SEARCH`` tells the search how to think about Basari: where its playouts stop and what the
position is worth there (``playout_over``, ``position_value``), which offers to weigh in a bargain
(``candidates``), and that the action card, a simultaneous choice, is drawn by the searched values
rather than taken outright (``choice_temperature``).
"""

from __future__ import annotations

import random

from app.games import base
from app.games.basari.bot import _offers_of, cheapest_raise, choice_odds, gems_value, table_of
from app.games.basari.data import COLOURS, GAME_ID, MAJORITY_POINTS, MARKET_CARDS, ROUNDS
from app.games.base import Action, SearchHooks, State, View


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


# The search's playouts in Basari stop when the round they started in has been scored (a round is
# a third of the game, so a playout costs a fraction of one to the end and the search gets several
# times more for its budget); the position is then valued by ``position_value``.
PROSPECT_WEIGHT = 0.5  # of a colour's majority points per round to come, shared by the gems held


def playout_over(start: State, state: State) -> bool:
    """Whether a playout from ``start`` has reached its horizon: the round it began in is scored."""
    return bool(state["finished"]) or len(state["round_summaries"]) > len(start["round_summaries"])


def position_value(state: State, seat: int) -> float:
    """The seat's points ahead of its best rival (behind: negative), each seat's points counted with
    its gems' prospect in the rounds still to come: per colour, that colour's majority points shared
    by the squares of the gems held (the leader's share largest), ``PROSPECT_WEIGHT`` of it a round."""
    players = state["players"]
    rounds_left = ROUNDS - len(state["round_summaries"])
    worth = list(map(float, state["scores"]))
    if rounds_left > 0:
        for colour in COLOURS:
            squares = [state["gems"][s][colour] ** 2 for s in range(players)]
            total = sum(squares)
            if total:
                for s in range(players):
                    worth[s] += rounds_left * PROSPECT_WEIGHT * MAJORITY_POINTS[colour] * squares[s] / total
    return worth[seat] - max(worth[s] for s in range(players) if s != seat)


# The searched action card is drawn with odds growing as exp(mean value / this many points), so that
# strong bots that search alike do not all leave the normal bot's odds for the same card. Measured on
# the same seeded games (BENCHMARKS.md): taken outright when clearly better, 60.5% ± 9.4 of 100
# against three normal bots but normal won 23.4% ± 14.6 of 32 against three strong; left to the
# normal bot, 38.2% ± 10.8 (76) and 7.8% ± 8.9 (32); drawn at 1 point, 53.0% ± 9.8 and 10.3% ± 5.6
# (100 each).
CARD_TEMPERATURE = 1.0


def choice_temperature(view: View) -> float | None:
    """The temperature of a drawn choice among the searched candidates (``CARD_TEMPERATURE`` for the
    action card, a simultaneous choice), None where the search picks one outright."""
    return CARD_TEMPERATURE if view["phase"] == "choose" else None


def candidates(view: View, seat: int) -> list[Action] | None:
    """The offers worth weighing in a bargain (the search's candidates besides the normal bot's move):
    a first offer of each colour's single gem, or of the two gems the seat values least; against an
    offer, accepting, the cheapest raise and the cheapest raise by one gem more. None elsewhere (the
    action cards: the generic candidates are all three)."""
    bargain = view["bargain"]
    if view["phase"] != "bargain" or bargain is None or bargain["to_move"] != seat:
        return None
    table = table_of(view)
    own = table["gems"][seat]
    if not bargain["offers"]:
        found: list[Action] = [
            {"type": "offer", "gems": {c: int(c == colour) for c in COLOURS}}
            for colour in COLOURS
            if own[colour]
        ]
        pairs = _offers_of(own, 2)
        if pairs:
            found.append(
                {"type": "offer", "gems": min(pairs, key=lambda gems: gems_value(table, seat, gems))}
            )
        return found
    current = bargain["offers"][-1]["gems"]
    found = [{"type": "accept"}]
    cheapest = cheapest_raise(table, seat, current)
    if cheapest is not None:
        found.append({"type": "offer", "gems": cheapest})
        bigger = _offers_of(own, sum(cheapest.values()) + 1)
        if bigger:
            found.append(
                {"type": "offer", "gems": min(bigger, key=lambda gems: gems_value(table, seat, gems))}
            )
    return found


# Basari's bargains keep the normal bot's offer unless another is clearly better (the default choice).
SEARCH = SearchHooks(
    playout_over=playout_over,
    position_value=position_value,
    candidates=candidates,
    choice_temperature=choice_temperature,
    # to the round's end: 24 cost what 8 to the game's end did; 48 played no stronger (BENCHMARKS.md)
    playouts=24,
)
