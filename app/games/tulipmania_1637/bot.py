"""Tulipmania bots that value their holdings from their own seat's view only, in two strengths.

Normal:

Worth of a colour for the bot: tulips matched by its own buyers count at 1.3x the current price (a
buyer pays the high burst price first), unmatched tulips at what the market pays when everybody
passes and then ever lower down the sell-off chain, spare buyers at a fraction of the price. A price on a burst space is valued by walking the
sell-off chain with the bot's own matched tulips first. Every decision picks the option that raises
that worth most (with a little noise so bots do not mirror each other), keeping a small cash reserve.

Easy plays like a newcomer who has not yet seen a bubble burst, about every other decision: then it
values every tulip at today's price (no burst odds, no sell-off chain, its buyers barely count), so it
buys and speculates on whatever is climbing; otherwise it values them as normal does, but never weighs
what its moves hand the others, takes buyers and sells at random.
"""

from __future__ import annotations

import random
from typing import Any

from app.games.base import N_, Action, Budget, IllegalAction, View
from app.games.tulipmania_1637 import data
from app.games.tulipmania_1637.data import (
    BUYERS_NEEDED,
    PASS,
    PURCHASE,
    PURCHASE_BY_PROXY,
    SPECULATE,
    SPECULATE_BY_PROXY,
)
from app.games.tulipmania_1637.rules import BUY, CHOOSE, DRAW, SELL, SELLER_CHOICE

PAIRED_FACTOR = 1.3
SPARE_BUYER_FACTOR = 0.25
CASH_RESERVE = 100
EASY_SLIPS = 0.5  # how often the easy bot values its tulips as a newcomer instead of soundly


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
    """The normal bot's estimate of one colour's holding, in florins."""
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


def naive_worth(cell: data.Position, tulips: int, buyers: int) -> float:
    """The easy bot's estimate: every tulip fetches today's price, a burst price included."""
    return tulips * data.value(cell) + 0.1 * buyers * data.value(cell)


class Seat:
    """What the bot reads of its view: its cash, tulips and buyers, and each live colour's price."""

    def __init__(self, view: View, me: int, strength: str, rng: random.Random) -> None:
        self.view = view
        self.me = me
        self.cash: int = view["seats"][self.me]["cash"]
        self.tulips: dict[str, int] = view["seats"][self.me]["tulips"]
        self.buyers: dict[str, int] = view["my_buyers"] or {}
        self.cells = {c["key"]: _cell(c["cell"]) for c in view["colours"] if c["live"]}
        self.rivals: int = view["players"] - 1
        sound = strength == "normal" or rng.random() >= EASY_SLIPS
        self.worth = worth if sound else naive_worth
        self.weighs_rivals = strength == "normal"  # what its moves hand the others (easy never looks)

    def holding(self, colour: str) -> tuple[data.Position, int, int]:
        return self.cells[colour], self.tulips.get(colour, 0), self.buyers.get(colour, 0)


def _cell(drawn: list[int]) -> data.Position:
    """A board position from the view's drawing of it (rows counted from the top)."""
    return (data.rows() - 1 - drawn[0], drawn[1])


def _reserve_penalty(cash_after: int) -> float:
    return max(0, CASH_RESERVE - cash_after)


def card_gain(seat: Seat, card: int) -> float:
    """How much winning the open sale with ``card`` would raise the bot's worth."""
    colour = seat.view["sale"]["colour"]
    cell, tulips, buyers = seat.holding(colour)
    before = seat.worth(cell, tulips, buyers)
    seller = seat.me == seat.view["current"]
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
        after = seat.worth(landing, tulips - 1, buyers - BUYERS_NEEDED.get(card, 0)) + paid
        return after - before
    if card == PURCHASE_BY_PROXY:
        return seat.worth(landing, tulips, buyers - 1) - before
    if card == SPECULATE_BY_PROXY:
        return seat.worth(landing, tulips, buyers - 2) - before
    after = seat.worth(landing, tulips + 1, buyers) - paid - _reserve_penalty(seat.cash - paid)
    return after - before


def outcome_of(cell: data.Position, card: int) -> tuple[int, data.Position]:
    """What the seller is paid and where the price lands when ``card`` wins the sale (Pass: all passed)."""
    if card in (PURCHASE, PURCHASE_BY_PROXY):
        return data.value(cell), data.purchase(cell)
    jump = data.speculate(cell) if card in (SPECULATE, SPECULATE_BY_PROXY) else None
    if jump is not None:
        return data.value(jump[0]), jump[1]
    return data.all_pass(cell)


def rivals_gain(seat: Seat, colour: str, outcome: tuple[int, data.Position]) -> float:
    """What the other seats' holdings of ``colour`` gain when its price moves by ``outcome`` (what the
    seller is paid, where the price lands); in another seat's sale, its seller lets a tulip go for that
    pay. Their buyers' colours are secret, so every rival tulip is valued as unmatched."""
    cell = seat.cells[colour]
    seller_paid, landing = outcome
    seller = seat.view["current"] if seat.view["sale"] else None
    total = 0.0
    for other in range(seat.view["players"]):
        if other == seat.me:
            continue
        tulips = seat.view["seats"][other]["tulips"].get(colour, 0)
        before = worth(cell, tulips, 0)
        if other == seller:
            total += seller_paid + worth(landing, tulips - 1, 0) - before
        else:
            total += worth(landing, tulips, 0) - before
    return total


def handed_to_rivals(seat: Seat, card: int) -> float:
    """How much more the rivals gain when the bot's ``card`` wins the open sale (or, the bot selling,
    settles it face up) than when everybody passes: a purchase or a seller's 3 that bursts the bubble
    can pay the seller and the other holders far more than it nets the bot. Counted at one rival's share (``1 / (players - 1)``) against the bot's own gain,
    since each of them is one of its rivals for the most cash."""
    if card == PASS:
        return 0.0
    colour = seat.view["sale"]["colour"]
    cell = seat.cells[colour]
    handed = rivals_gain(seat, colour, outcome_of(cell, card)) - rivals_gain(
        seat, colour, data.all_pass(cell)
    )
    return handed / seat.rivals


def _choose_card(seat: Seat, cards: list[int], rng: random.Random, noise: float) -> Action:
    selling = seat.me == seat.view["current"]
    scored = {card: (0.0 if card == PASS and not selling else card_gain(seat, card)) for card in cards}
    if seat.weighs_rivals:
        scored = {card: gain - handed_to_rivals(seat, card) for card, gain in scored.items()}
    best = max(cards, key=lambda card: scored[card] * rng.uniform(1 - noise, 1 + noise))
    if not selling and scored[best] <= 10:
        best = PASS
    return {"type": "play", "card": best}


def _choose_sale(seat: Seat, offer: list[str], can_skip: bool, rng: random.Random, strength: str) -> Action:
    """Normal sells where it holds more tulips than buyers, at the highest price, and keeps a lone
    matched one; easy sells a tulip at random."""
    if strength == "easy":
        return {"type": "sell", "colour": rng.choice(offer)}
    unmatched = [c for c in offer if seat.tulips[c] > seat.buyers.get(c, 0)]
    if can_skip and not unmatched:
        return {"type": "skip_sale"}
    pool = unmatched or offer
    colour = max(pool, key=lambda c: (data.value(seat.cells[c]), c))
    return {"type": "sell", "colour": colour}


def _choose_buyer(seat: Seat, can_take: bool, rng: random.Random, strength: str) -> Action:
    """Take a face-up buyer of a colour the bot holds unmatched tulips of, else draw blind."""
    face_up: list[str] = seat.view["face_up"]
    if not can_take or not face_up:
        return {"type": "draw_buyer"}
    if strength == "easy":
        return (
            {"type": "take_buyer", "index": rng.randrange(len(face_up))}
            if rng.random() < 0.5
            else {"type": "draw_buyer"}
        )

    def need(colour: str) -> int:
        if colour not in seat.cells:
            return -1
        return seat.tulips[colour] - seat.buyers.get(colour, 0)

    index = max(range(len(face_up)), key=lambda i: (need(face_up[i]), data.value(seat.cells[face_up[i]])))
    if need(face_up[index]) > 0:
        return {"type": "take_buyer", "index": index}
    return {"type": "draw_buyer"}


def _choose_purchase(seat: Seat, options: list[str], rng: random.Random) -> Action:
    best, best_gain = None, 10.0
    for colour in options:
        cell, tulips, buyers = seat.holding(colour)
        paid = data.value(cell)
        gain = (
            seat.worth(data.purchase(cell), tulips + 1, buyers)
            - seat.worth(cell, tulips, buyers)
            - paid
            - _reserve_penalty(seat.cash - paid)
        )
        if seat.weighs_rivals:  # the price rise (a burst's sell-off too) pays every other holder
            gain -= rivals_gain(seat, colour, (0, data.purchase(cell))) / seat.rivals
        gain *= rng.uniform(0.9, 1.1)
        if gain > best_gain:
            best, best_gain = colour, gain
    if best is None:
        return {"type": "skip_purchase"}
    return {"type": "buy", "colour": best}


def _options(legal: list[dict[str, Any]], kind: str, param: str) -> list[Any]:
    for template in legal:
        if template["type"] == kind:
            options: list[Any] = template["params"][param]["options"]
            return options
    return []


def bot_action(
    view: View, me: int, legal: list[dict[str, Any]], rng: random.Random, strength: str, budget: Budget
) -> Action:
    phase = view["phase"]
    kinds = {t["type"] for t in legal}
    seat = Seat(view, me, strength, rng)
    if phase == SELL:
        return _choose_sale(seat, _options(legal, "sell", "colour"), "skip_sale" in kinds, rng, strength)
    if phase in (CHOOSE, SELLER_CHOICE):
        noise = 0.1 if strength == "normal" else 0.5
        return _choose_card(seat, _options(legal, "play", "card"), rng, noise)
    if phase == DRAW:
        return _choose_buyer(seat, "take_buyer" in kinds, rng, strength)
    if phase == BUY:
        return _choose_purchase(seat, _options(legal, "buy", "colour"), rng)
    raise IllegalAction(N_("There is nothing for you to do now."))
