"""What one seat may know (ruling 9): the only way state leaves the engine.

Public: the board, every price history, all tulips and cash, each player's number of buyer cards, the
face-up buyers, who has chosen an action card, and the cards once revealed. Private: your own buyer
colours and your own chosen card. Nobody sees the deck or reserve order, or another seat's choice
before the reveal. Where each seat's cash came from and what each burst paid out are public (every
sale, purchase and sell-off is announced), so they are shown to all, and tell the story at the end.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from app.games import base
from app.games.base import State, View
from app.games.tulipmania_1637 import data
from app.games.tulipmania_1637.data import (
    BUYERS_NEEDED,
    CARD_NAMES,
    CARDS,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    PASS,
    PURCHASE,
    PURCHASE_BY_PROXY,
    SELLER_CARDS,
    SPECULATE,
    SPECULATE_BY_PROXY,
)
from app.games.tulipmania_1637.rules import (
    CHOOSE,
    OVER,
    SELLER_CHOICE,
    buyers_of,
    can_fulfil,
    price,
    purchase_options,
    to_act,
    tulip_total,
    winners,
)


def card_consequence(cell: list[int], card: int) -> dict[str, Any] | None:
    """What a card does at this price: who pays how much and where the price goes (None: off the board)."""
    if card in (PURCHASE, PURCHASE_BY_PROXY):
        landing = data.purchase(cell)
        paid = data.value(cell)
    elif card in (SPECULATE, SPECULATE_BY_PROXY):
        jump = data.speculate(cell)
        if jump is None:
            return None
        paid, landing = data.value(jump[0]), jump[1]
    else:
        paid, landing = data.all_pass(cell)
    return {
        "pay": paid,
        "price_after": data.value(landing),
        "bursts": data.is_burst(landing),
        "bank_pays": card in (PASS, PURCHASE_BY_PROXY, SPECULATE_BY_PROXY),
        "buyers": BUYERS_NEEDED.get(card, 0),
    }


def _drawn(cell: Sequence[int]) -> list[int]:
    """A position as the board is drawn: [row counted from the top, column]."""
    return [data.rows() - 1 - cell[0], cell[1]]


def _one_step_from_bursting(cell: Sequence[int]) -> bool:
    """Whether a single purchase or speculation would put this price on a burst space."""
    jump = data.speculate(cell)
    return data.is_burst(data.purchase(cell)) or (jump is not None and data.is_burst(jump[1]))


def _burst_view(record: dict[str, Any]) -> dict[str, Any]:
    trigger = record["trigger"]
    return {
        "colour": record["colour"],
        "name": COLOUR_NAMES[record["colour"]],
        "peak": record["peak"],
        "floor": record.get("floor", record["peak"]),
        "by": None if trigger is None else trigger["seat"],
        "card_name": None if trigger is None or trigger["card"] is None else CARD_NAMES[trigger["card"]],
        "paid": list(record["paid"]),
        "total": sum(record["paid"]),
        "tulips": record["tulips"],
        "steps": record["steps"],
    }


def _story(state: State, bursts: list[dict[str, Any]]) -> dict[str, Any]:
    """The finished game's headline facts: the winners' margin and the burst that paid them most."""
    cash = state["cash"]
    best = winners(state)
    others = [c for s, c in enumerate(cash) if s not in best]
    margin = cash[best[0]] - max(others) if others else 0
    decisive = max(bursts, key=lambda b: sum(b["paid"][s] for s in best), default=None)
    if decisive is not None and not sum(decisive["paid"][s] for s in best):
        decisive = None
    return {
        "winners": best,
        "cash": cash[best[0]],
        "margin": margin,
        "decisive": decisive,
        "decisive_paid": 0 if decisive is None else sum(decisive["paid"][s] for s in best),
    }


def _colour_view(state: State, colour: str) -> dict[str, Any]:
    cell = state["price"][colour]
    live = colour in state["live"]
    arrows = _live_price(data.PRICE_BOARD, cell[0], cell[1]) if live else None
    info: dict[str, Any] = {
        "key": colour,
        "name": COLOUR_NAMES[colour],
        "letter": COLOUR_LETTERS[colour],
        "danger": False,  # a live price's, below
        "live": live,
        "price": data.value(cell),
        "stock": state["stock"][colour],
        "history": list(state["history"][colour]),
    }
    if arrows is not None:
        info.update(arrows)
        for drawn in ("cell", "purchase_cell", "speculate_cell", "pass_cell"):
            if info[drawn] is not None:
                info[drawn] = list(info[drawn])  # the view's own: a reader may change it
    return info


@functools.cache
def _live_price(board: tuple[tuple[str, tuple[int, ...]], ...], row: int, column: int) -> dict[str, Any]:
    """What the arrows from a live price's space lead to: the same for every viewer and every state
    with the price there, so worked out once a space of ``board`` (the data module's, read at each
    call as ``data`` reads it: a replaced board takes effect here too). A publish makes a view for
    each of ~6 viewers, and this was most of a view. Positions as tuples: ``_colour_view`` copies
    them into lists."""
    cell = [row, column]
    jump = data.speculate(cell)
    pass_pay, pass_land = data.all_pass(cell)
    purchase_to = data.purchase(cell)
    return {
        "danger": _one_step_from_bursting(cell),
        "cell": tuple(_drawn(cell)),
        "purchase_to": data.value(purchase_to),
        "purchase_cell": tuple(_drawn(purchase_to)),
        "purchase_bursts": data.is_burst(purchase_to),
        "speculate_pay": None if jump is None else data.value(jump[0]),
        "speculate_to": None if jump is None else data.value(jump[1]),
        "speculate_cell": None if jump is None else tuple(_drawn(jump[1])),
        "pass_pay": pass_pay,
        "pass_to": data.value(pass_land),
        "pass_cell": tuple(_drawn(pass_land)),
        "cheap": data.is_cheap(cell),
    }


def _my_cards(state: State, seat: int) -> list[dict[str, Any]]:
    """The five action cards (three for the seller) with their consequence and whether you can fulfil
    them, for the open sale."""
    colour = state["sale"]["colour"]
    cell = state["price"][colour]
    allowed = SELLER_CARDS if seat == state["current"] else CARDS
    cards = []
    for card in allowed:
        cards.append(
            {
                "card": card,
                "name": CARD_NAMES[card],
                "can": can_fulfil(state, seat, card, colour),
                "effect": card_consequence(cell, card),
            }
        )
    return cards


def _last_sale(state: State) -> dict[str, Any] | None:
    """The most recent reveal: every card played (after illegal ones became Pass), the winner and price."""
    last = state["last_sale"]
    if last is None:
        return None
    names = [None if card is None else CARD_NAMES[card] for card in last["cards"]]
    return {**last, "cards": list(last["cards"]), "card_names": names}


def _buyers_out(state: State) -> dict[str, int]:
    """The buyer cards of each colour out of play. Public, though counted here from every hand and
    deck: each one left play in the open (fulfilling a sale, discarded face up or from a hand at a
    burst, drawn in a colour that had burst), and every such removal is announced with its colour."""
    held = [c for hand in state["buyers"] for c in hand] + state["deck"] + state["reserve"] + state["face_up"]
    return {c: data.BUYERS_PER_COLOUR - held.count(c) for c in state["colours"]}


def view(state: State, seat: int | None) -> View:
    players = state["players"]
    sale = state["sale"]
    is_player = seat is not None and 0 <= seat < players
    ledger = state.get("ledger") or [{"sold": 0, "spent": 0, "sell_off": 0} for _ in range(players)]
    bursts = [_burst_view(record) for record in state.get("bursts", [])]
    seats = []
    for s in range(players):
        seats.append(
            {
                "seat": s,
                "cash": state["cash"][s],
                "tulips": dict(state["tulips"][s]),
                "tulip_count": tulip_total(state, s),
                "buyer_count": len(state["buyers"][s]),
                "current": s == state["current"],
                "priority": s == state["priority"],
                "chosen": None if sale is None or s == state["current"] else sale["cards"][s] is not None,
                "ledger": dict(ledger[s]),
            }
        )
    out: View = {
        "phase": state["phase"],
        "players": players,
        "turn": state["turn"],
        "current": state["current"],
        "priority": state["priority"],
        "board": [{"kind": kind, "values": list(values)} for kind, values in data.PRICE_BOARD],
        "price_levels": sorted({v for _, values in data.PRICE_BOARD for v in values}),
        "colours": [_colour_view(state, c) for c in state["colours"]],
        "live": list(state["live"]),
        "burst": list(state["burst"]),
        "bursts": bursts,
        "starting_cash": data.STARTING_CASH,
        "face_up": list(state["face_up"]),
        "deck_count": len(state["deck"]),
        "reserve_count": len(state["reserve"]),
        "buyers_removed": state["buyers_removed"],
        "buyers_out": _buyers_out(state),
        # Public too (a sale, a buyer drawn or a purchase this turn): whether the turn ends as a decline.
        "turn_activity": state["turn_activity"],
        "seats": seats,
        # The viewer's own entry of ``seats`` (None for spectators): what a seat's private regions
        # read of it, so they are not drawn again when another seat's cash or tulips change.
        "you": seats[seat] if seat is not None and is_player else None,
        "sold_colour": state["sold_colour"],
        "last_sale": _last_sale(state),
        "quiet_turns": state["quiet_turns"],
        "finished": state["finished"],
        "end_reason": state["end_reason"],
        "sale": None,
        "my_buyers": None,
        "my_cards": [],
        "my_card": None,
        "my_card_name": None,
        "purchase_options": [],
        "events": base.visible_events(state, seat),
    }
    if sale is not None:
        out["sale"] = {
            "seller": state["current"],
            "colour": sale["colour"],
            "colour_name": COLOUR_NAMES[sale["colour"]],
            "price": price(state, sale["colour"]),
            "waiting": [s for s in range(players) if s != state["current"] and sale["cards"][s] is None],
            "seller_choice": state["phase"] == SELLER_CHOICE,
        }
    if is_player:
        assert seat is not None
        out["my_buyers"] = {c: buyers_of(state, seat, c) for c in state["colours"]}
        if sale is not None:
            out["my_card"] = sale["cards"][seat]
            out["my_card_name"] = None if out["my_card"] is None else CARD_NAMES[out["my_card"]]
            choosing = state["phase"] == CHOOSE and seat in to_act(state)
            if choosing or (state["phase"] == SELLER_CHOICE and seat == state["current"]):
                out["my_cards"] = _my_cards(state, seat)
        if state["phase"] not in (OVER,) and seat == state["current"]:
            out["purchase_options"] = purchase_options(state, seat)
    if state["finished"]:
        order = sorted(range(players), key=lambda s: (-state["cash"][s], s))
        out["standings"] = [{"seat": s, "cash": state["cash"][s]} for s in order]
        out["winners"] = winners(state)
        out["story"] = _story(state, bursts)
    return out
