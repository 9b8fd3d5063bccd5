"""The Basari engine: legal actions, validation and dispatch over ``rules.py``."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from app.games import base
from app.games.basari import bot, data, rules
from app.games.basari.data import COLOURS
from app.games.basari.rules import format_gems, gem_total, offer_key
from app.games.basari.view import seat_view
from app.games.base import N_, Action, GameInfo, IllegalAction, Result, State, View

INFO = GameInfo(
    id="basari",
    name_en="Basari",
    name_zh_hant="巴撒利市集",
    name_zh_hans="巴撒利市集",
    min_players=3,
    max_players=5,
    minutes="30",
    blurb=N_(
        "Pick an action in secret, bargain with gems when someone picked the same, "
        "and lead the colours when the market closes."
    ),
    regions=("summary", "bargain", "actions", "bank", "players", "log"),
)

RAISE_CONSTRAINT = N_(
    "Your offer must beat the current one: more gems, "
    "or as many gems with more red (then yellow, green, blue)."
)
EXCHANGE_CONSTRAINT = N_(
    "Take exactly two gems (fewer only if the bank runs short); the gem you return is back in the bank first."
)


def to_act(state: State) -> list[int]:
    phase = state["phase"]
    if phase == "choose":
        return [s for s in range(state["players"]) if state["chosen"][s] is None]
    if phase == "bargain":
        return [state["bargain"]["to_move"]]
    if phase == "d_exchange":
        return [state["d_seat"]]
    if phase == "d_take":
        return [state["d_queue"][0]]
    if phase == "round_summary":
        return [s for s in range(state["players"]) if s not in state["acknowledged"]]
    return []


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    own = state["gems"][seat]
    if phase == "choose":
        cards = list(data.action_cards(state["players"]))
        return [{"type": "choose", "label": N_("Play an action card"), "params": {"card": _choice(cards)}}]
    if phase == "bargain":
        offers = state["bargain"]["offers"]
        gems_domain = {"kind": "counts", "max": dict(own), "min_total": 1}
        if not offers:
            return [{"type": "offer", "label": N_("Offer"), "params": {"gems": gems_domain}}]
        current = offers[-1]["gems"]
        legal: list[dict[str, Any]] = [{"type": "accept", "label": N_("Accept"), "params": {}}]
        if rules.can_beat(own, current):
            gems_domain["min_total"] = gem_total(current)
            legal.append(
                {
                    "type": "offer",
                    "label": N_("Raise the offer"),
                    "params": {"gems": gems_domain},
                    "constraint": RAISE_CONSTRAINT,
                }
            )
        return legal
    if phase == "d_exchange":
        size = rules.d_exchange_size(state, seat)
        bank = state["bank"]
        take_max = {c: min(size, bank[c] + (1 if own[c] else 0)) for c in COLOURS}
        params: dict[str, Any] = {"take": {"kind": "counts", "max": take_max, "min_total": size}}
        if gem_total(own):
            params["give"] = _choice([c for c in COLOURS if own[c]])
        return [
            {
                "type": "exchange",
                "label": N_("Exchange gems"),
                "params": params,
                "constraint": EXCHANGE_CONSTRAINT,
            }
        ]
    if phase == "d_take":
        colours = [c for c in COLOURS if state["bank"][c]]
        return [{"type": "take", "label": N_("Take a gem"), "params": {"colour": _choice(colours)}}]
    return [{"type": "continue", "label": N_("Continue"), "params": {}}]


def _choice(options: list[Any]) -> dict[str, Any]:
    return {"kind": "choice", "options": options}


def _require_turn(state: State, seat: int, phase: str, message: str) -> None:
    if state["phase"] != phase or seat not in to_act(state):
        raise IllegalAction(message)


def _choose(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "choose", N_("You cannot choose an action card now."))
    card = action.get("card")
    cards = data.action_cards(state["players"])
    if isinstance(card, str):
        card = card.strip().upper()
    if card not in cards:
        raise IllegalAction(N_("Choose one of your action cards: {cards}."), cards=", ".join(cards))
    rules.choose(state, seat, card)


def _offer(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "bargain", N_("It is not your turn to offer."))
    gems = rules.parse_gems(action, "gems")
    own = state["gems"][seat]
    if gem_total(gems) < 1:
        raise IllegalAction(N_("An offer needs at least one gem."))
    if any(gems[c] > own[c] for c in COLOURS):
        raise IllegalAction(
            N_("You offer {gems} but hold only {have}."), gems=format_gems(gems), have=format_gems(own)
        )
    offers = state["bargain"]["offers"]
    if offers and offer_key(gems) <= offer_key(offers[-1]["gems"]):
        raise IllegalAction(
            N_(
                "Your offer {gems} does not beat {current}: offer more gems, "
                "or as many gems with more red (then yellow, green, blue)."
            ),
            gems=format_gems(gems),
            current=format_gems(offers[-1]["gems"]),
        )
    rules.offer(state, seat, gems)


def _accept(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "bargain", N_("It is not your turn to answer an offer."))
    if not state["bargain"]["offers"]:
        raise IllegalAction(N_("There is no offer to accept yet: you offer first."))
    rules.accept(state, seat)


def _exchange(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "d_exchange", N_("You cannot exchange gems now."))
    own = state["gems"][seat]
    give: str | None = None
    if gem_total(own):
        give = rules.parse_colour(action.get("give"))
        if not own[give]:
            raise IllegalAction(N_("You have no gem of that colour to return."))
    elif action.get("give") not in (None, ""):
        raise IllegalAction(N_("You have no gems, so you return nothing."))
    take = rules.parse_gems(action, "take")
    size = rules.d_exchange_size(state, seat)
    if gem_total(take) != size:
        raise IllegalAction(N_("Take exactly {count} gems from the bank."), count=size)
    bank = {c: state["bank"][c] + (1 if c == give else 0) for c in COLOURS}
    if any(take[c] > bank[c] for c in COLOURS):
        raise IllegalAction(
            N_("The bank holds only {bank}; you asked for {gems}."),
            bank=format_gems(bank),
            gems=format_gems(take),
        )
    rules.d_exchange(state, seat, give, take)


def _take(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "d_take", N_("It is not your turn to take a gem."))
    colour = rules.parse_colour(action.get("colour"))
    if not state["bank"][colour]:
        raise IllegalAction(N_("The bank has no gem of that colour left."))
    rules.d_take(state, seat, colour)


def _continue(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "round_summary", N_("There is no round summary to close now."))
    rules.acknowledge(state, seat)


HANDLERS: dict[str, Callable[[State, int, Action], None]] = {
    "choose": _choose,
    "offer": _offer,
    "accept": _accept,
    "exchange": _exchange,
    "take": _take,
    "continue": _continue,
}


class BasariEngine:
    """``base.Engine`` for Basari; all state is a plain dict, see ``rules.new_game``."""

    info = INFO

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        if not INFO.min_players <= players <= INFO.max_players:
            raise IllegalAction(N_("Basari is played by 3 to 5 players."))
        return rules.new_game(players, options, seed)

    def to_act(self, state: State) -> list[int]:
        return to_act(state)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        return legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> State:
        if state["finished"]:
            raise IllegalAction(N_("The game is over."))
        if not isinstance(action, dict):
            raise IllegalAction(N_("That is not an action."))
        kind = action.get("type")
        handler = HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise IllegalAction(N_("There is no action called {type} in Basari."), type=rules.shown(kind))
        if not isinstance(seat, int) or not 0 <= seat < state["players"]:
            raise IllegalAction(N_("You are not a player at this table."))
        new_state = base.copy_state(state)
        handler(new_state, seat, action)
        return new_state

    def view(self, state: State, seat: int | None) -> View:
        return seat_view(state, seat, to_act(state))

    def result(self, state: State) -> Result | None:
        if not state["finished"]:
            return None
        return Result(winners=rules.winners(state), scores=list(state["scores"]))

    def bot_action(self, state: State, seat: int, rng: random.Random) -> Action:
        return bot.choose_action(state, seat, rng)
