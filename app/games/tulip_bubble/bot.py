"""Tulip Bubble bots that value every tulip by what it should fetch in the next selling phase.

They read only their seat's view: its own hand and cash and the public table (price levels, rows,
collectors, the revealed market cards and the market deck's size), rebuilt by ``table_of`` into the
shape the price arithmetic (``prices``) reads.

Normal:

Expected resale value of a tulip = (chance the Bubble Burst is not the next market card) × the
average price after this round's supply and demand and each market card that may still come.
The Bubble Burst lies among the last three market cards, so that chance is public arithmetic.
Collectors add their bonus, and with 120 guilders and no mortgage the black tulip wins: normal cashes
out for it as soon as it can.

Easy plays like a newcomer about every other move: it prices a tulip at today's market price (no forecast, no burst risk,
no collectors to aim for), bids on what it likes with some noise and overpays in auctions, and sells
only now and then.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from app.games.base import Action, Budget, State, View, random_legal_action
from app.games.tulip_bubble import prices, rules
from app.games.tulip_bubble.data import (
    BLACK_TULIP_PRICE,
    BURST_SHUFFLED_WITH,
    COLLECTORS,
    MARKET_DECK,
    PLUNGE_LEVELS,
    ROWS,
    SURGE_LEVELS,
    colour_of,
    grade_of,
)

COLLECTOR_HOPE = 0.5  # a collector order may be taken by someone else before our next turn
EASY_SLIPS = 0.5  # how often the easy bot plays a newcomer's move instead of the sound one


def table_of(view: View, seat: int) -> State:
    """The public table and this seat's own hand, cash and mortgages, as a state-shaped dict; what no
    view shows (other hands and cash, deck orders, piles below the top) is simply not there."""
    players = len(view["players"])
    you = view["you"] or {"hand": [], "cash": 0}
    rows = {row["id"]: [card["id"] for card in row["cards"]] for row in view["rows"]}
    table: State = {
        "players": players,
        "phase": view["phase"],
        "levels": dict(view["levels"]),
        "rows": {row: rows.get(row, []) for row in ROWS},
        "tokens": {card["id"]: list(card["tokens"]) for row in view["rows"] for card in row["cards"]},
        "market_deck_size": view["market_deck_size"],
        "market_discard": [card["id"] for card in view["market_revealed"]],
        "collectors": [[pile["top"]["id"]] if pile["top"] else [] for pile in view["collectors"]],
        "hands": [[card["id"] for card in you["hand"]] if s == seat else [] for s in range(players)],
        "cash": [you["cash"] if s == seat else 0 for s in range(players)],
        "mortgages": [
            [{"card": m["id"], "amount": m["amount"]} for m in view["players"][s]["mortgages"]]
            for s in range(players)
        ],
        "auction": {"card": view["auction"]["card"]["id"]} if view["auction"] else None,
    }
    return table


def bot_action(
    view: View, seat: int, legal_list: list[dict[str, Any]], rng: random.Random, strength: str, budget: Budget
) -> Action:
    legal = {template["type"]: template for template in legal_list}
    state = table_of(view, seat)
    phase = state["phase"]
    easy = strength == "easy" and rng.random() < EASY_SLIPS  # else it plays its sound move this time
    if phase == "selling" and "end_turn" in legal:
        return _easy_selling(state, seat, legal, rng) if easy else _selling_choice(state, seat, legal)
    if phase == "bidding" and "end_turn" in legal:
        return _easy_placement(state, seat, legal, rng) if easy else _placement_choice(state, seat, legal)
    if phase == "auction" and "drop" in legal:
        card = state["auction"]["card"]
        if easy:
            limit = int(prices.market_price(state, card) * rng.uniform(0.7, 1.4))
        else:
            limit = _worth_to(state, seat, card)
        minimum = legal["raise"]["params"]["amount"]["min"]
        return {"type": "raise", "amount": minimum} if minimum <= limit else {"type": "drop"}
    if phase == "payment" and "pay" in legal:
        methods = legal["pay"]["params"]["method"]["options"]
        return {"type": "pay", "method": "cash" if "cash" in methods else "mortgage"}
    return random_legal_action(legal_list, rng)


def _easy_selling(state: State, seat: int, legal: dict[str, dict[str, Any]], rng: random.Random) -> Action:
    """A newcomer sells a collector's order when one is offered, else a card now and then."""
    if "sell_to_collector" in legal and rng.random() < 0.5:
        for collector in rules.collector_tops(state):
            offers = rules.collector_offers(collector, state["hands"][seat])
            if offers:
                return {"type": "sell_to_collector", "collector": collector, "cards": ",".join(offers[0])}
    if "sell" in legal and rng.random() < 0.3:
        return {"type": "sell", "card": rng.choice(legal["sell"]["params"]["card"]["options"])}
    return {"type": "end_turn"}


def _easy_placement(state: State, seat: int, legal: dict[str, dict[str, Any]], rng: random.Random) -> Action:
    """A newcomer bids on a card it can pay for, the cheaper the likelier, until it runs out of cash."""
    if "place" not in legal or rng.random() < 0.25:
        return {"type": "end_turn"}
    committed = sum(prices.market_price(state, c) for c, seats in state["tokens"].items() if seat in seats)
    cards = [
        card
        for card in legal["place"]["params"]["card"]["options"]
        if committed + prices.market_price(state, card) <= state["cash"][seat] + 10
    ]
    if not cards:
        return {"type": "end_turn"}
    return {"type": "place", "card": rng.choice(cards)}


def survival(state: State) -> float:
    """Chance that the next market card is not the Bubble Burst (it is among the last three)."""
    remaining: int = state["market_deck_size"]
    window = BURST_SHUFFLED_WITH + 1
    return 1.0 - 1.0 / remaining if remaining <= window else 1.0


def _unseen_market_cards(state: State) -> dict[str, int]:
    """Market cards that may come next, with their copies: the full deck minus those revealed (the
    removed one is unknown)."""
    unseen = Counter(MARKET_DECK)
    unseen.subtract(card for card in state["market_discard"] if card in unseen)
    return {card: count for card, count in unseen.items() if count > 0}


def expected_levels(state: State) -> dict[str, float]:
    """Average price level of each colour at the next selling phase, if the game goes on (each kind of
    market card worked out once and weighed by its copies)."""
    after_sd = dict(state["levels"])
    prices.supply_and_demand(after_sd, prices.row_counts(state))
    totals = dict.fromkeys(after_sd, 0.0)
    unseen = _unseen_market_cards(state) or {"none": 1}
    for card, copies in unseen.items():
        levels = dict(after_sd)
        if card == "surge":
            prices.move_marker(levels, prices.lowest_colour(levels), SURGE_LEVELS)
        elif card == "plunge":
            prices.move_marker(levels, prices.highest_colour(levels), -PLUNGE_LEVELS)
        elif card.startswith("rise:"):
            prices.move_marker(levels, card.split(":")[1], 1)
        for colour in totals:
            totals[colour] += copies * levels[colour]
    cards = sum(unseen.values())
    return {colour: total / cards for colour, total in totals.items()}


def resale_value(state: State, card: str, levels: dict[str, float] | None = None) -> float:
    """Expected price of a card at the next selling phase, counting the burst risk."""
    levels = levels or expected_levels(state)
    level = levels[colour_of(card)]
    low, high = int(level), min(int(level) + 1, 7)
    fraction = level - low
    price = (1 - fraction) * prices.price_at(grade_of(card), low) + fraction * prices.price_at(
        grade_of(card), high
    )
    return price * survival(state)


def _collector_gain(state: State, hand: list[str], card: str) -> float:
    """Bonus hope when ``card`` completes a face-up collector's order that the hand cannot yet fill."""
    gain = 0.0
    for collector in rules.collector_tops(state):
        if rules.collector_offers(collector, hand):
            continue
        if rules.collector_offers(collector, [*hand, card]):
            bonus = int(COLLECTORS[collector]["bonus"])  # type: ignore[call-overload]
            gain = max(gain, bonus * COLLECTOR_HOPE * survival(state))
    return gain


def _worth_to(state: State, seat: int, card: str) -> int:
    """The most this seat should pay for a card."""
    return int(resale_value(state, card) + _collector_gain(state, state["hands"][seat], card))


def _selling_choice(state: State, seat: int, legal: dict[str, dict[str, Any]]) -> Action:
    if "sell_to_collector" in legal:
        best = _best_collector_sale(state, seat)
        if best is not None:
            return best
    if _can_cash_out_for_black_tulip(state, seat):
        return _cash_out(state, seat, legal)
    return _sale_at_resale_value(state, seat, legal) or {"type": "end_turn"}


def _best_collector_sale(state: State, seat: int) -> Action | None:
    """The collector offer that brings the most (its bonus plus the cards' market prices)."""
    best: tuple[int, Action] | None = None
    for collector in rules.collector_tops(state):
        bonus = int(COLLECTORS[collector]["bonus"])  # type: ignore[call-overload]
        for offer in rules.collector_offers(collector, state["hands"][seat]):
            total = bonus + sum(prices.market_price(state, card) for card in offer)
            if best is None or total > best[0]:
                best = (
                    total,
                    {"type": "sell_to_collector", "collector": collector, "cards": ",".join(offer)},
                )
    return best[1] if best is not None else None


def _sale_at_resale_value(state: State, seat: int, legal: dict[str, dict[str, Any]]) -> Action | None:
    """A mortgage, then a card, whose market price is at least what it is expected to fetch later."""
    levels = expected_levels(state)
    for mortgage in sorted(state["mortgages"][seat], key=lambda m: m["card"]):
        card = mortgage["card"]
        if prices.market_price(state, card) >= resale_value(state, card, levels):
            if "sell_mortgage" in legal and card in legal["sell_mortgage"]["params"]["card"]["options"]:
                return {"type": "sell_mortgage", "card": card}
            if "redeem" in legal and card in legal["redeem"]["params"]["card"]["options"]:
                return {"type": "redeem", "card": card}  # no margin trading: redeem, then sell
    for card in sorted(state["hands"][seat]):
        if prices.market_price(state, card) >= resale_value(state, card, levels):
            return {"type": "sell", "card": card}
    return None


def _can_cash_out_for_black_tulip(state: State, seat: int) -> bool:
    """Whether selling everything now leaves 120 cash and no mortgage, so the black tulip is ours."""
    if not state["mortgages"][seat] and state["cash"][seat] >= BLACK_TULIP_PRICE:
        return False  # already qualified: keep the hand, the declaration is automatic
    liquid: int = state["cash"][seat] + sum(prices.market_price(state, card) for card in state["hands"][seat])
    liquid += sum(prices.market_price(state, m["card"]) - m["amount"] for m in state["mortgages"][seat])
    return liquid >= BLACK_TULIP_PRICE


def _cash_out(state: State, seat: int, legal: dict[str, dict[str, Any]]) -> Action:
    """Clear the mortgages first (sell them, or redeem them without margin trading), then sell the hand."""
    for mortgage in sorted(
        state["mortgages"][seat], key=lambda m: m["amount"] - prices.market_price(state, m["card"])
    ):
        for kind in ("sell_mortgage", "redeem"):
            if kind in legal and mortgage["card"] in legal[kind]["params"]["card"]["options"]:
                return {"type": kind, "card": mortgage["card"]}
    if state["hands"][seat]:
        return {
            "type": "sell",
            "card": max(state["hands"][seat], key=lambda card: prices.market_price(state, card)),
        }
    return {"type": "end_turn"}


def _placement_choice(state: State, seat: int, legal: dict[str, dict[str, Any]]) -> Action:
    if "place" not in legal:
        return {"type": "end_turn"}
    levels = expected_levels(state)
    hand = state["hands"][seat]
    committed = sum(prices.market_price(state, c) for c, seats in state["tokens"].items() if seat in seats)
    best: tuple[float, str] | None = None
    for card in legal["place"]["params"]["card"]["options"]:
        price = prices.market_price(state, card)
        gain = resale_value(state, card, levels) + _collector_gain(state, hand, card) - price
        affordable = committed + price <= state["cash"][seat] or len(state["mortgages"][seat]) < 2
        if gain > 0 and affordable and (best is None or gain > best[0]):
            best = (gain, card)
    if best is None:
        return {"type": "end_turn"}
    return {"type": "place", "card": best[1]}
