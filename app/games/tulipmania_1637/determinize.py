"""A Tulipmania 1637 table as one seat may imagine it, for the strong bot's search
(``app/bots/search.py``).

Built from the seat's view alone. The seat sees everything but the other seats' buyer colours (their
number is public), the order of the deck and the reserve, and the action cards the others have chosen
and not yet revealed (ruling 9). ``determinize`` deals the buyer cards it cannot see (the others'
hands, the deck and the reserve together: of each colour, those neither in its hand, face up nor out
of play) afresh in the sizes it sees, and draws each hidden chosen card among those its holder could
fulfil; the rest it copies from the view. ``tests/bots/test_search.py`` checks that the world shows the
seat its view unchanged.
"""

from __future__ import annotations

import random
from typing import Any

from app.games import base
from app.games.base import SearchHooks, State, View
from app.games.tulipmania_1637 import data, rules
from app.games.tulipmania_1637.data import BUYERS_PER_COLOUR, CARD_NAMES, CARDS, GAME_ID, PASS

# The search keeps the normal bot's move unless another is clearly better (the defaults): measured
# both ways on the same seeded games, playing the best mean made strong weaker (BENCHMARKS.md). It
# plays 32 playouts a decision: at 16, a normal bot against three strong ones still won too often
# (BENCHMARKS.md, "Bots and the simulator").
SEARCH = SearchHooks(playouts=32)


def determinize(view: View, seat: int, rng: random.Random) -> State:
    """A state the seat cannot tell from the table it sees in ``view``, what it cannot see drawn from ``rng``."""
    players = view["players"]
    seats = view["seats"]
    colours = [entry["key"] for entry in view["colours"]]
    live = list(view["live"])
    own = sorted(c for c, count in view["my_buyers"].items() for _ in range(count))
    seen = own + list(view["face_up"])
    unseen = [c for c in colours for _ in range(BUYERS_PER_COLOUR - seen.count(c) - view["buyers_out"][c])]
    rng.shuffle(unseen)
    buyers: list[list[str]] = []
    for other, entry in enumerate(seats):
        if other == seat:
            buyers.append(own)
            continue
        size = entry["buyer_count"]
        buyers.append(sorted(unseen[:size]))
        unseen = unseen[size:]
    deck_size = view["deck_count"]
    cells = {entry["key"]: _cell(entry) for entry in view["colours"]}
    stock = {entry["key"]: entry["stock"] for entry in view["colours"]}
    tulips = [dict(entry["tulips"]) for entry in seats]
    world = base.new_state(GAME_ID, players, {}, rng.getrandbits(64))
    world.update(
        {
            "finished": view["finished"],
            "colours": colours,
            "live": live,
            "burst": list(view["burst"]),
            "price": cells,
            "history": {entry["key"]: list(entry["history"]) for entry in view["colours"]},
            "tulips": tulips,
            "stock": stock,
            "tulips_removed": {
                c: data.tulips_per_colour(players) - sum(t[c] for t in tulips) - stock[c] - (c in live)
                for c in colours
            },
            "cash": [entry["cash"] for entry in seats],
            "buyers": buyers,
            "face_up": list(view["face_up"]),
            "deck": unseen[:deck_size],
            "reserve": unseen[deck_size:],
            "buyers_removed": view["buyers_removed"],
            "current": view["current"],
            "priority": view["priority"],
            "turn": view["turn"],
            "phase": view["phase"],
            "sale": None,
            "last_sale": _last_sale(view["last_sale"]),
            "sold_colour": view["sold_colour"],
            "turn_activity": view["turn_activity"],
            "quiet_turns": view["quiet_turns"],
            "end_reason": view["end_reason"],
            "ledger": [dict(entry["ledger"]) for entry in seats],
            "bursts": [_burst(record) for record in view["bursts"]],
        }
    )
    if view["sale"] is not None:
        world["sale"] = _sale(world, view, seat, rng)
    return world


def _sale(world: State, view: View, seat: int, rng: random.Random) -> dict[str, Any]:
    """The sale under way: the seat's own card, and one for each other seat that has chosen (all
    Passes once the seller chooses: the others' cards were revealed and nobody bid)."""
    colour = view["sale"]["colour"]
    cards: list[int | None] = [None] * view["players"]
    cards[seat] = view["my_card"]
    for other, entry in enumerate(view["seats"]):
        if other != seat and entry["chosen"]:
            if view["phase"] == rules.SELLER_CHOICE:
                cards[other] = PASS
            else:
                possible = [c for c in CARDS if rules.can_fulfil(world, other, c, colour)]
                cards[other] = rng.choice(possible)
    return {"colour": colour, "cards": cards}


def _cell(entry: dict[str, Any]) -> list[int]:
    """A colour's place on the board: drawn in the view while it is live, else any with its price
    (a burst colour's marker never moves again)."""
    if entry["live"]:
        row, column = entry["cell"]
        return [data.rows() - 1 - row, column]
    return next(
        [row, column]
        for row in range(data.rows())
        for column in range(data.columns())
        if data.value((row, column)) == entry["price"]
    )


def _last_sale(last: dict[str, Any] | None) -> dict[str, Any] | None:
    if last is None:
        return None
    return {key: base.copy_plain(value) for key, value in last.items() if key != "card_names"}


CARD_OF_NAME = {name: card for card, name in CARD_NAMES.items()}


def _burst(record: dict[str, Any]) -> dict[str, Any]:
    by: int | None = record["by"]
    trigger = None if by is None else {"seat": by, "card": CARD_OF_NAME.get(record["card_name"])}
    return {
        "colour": record["colour"],
        "peak": record["peak"],
        "trigger": trigger,
        "paid": list(record["paid"]),
        "tulips": record["tulips"],
        "steps": record["steps"],
        "floor": record["floor"],
    }
