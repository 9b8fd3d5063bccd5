"""Pure rule helpers of Tulip Bubble: cards, prices, marker movement, supply and demand, collectors.

They work on the plain state dict; ``engine.py`` strings them together into phases.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, permutations
from typing import Any

from app.games.base import State, draw_rng
from app.games.tulip_bubble.data import (
    CARD_LABELS,
    COLLECTORS,
    COLOURS,
    LEVELS,
    PRICE_TABLE,
    ROWS,
    TOKENS_PER_PLAYER,
)


def colour_of(card: str) -> str:
    return card.split("-")[0]


def variety_of(card: str) -> str:
    return card.split("-")[1]


def grade_of(card: str) -> str:
    return variety_of(card)[0]


def label_of(card: str) -> str:
    """The translatable display name of a card ("Red B1")."""
    return CARD_LABELS[(colour_of(card), variety_of(card))]


def price_at(grade: str, level: int) -> int:
    return PRICE_TABLE[grade][level - 1]


def market_price(state: State, card: str) -> int:
    """A card's market value: its colour's price level crossed with its grade."""
    return price_at(grade_of(card), state["levels"][colour_of(card)])


# --- price markers ---------------------------------------------------------------------------


def move_marker(levels: dict[str, int], colour: str, steps: int) -> None:
    """Move one colour's price marker by ``steps`` levels (negative: down), in place.

    A level holds one marker: a marker landing on another keeps going the same way. If that runs
    past I or VII it settles on the nearest free level back toward where it started, which may be
    its own level (ruling 2; the rulebook's Rise, Surge and Plunge examples).
    """
    if steps == 0:
        return
    direction = 1 if steps > 0 else -1
    taken = {level for other, level in levels.items() if other != colour}
    target = levels[colour] + steps
    while LEVELS[0] <= target <= LEVELS[-1] and target in taken:
        target += direction
    if not LEVELS[0] <= target <= LEVELS[-1]:
        target = LEVELS[-1] if direction > 0 else LEVELS[0]
        while target in taken:
            target -= direction
    levels[colour] = target


def lowest_colour(levels: dict[str, int]) -> str:
    return min(COLOURS, key=lambda colour: levels[colour])


def highest_colour(levels: dict[str, int]) -> str:
    return max(COLOURS, key=lambda colour: levels[colour])


def row_counts(state: State) -> dict[str, int]:
    """How many tulips of each colour lie in the three rows."""
    counts = Counter(colour_of(card) for row in ROWS for card in state["rows"][row])
    return {colour: counts.get(colour, 0) for colour in COLOURS}


def supply_and_demand(levels: dict[str, int], counts: dict[str, int]) -> None:
    """End-phase price reaction, in place (ruling 3).

    All colours equal: no change. Otherwise every most-numerous colour moves down one level, then
    every least-numerous colour up one; of two markers moving the same way, the one further along
    that way moves first.
    """
    most, least = max(counts.values()), min(counts.values())
    if most == least:
        return
    falling = sorted((c for c in COLOURS if counts[c] == most), key=lambda c: levels[c])
    for colour in falling:
        move_marker(levels, colour, -1)
    rising = sorted((c for c in COLOURS if counts[c] == least), key=lambda c: -levels[c])
    for colour in rising:
        move_marker(levels, colour, 1)


# --- tulip deck ------------------------------------------------------------------------------


def deal(state: State, count: int) -> list[str]:
    """Take ``count`` cards from the tulip deck, shuffling the discards in when it runs short.

    If deck and discards together hold fewer cards (players hoard the rest), all of them are dealt.
    """
    dealt: list[str] = []
    while len(dealt) < count:
        if not state["deck"]:
            if not state["discard"]:
                break
            state["deck"] = state["discard"]
            state["discard"] = []
            draw_rng(state).shuffle(state["deck"])
            state["reshuffles"] += 1
        dealt.append(state["deck"].pop(0))
    return dealt


# --- tokens and mortgages -------------------------------------------------------------------


def tokens_placed(state: State, seat: int) -> int:
    return sum(seats.count(seat) for seats in state["tokens"].values())


def tokens_available(state: State, seat: int) -> int:
    """Purchase tokens in front of a player: not on a bid card, not resting on a mortgage."""
    return TOKENS_PER_PLAYER - len(state["mortgages"][seat]) - tokens_placed(state, seat)


def find_mortgage(state: State, seat: int, card: str) -> dict[str, Any] | None:
    for mortgage in state["mortgages"][seat]:
        if mortgage["card"] == card:
            return mortgage
    return None


def debts(state: State, seat: int) -> int:
    return sum(mortgage["amount"] for mortgage in state["mortgages"][seat])


# --- collectors ------------------------------------------------------------------------------


def fulfils(collector: str, cards: list[str]) -> bool:
    """Whether these cards are exactly one collector's order."""
    spec = COLLECTORS[collector]
    slots: tuple[str, ...] = spec["slots"]  # type: ignore[assignment]
    if len(cards) != len(slots) or len(set(cards)) != len(cards):
        return False
    colours = {colour_of(card) for card in cards}
    if spec["colours"] == "same" and len(colours) != 1:
        return False
    if spec["colours"] == "different" and len(colours) != len(cards):
        return False
    if "=" in slots:
        return len({variety_of(card) for card in cards}) == 1
    return any(
        all(
            variety_of(card) == slot or (len(slot) == 1 and grade_of(card) == slot)
            for card, slot in zip(ordering, slots, strict=True)
        )
        for ordering in permutations(cards)
    )


def collector_tops(state: State) -> list[str]:
    """The face-up collector of each non-empty pile."""
    return [pile[0] for pile in state["collectors"] if pile]


def collector_offers(collector: str, hand: list[str]) -> list[list[str]]:
    """Distinct ways (up to identical copies) to fulfil a collector's order from a hand."""
    size = len(COLLECTORS[collector]["slots"])  # type: ignore[arg-type]
    seen: set[tuple[str, ...]] = set()
    offers: list[list[str]] = []
    for combo in combinations(sorted(hand), size):
        key = tuple(sorted(card.rsplit("-", 1)[0] for card in combo))
        if key in seen or not fulfils(collector, list(combo)):
            continue
        seen.add(key)
        offers.append(list(combo))
    return offers
