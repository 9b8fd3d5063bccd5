"""A Tulipmania bot that values its holdings using only what its seat may know.

Worth of a colour for the bot: tulips matched by its own buyers count at 1.3x the current price (a
buyer pays the high burst price first), unmatched tulips at what the market pays when everybody
passes and then ever lower down the sell-off chain, spare buyers at a fraction of the price. A price on a burst space is valued by walking the
sell-off chain with the bot's own matched tulips first. Every decision picks the option that raises
that worth most (with a little noise so bots do not mirror each other), keeping a small cash reserve.
"""

from __future__ import annotations

import random

from app.games.base import N_, Action, IllegalAction, State
from app.games.tulipmania_1637 import data
from app.games.tulipmania_1637.data import (
    BUYERS_NEEDED,
    PASS,
    PURCHASE,
    PURCHASE_BY_PROXY,
    SPECULATE,
    SPECULATE_BY_PROXY,
)
from app.games.tulipmania_1637.rules import (
    BUY,
    CHOOSE,
    DRAW,
    SELL,
    SELLER_CHOICE,
    buyers_of,
    playable_cards,
    purchase_options,
    tulip_total,
)

PAIRED_FACTOR = 1.3
SPARE_BUYER_FACTOR = 0.25
CASH_RESERVE = 100


def _burst_payout(cell: data.Position, tulips: int, buyers: int) -> int:
    """Optimistic sell-off income: own matched tulips first, then the rest, one step each."""
    total = 0
    for _ in range(min(tulips, buyers)):
        total += data.value(cell)
        cell = data.sell_off_step(cell)
    for _ in range(tulips - min(tulips, buyers)):
        total += data.value(cell)
        cell = data.sell_off_step(cell)
    return total


def worth(cell: data.Position, tulips: int, buyers: int) -> float:
    """The bot's estimate of one colour's holding, in florins."""
    if data.is_burst(cell):
        return _burst_payout(cell, tulips, buyers)
    current = data.value(cell)
    paired = min(tulips, buyers)
    spare = min(buyers - paired, 2)
    total = paired * current * PAIRED_FACTOR + spare * current * SPARE_BUYER_FACTOR
    # Unmatched tulips leave one a turn at best: the first at the all-pass price, each further one a
    # step lower down the sell-off chain.
    dump_price, dump_cell = data.all_pass(cell)
    for _ in range(tulips - paired):
        total += dump_price
        dump_cell = data.sell_off_step(dump_cell)
        dump_price = data.value(dump_cell)
    return total


def _reserve_penalty(cash_after: int) -> float:
    return max(0, CASH_RESERVE - cash_after)


def card_gain(state: State, seat: int, card: int) -> float:
    """How much winning the open sale with ``card`` would raise the bot's worth."""
    colour = state["sale"]["colour"]
    cell = data.pos(state["price"][colour])
    tulips = state["tulips"][seat][colour]
    buyers = buyers_of(state, seat, colour)
    cash = state["cash"][seat]
    before = worth(cell, tulips, buyers)
    seller = seat == state["current"]
    if card in (PURCHASE, PURCHASE_BY_PROXY):
        landing, paid = data.purchase(cell), data.value(cell)
    elif card in (SPECULATE, SPECULATE_BY_PROXY):
        jump = data.speculate(cell)
        if jump is None:
            return float("-inf")
        paid, landing = data.value(jump[0]), jump[1]
    else:
        paid, landing = data.all_pass(cell)
    if seller:  # the seller's tulip leaves and the bank pays the seller
        after = worth(landing, tulips - 1, buyers - BUYERS_NEEDED.get(card, 0)) + paid
        return after - before
    if card == PURCHASE_BY_PROXY:
        return worth(landing, tulips, buyers - 1) - before
    if card == SPECULATE_BY_PROXY:
        return worth(landing, tulips, buyers - 2) - before
    after = worth(landing, tulips + 1, buyers) - paid - _reserve_penalty(cash - paid)
    return after - before


def _choose_card(state: State, seat: int, rng: random.Random) -> Action:
    cards = playable_cards(state, seat)
    if seat == state["current"]:
        scored = {card: card_gain(state, seat, card) for card in cards}
    else:
        scored = {card: (0.0 if card == PASS else card_gain(state, seat, card)) for card in cards}
    best = max(cards, key=lambda card: scored[card] * rng.uniform(0.9, 1.1))
    if seat != state["current"] and scored[best] <= 10:
        best = PASS
    return {"type": "play", "card": best}


def _choose_sale(state: State, seat: int) -> Action:
    """Sell where the bot holds more tulips than buyers, at the highest price; keep a lone matched one."""
    owned = [c for c in state["live"] if state["tulips"][seat][c] > 0]
    unmatched = [c for c in owned if state["tulips"][seat][c] > buyers_of(state, seat, c)]
    if tulip_total(state, seat) == 1 and not unmatched:
        return {"type": "skip_sale"}
    pool = unmatched or owned
    colour = max(pool, key=lambda c: (data.value(state["price"][c]), c))
    return {"type": "sell", "colour": colour}


def _choose_buyer(state: State, seat: int) -> Action:
    """Take a face-up buyer of a colour the bot holds unmatched tulips of, else draw blind."""

    def need(colour: str) -> int:
        if colour not in state["live"]:
            return -1
        held: int = state["tulips"][seat][colour]
        return held - buyers_of(state, seat, colour)

    if state["face_up"]:
        index = max(
            range(len(state["face_up"])),
            key=lambda i: (need(state["face_up"][i]), data.value(state["price"][state["face_up"][i]])),
        )
        if need(state["face_up"][index]) > 0:
            return {"type": "take_buyer", "index": index}
    return {"type": "draw_buyer"}


def _choose_purchase(state: State, seat: int, rng: random.Random) -> Action:
    cash = state["cash"][seat]
    best, best_gain = None, 10.0
    for colour in purchase_options(state, seat):
        cell = data.pos(state["price"][colour])
        tulips = state["tulips"][seat][colour]
        buyers = buyers_of(state, seat, colour)
        paid = data.value(cell)
        gain = (
            worth(data.purchase(cell), tulips + 1, buyers)
            - worth(cell, tulips, buyers)
            - paid
            - _reserve_penalty(cash - paid)
        ) * rng.uniform(0.9, 1.1)
        if gain > best_gain:
            best, best_gain = colour, gain
    if best is None:
        return {"type": "skip_purchase"}
    return {"type": "buy", "colour": best}


def bot_action(state: State, seat: int, rng: random.Random) -> Action:
    phase = state["phase"]
    if phase == SELL:
        return _choose_sale(state, seat)
    if phase in (CHOOSE, SELLER_CHOICE):
        return _choose_card(state, seat, rng)
    if phase == DRAW:
        return _choose_buyer(state, seat)
    if phase == BUY:
        return _choose_purchase(state, seat, rng)
    raise IllegalAction(N_("There is nothing for you to do now."))
