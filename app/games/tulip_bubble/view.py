"""What one seat may know (ruling 12): its own hand and cash, and everything public.

Never in a view: another seat's hand or cash (until the game is over), the order of the tulip
deck, the collector piles or the market deck, and the market card removed at set-up.
"""

from __future__ import annotations

from typing import Any

from app.games import base
from app.games.base import State, View
from app.games.tulip_bubble import prices, rules
from app.games.tulip_bubble.data import (
    AUCTION_ROWS,
    BLACK_TULIP_PRICE,
    BURST_SHUFFLED_WITH,
    COLLECTORS,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    COLOURS,
    LEVEL_NUMERALS,
    LEVELS,
    MARKET_CARD_NAMES,
    PRICE_TABLE,
    ROW_NAMES,
    ROWS,
    TOKENS_PER_PLAYER,
    colour_of,
    grade_of,
    label_of,
    variety_of,
)


def card_view(state: State, card: str) -> dict[str, Any]:
    return {
        "id": card,
        "colour": colour_of(card),
        "letter": COLOUR_LETTERS[colour_of(card)],
        "variety": variety_of(card),
        "grade": grade_of(card),
        "label": label_of(card),
        "value": prices.market_price(state, card),
    }


def view(state: State, seat: int | None) -> View:
    to_act = rules.to_act(state)
    players = state["players"]
    mine = seat if isinstance(seat, int) and 0 <= seat < players else None
    finished = state["finished"]
    seats = [_player_view(state, other, mine, finished) for other in range(players)]
    return {
        "game": state["game"],
        "options": dict(state["options"]),
        "phase": state["phase"],
        "round": state["round"],
        "finished": finished,
        "start_player": state["start_player"],
        "to_act": list(to_act),
        "turn": to_act[0] if to_act else None,
        "colours": [
            {
                "id": colour,
                "name": COLOUR_NAMES[colour],
                "letter": COLOUR_LETTERS[colour],
                "level": state["levels"][colour],
                "numeral": LEVEL_NUMERALS[state["levels"][colour]],
                "prices": {grade: prices.price_at(grade, state["levels"][colour]) for grade in PRICE_TABLE},
            }
            for colour in COLOURS
        ],
        "levels": dict(state["levels"]),
        "level_numerals": [LEVEL_NUMERALS[level] for level in LEVELS],
        "price_table": {grade: list(row) for grade, row in PRICE_TABLE.items()},
        "rows": [
            {
                "id": row,
                "name": ROW_NAMES[row],
                "biddable": row in AUCTION_ROWS,
                "cards": [
                    {**card_view(state, card), "tokens": list(state["tokens"].get(card, []))}
                    for card in state["rows"][row]
                ],
            }
            for row in ROWS
        ],
        "collectors": [
            {
                "size": len(pile),
                "top": _collector_view(pile[0]) if pile else None,
            }
            for pile in state["collectors"]
        ],
        "deck_size": len(state["deck"]),
        "discard_size": len(state["discard"]),
        "market_deck_size": len(state["market_deck"]),
        "market_revealed": [
            {"id": card, "name": MARKET_CARD_NAMES[card]} for card in state["market_discard"]
        ],
        "burst_next": _burst_next(state),
        "players": seats,
        "history": [dict(entry) for entry in state["history"]],
        "placement": _placement_view(state),
        "auction": _auction_view(state),
        "payment": _payment_view(state, mine),
        # ``player``: the seat's own entry of ``players``, what its private regions read of the
        # table (so they are not drawn again when another seat's tokens or mortgages change)
        "you": {**_own_view(state, mine), "player": seats[mine]} if mine is not None else None,
        "end": _end_view(state) if finished and state["end"] else None,
        "events": base.visible_events(state, seat),
    }


def _burst_next(state: State) -> dict[str, int] | None:
    """Whether the next market card may be the Bubble Burst, from public facts only.

    The Burst lies among the bottom ``BURST_SHUFFLED_WITH + 1`` cards of the market deck, equally
    likely at each place; while it has not come, it is the next card with a chance of one in the
    cards left. So the danger is known from the deck's size alone (from round 7 on).
    """
    left = len(state["market_deck"])
    if state["finished"] or left == 0 or left > BURST_SHUFFLED_WITH + 1:
        return None
    return {"cards_left": left}


def _end_view(state: State) -> dict[str, Any]:
    """The final account (ruling 11: every seat's cash, debts and assets are shown to all at the end)
    and what the ending's headline tells: who declared the black tulip, what the burst wiped out."""
    end = dict(state["end"])
    players = range(state["players"])
    end["declarers"] = (
        [s for s in players if end["cash"][s] >= BLACK_TULIP_PRICE and not end["debts"][s]]
        if end["reason"] == "black_tulip"
        else []
    )
    end["tulips_in_hands"] = sum(len(state["hands"][s]) for s in players)
    end["total_debts"] = sum(end["debts"])
    end["ranking"] = sorted(players, key=lambda s: (-end["assets"][s], s))
    return end


def _collector_view(collector: str) -> dict[str, Any]:
    spec = COLLECTORS[collector]
    return {"id": collector, "name": spec["name"], "bonus": spec["bonus"], "order": spec["order"]}


def _player_view(state: State, seat: int, mine: int | None, finished: bool) -> dict[str, Any]:
    player: dict[str, Any] = {
        "seat": seat,
        "hand_size": len(state["hands"][seat]),
        "mortgages": [
            {**card_view(state, m["card"]), "amount": m["amount"]} for m in state["mortgages"][seat]
        ],
        "debts": rules.debts(state, seat),
        "tokens_free": rules.tokens_available(state, seat),
        "tokens_placed": rules.tokens_placed(state, seat),
        "tokens_total": TOKENS_PER_PLAYER,
        "sold_to_collector": seat in state["collector_sold"],
        "is_start": seat == state["start_player"],
    }
    if seat == mine or finished:
        player["cash"] = state["cash"][seat]
    return player


def _placement_view(state: State) -> dict[str, Any] | None:
    placement = state["placement"]
    if state["phase"] != "bidding" or placement is None:
        return None
    return {
        "seat": state["turn"],
        "turn": 1 if placement["index"] < state["players"] else 2,
        "quota": placement["quota"],
        "placed": placement["placed"],
    }


def _auction_view(state: State) -> dict[str, Any] | None:
    auction = state["auction"]
    if state["phase"] != "auction" or auction is None:
        return None
    minimum = (auction["high"] if auction["high"] is not None else auction["market"]) + 1
    others = len(auction["bidders"]) - 1
    return {
        "card": card_view(state, auction["card"]),
        "market": auction["market"],
        "bidders": list(auction["bidders"]),
        "active": list(auction["active"]),
        "high": auction["high"],
        "high_bidder": auction["high_bidder"],
        "turn": auction["turn"],
        "min_bid": minimum,
        "overflow_at_high": overflow_share(auction["high"], auction["market"], others),
        "overflow_at_min": overflow_share(minimum, auction["market"], others),
    }


def overflow_share(price: int | None, market: int, others: int) -> int:
    """What each other participant receives if the card goes for ``price`` (3-2-3)."""
    if price is None or others <= 0 or price <= market:
        return 0
    return (price - market) // others


def _payment_view(state: State, mine: int | None) -> dict[str, Any] | None:
    payment = state["payment"]
    if state["phase"] != "payment" or payment is None:
        return None
    others = len(payment["participants"]) - 1
    view = {
        "card": card_view(state, payment["card"]),
        "winner": payment["winner"],
        "price": payment["price"],
        "market": payment["market"],
        "participants": list(payment["participants"]),
        "overflow": overflow_share(payment["price"], payment["market"], others),
    }
    if mine == payment["winner"]:
        view["can_pay_cash"] = state["cash"][mine] >= payment["price"]
    return view


def _own_view(state: State, seat: int) -> dict[str, Any]:
    hand = sorted(state["hands"][seat], key=lambda card: (COLOURS.index(colour_of(card)), card))
    cards = [card_view(state, card) for card in hand]
    by_colour = [
        {
            "colour": colour,
            "name": COLOUR_NAMES[colour],
            "letter": COLOUR_LETTERS[colour],
            "cards": [card for card in cards if card["colour"] == colour],
        }
        for colour in COLOURS
    ]
    satisfiable = []
    for collector in rules.collector_tops(state):
        offers = rules.collector_offers(collector, state["hands"][seat])
        if offers:
            best = max(offers, key=lambda offer: sum(prices.market_price(state, card) for card in offer))
            value = sum(prices.market_price(state, card) for card in best)
            satisfiable.append(
                {
                    **_collector_view(collector),
                    "cards": [card_view(state, card) for card in best],
                    "total": value + int(COLLECTORS[collector]["bonus"]),  # type: ignore[call-overload]
                }
            )
    return {
        "seat": seat,
        "cash": state["cash"][seat],
        "hand": cards,
        "hand_by_colour": [group for group in by_colour if group["cards"]],
        "hand_value": sum(card["value"] for card in cards),
        "satisfiable": satisfiable,
        "can_sell_to_collector": seat not in state["collector_sold"],
        # Each of the seat's mortgages it cannot redeem now, with why (its page shows the redeem
        # disabled with the reason, rather than no redeem at all).
        "redeem_refusals": {
            m["card"]: list(refusal)
            for m in state["mortgages"][seat]
            if not state["finished"] and (refusal := rules.redeem_refusal(state, seat, m)) is not None
        },
    }
