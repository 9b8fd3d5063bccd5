"""Basari bots that play from their own seat's view only, in two strengths.

Normal values each action in points (gems by the majorities they may swing, workers by the round-end
bonus they near, market cards by their points), weighs each against how likely the rivals are to
choose it too (a smoothed best answer for every seat: ``choice_odds``) and draws its card from those
odds, and bargains while winning is worth more than accepting. The cards still in the deck are public
arithmetic: every market card not on a display.

Easy plays like a newcomer: it takes the action that looks best for itself with much noise, never
thinks about who else wants it, and gives way in a bargain at once unless it holds a single gem to
offer.
"""

from __future__ import annotations

import math
import random
from itertools import product
from typing import Any

from app.games.basari import data
from app.games.basari.data import COLOURS, MAJORITY_POINTS, MARKET_CARDS, Gems
from app.games.basari.rules import gem_total, offer_key
from app.games.base import Action, Budget, View

Table = dict[str, Any]  # what the bot reads of its view, in the shape its arithmetic wants


def table_of(view: View) -> Table:
    """Gems, workers and top cards of every seat, the bank, and the cards the deck may still hold."""
    displayed = {card["id"] for seat in view["seats"] for card in seat["display"]}
    return {
        "players": view["players"],
        "gems": [dict(seat["gems"]) for seat in view["seats"]],
        "workers": [seat["workers"] for seat in view["seats"]],
        "tops": [seat["top"] for seat in view["seats"]],
        "bank": dict(view["bank"]),
        "deck": [card for card in MARKET_CARDS if card not in displayed],
    }


BASE_GEM_VALUE = 0.4
NEAR_BONUS_VALUE = 6.0
CLASH_FACTOR = {0: 1.0, 1: 0.45}  # two bidders pay for it; three or more lose it
CHOICE_TEMPERATURE = 0.3  # points: how far a card's worth must fall behind before it is rarely chosen
CHOICE_ROUNDS = 4


def gem_value(state: Table, seat: int, colour: str) -> float:
    """What one more gem of ``colour`` is worth to ``seat``, in points: most where it swings a majority."""
    gems = state["gems"]
    mine = gems[seat][colour]
    best_other = max(gems[s][colour] for s in range(state["players"]) if s != seat)
    gap = mine - best_other
    if gap >= 3:
        swing = 0.15
    elif gap >= 0:
        swing = 0.5
    elif gap >= -2:
        swing = 0.35
    else:
        swing = 0.1
    return BASE_GEM_VALUE + swing * MAJORITY_POINTS[colour] / 4


def gems_value(state: Table, seat: int, gems: Gems) -> float:
    return sum(gems[c] * gem_value(state, seat, c) for c in COLOURS)


def _expected_workers(state: Table) -> float:
    deck = state["deck"]
    if not deck:
        return 0.0
    workers: int = sum(MARKET_CARDS[card]["workers"] for card in deck)
    return workers / len(deck)


def action_value(state: Table, seat: int, card: str) -> float:
    """The worth of performing ``card`` this turn, in points."""
    if card == "A":
        have = state["workers"][seat]
        expected = _expected_workers(state)
        if have >= data.ROUND_END_WORKERS:
            return 0.3
        value = expected * 0.5
        if have + expected + 1 >= data.ROUND_END_WORKERS:
            value += NEAR_BONUS_VALUE
        return value
    if card == "D":
        best = max(gem_value(state, seat, c) for c in COLOURS)
        return 1.5 * best
    top = state["tops"][seat]
    if top is None:
        return 0.0
    if card == "B":
        return float(top["points"])
    received = {c: min(top["gems"][c], state["bank"][c]) for c in COLOURS}
    return gems_value(state, seat, received)


def _softmax(values: dict[str, float]) -> dict[str, float]:
    top = max(values.values())
    weights = {card: math.exp((value - top) / CHOICE_TEMPERATURE) for card, value in values.items()}
    total = sum(weights.values())
    return {card: weight / total for card, weight in weights.items()}


def _share_kept(card: str, others: list[float]) -> float:
    """The expected share of an action's worth its chooser keeps, when each rival picks the card with
    the chance in ``others``: all of it alone, part of it after a bargain, nothing when three or more
    chose it (ruling 2; D is never blocked)."""
    if card == "D":
        return 1.0
    alone, one = 1.0, 0.0  # chances that no rival / exactly one rival chose it so far
    for chance in others:
        alone, one = alone * (1 - chance), one * (1 - chance) + alone * chance
    return alone + CLASH_FACTOR[1] * one


def choice_odds(state: Table) -> list[dict[str, float]]:
    """How likely each seat is to choose each action card, as everyone weighs the others' likely choices.

    Each seat starts from its own values of the cards and then, a few times over, answers the others'
    current odds with the expected worth each card keeps (a smoothed best answer, the same reasoning
    for every seat). Bots that each took their single best answer would all dodge the same crowd and
    meet in the next one; drawing from these odds spreads them the way the values allow.
    """
    players = state["players"]
    cards = data.action_cards(players)
    values = [{card: action_value(state, seat, card) for card in cards} for seat in range(players)]
    odds = [_softmax(own) for own in values]
    for _ in range(CHOICE_ROUNDS):
        answers = []
        for seat in range(players):
            expected = {
                card: values[seat][card]
                * _share_kept(card, [odds[other][card] for other in range(players) if other != seat])
                for card in cards
            }
            answers.append(_softmax(expected))
        odds = [
            {card: (odds[seat][card] + answers[seat][card]) / 2 for card in cards} for seat in range(players)
        ]
    return odds


def choose_card(state: Table, seat: int, rng: random.Random) -> str:
    """A card drawn from this seat's odds (``choice_odds``): mostly the best answer to the rivals'
    likely choices, and now and then the next best, so that a table of bots does not all dodge alike."""
    odds = choice_odds(state)[seat]
    cards = list(odds)
    return rng.choices(cards, weights=[odds[card] for card in cards])[0]


def _offers_of(own: Gems, total: int) -> list[Gems]:
    ranges = [range(min(own[c], total) + 1) for c in COLOURS[:-1]]
    offers = []
    for red, yellow, green in product(*ranges):
        blue = total - red - yellow - green
        if 0 <= blue <= own["blue"]:
            offers.append({"red": red, "yellow": yellow, "green": green, "blue": blue})
    return offers


def cheapest_raise(state: Table, seat: int, current: Gems) -> Gems | None:
    """The offer beating ``current`` that costs ``seat`` the least, or None if none beats it."""
    own = state["gems"][seat]
    total = gem_total(current)
    candidates = [
        gems
        for size in (total, total + 1)
        for gems in _offers_of(own, size)
        if offer_key(gems) > offer_key(current)
    ]
    if not candidates:
        return None
    return min(candidates, key=lambda gems: (gems_value(state, seat, gems), offer_key(gems)))


def bargain_action(state: Table, bargain: dict[str, Any], seat: int) -> Action:
    own = state["gems"][seat]
    if not bargain["offers"]:
        colour = min((c for c in COLOURS if own[c]), key=lambda c: gem_value(state, seat, c))
        return {"type": "offer", "gems": {c: int(c == colour) for c in COLOURS}}
    current = bargain["offers"][-1]["gems"]
    raise_with = cheapest_raise(state, seat, current)
    if raise_with is None:
        return {"type": "accept"}
    worth = action_value(state, seat, bargain["card"])
    if worth - gems_value(state, seat, raise_with) > gems_value(state, seat, current):
        return {"type": "offer", "gems": raise_with}
    return {"type": "accept"}


def exchange_action(state: Table, seat: int, size: int) -> Action:
    """Sole D: return the gem this seat values least, then take the two it values most."""
    trial = {"players": state["players"], "gems": [dict(g) for g in state["gems"]]}
    bank = dict(state["bank"])
    action: Action = {"type": "exchange"}
    own = trial["gems"][seat]
    if gem_total(own):
        give = min((c for c in COLOURS if own[c]), key=lambda c: gem_value(trial, seat, c))
        own[give] -= 1
        bank[give] += 1
        action["give"] = give
    take = dict.fromkeys(COLOURS, 0)
    for _ in range(size):
        colour = max((c for c in COLOURS if bank[c]), key=lambda c: gem_value(trial, seat, c))
        bank[colour] -= 1
        own[colour] += 1
        take[colour] += 1
    action["take"] = take
    return action


def easy_card(state: Table, seat: int, rng: random.Random) -> str:
    """The card that looks best for the bot alone, judged roughly."""
    cards = data.action_cards(state["players"])
    return max(cards, key=lambda card: action_value(state, seat, card) + rng.uniform(0, 4.0))


def easy_bargain(state: Table, bargain: dict[str, Any], seat: int, rng: random.Random) -> Action:
    own = state["gems"][seat]
    if not bargain["offers"]:
        colour = rng.choice([c for c in COLOURS if own[c]])
        return {"type": "offer", "gems": {c: int(c == colour) for c in COLOURS}}
    return {"type": "accept"}


def bot_action(
    view: View, seat: int, legal: list[dict[str, Any]], rng: random.Random, strength: str, budget: Budget
) -> Action:
    phase = view["phase"]
    state = table_of(view)
    easy = strength == "easy"
    if phase == "choose":
        card = easy_card(state, seat, rng) if easy else choose_card(state, seat, rng)
        return {"type": "choose", "card": card}
    if phase == "bargain":
        if easy:
            return easy_bargain(state, view["bargain"], seat, rng)
        return bargain_action(state, view["bargain"], seat)
    if phase == "d_exchange":
        return exchange_action(state, seat, view["d_exchange_size"])
    if phase == "d_take":
        colours = [c for c in COLOURS if state["bank"][c]]
        if easy:
            return {"type": "take", "colour": rng.choice(colours)}
        return {"type": "take", "colour": max(colours, key=lambda c: gem_value(state, seat, c))}
    return {"type": "continue"}
