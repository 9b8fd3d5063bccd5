"""Builders for Tulip Bubble positions, so rulebook examples can be set up card by card."""

from __future__ import annotations

from app.games.base import Action, State
from app.games.tulip_bubble import ENGINE, prices
from app.games.tulip_bubble.data import ROWS, all_tulips

ANDY, BOB, CHARLES, DENNIS = 0, 1, 2, 3


def table(
    players: int = 4,
    *,
    levels: dict[str, int],
    hands: dict[int, list[str]] | None = None,
    mortgages: dict[int, list[tuple[str, int]]] | None = None,
    cash: dict[int, int] | None = None,
    rows: dict[str, list[str]] | None = None,
    discard: list[str] | None = None,
    collectors: list[list[str]] | None = None,
    market_deck: list[str] | None = None,
    start: int = 0,
    round_: int = 2,
    options: dict[str, bool] | None = None,
) -> State:
    """A position with exactly these cards placed; every other tulip is in the deck (in id order)."""
    state = ENGINE.setup(players, options or {}, seed=1)
    state["events"] = []
    state["levels"] = dict(levels)
    state["hands"] = [list((hands or {}).get(seat, [])) for seat in range(players)]
    state["mortgages"] = [
        [{"card": card, "amount": amount} for card, amount in (mortgages or {}).get(seat, [])]
        for seat in range(players)
    ]
    state["cash"] = [(cash or {}).get(seat, 20) for seat in range(players)]
    state["rows"] = {row: list((rows or {}).get(row, [])) for row in ROWS}
    state["discard"] = list(discard or [])
    if collectors is not None:
        state["collectors"] = [list(pile) for pile in collectors]
    if market_deck is not None:
        state["market_deck"] = list(market_deck)
    placed = [card for hand in state["hands"] for card in hand]
    placed += [m["card"] for ms in state["mortgages"] for m in ms]
    placed += [card for row in ROWS for card in state["rows"][row]] + state["discard"]
    assert len(placed) == len(set(placed)), "a card is placed twice"
    state["deck"] = [card for card in all_tulips() if card not in placed]
    state["tokens"] = {}
    state["collector_sold"] = []
    state["start_player"] = start
    state["round"] = round_
    state["auction"] = state["payment"] = state["placement"] = None
    return state


def at_selling(state: State, index: int = 0) -> State:
    """The selling phase, ``index`` turns after the start player."""
    state["phase"] = "selling"
    state["selling_index"] = index
    state["turn"] = (state["start_player"] + index) % state["players"]
    return state


def at_placement(state: State, index: int = 0, placed: int = 0) -> State:
    """The bidding phase at placement turn ``index`` (0 .. 2 × players − 1)."""
    players = state["players"]
    state["phase"] = "bidding"
    state["placement"] = {"index": index, "quota": 2 if index < players else 1, "placed": placed}
    state["turn"] = (state["start_player"] + index) % players
    return state


def at_last_placement(state: State) -> State:
    """The last placement turn of the round: ending it resolves bids and runs the end phase."""
    return at_placement(state, 2 * state["players"] - 1)


def at_auction(state: State, card: str, bidders: list[int]) -> State:
    """An open auction on ``card`` with these bidders' tokens on it (bidders in turn order)."""
    state["tokens"] = {card: list(bidders)}
    state["phase"] = "auction"
    state["queue"] = []
    state["auction"] = {
        "card": card,
        "market": prices.market_price(state, card),
        "bidders": list(bidders),
        "active": list(bidders),
        "high": None,
        "high_bidder": None,
        "turn": bidders[0],
    }
    return state


def play(state: State, *moves: tuple[int, Action]) -> State:
    for seat, action in moves:
        state = ENGINE.apply(state, seat, action)
    return state


def texts(state: State) -> list[str]:
    """The game log as plain English, seat refs as "seat N"."""
    out = []
    for event in state["events"]:
        params = {
            key: (f"seat {value['seat']}" if isinstance(value, dict) else value)
            for key, value in event["params"].items()
        }
        out.append(event["text"].format(**params))
    return out


def where_is_every_tulip(state: State) -> list[str]:
    """Every tulip card in the game, wherever it lies (should be the 51 cards once each)."""
    cards = list(state["deck"]) + list(state["discard"])
    cards += [card for row in ROWS for card in state["rows"][row]]
    cards += [card for hand in state["hands"] for card in hand]
    cards += [m["card"] for ms in state["mortgages"] for m in ms]
    return cards
