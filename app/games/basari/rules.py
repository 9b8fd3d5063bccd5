"""Basari (the card game): turn flow, bargaining and round-end scoring (the components are in ``data.py``).

Rule numbers in docstrings refer to ``../shared/rulings/basari.md``. ``apply`` copies the state, checks
the action (the handlers near the end) and calls the flow function that performs it; every flow
function works on that copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.games import base
from app.games.basari.data import (
    COLOUR_LETTERS,
    COLOURS,
    GAME_ID,
    GEMS_PER_COLOUR,
    MAJORITY_POINTS,
    MARKET_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROUND_END_WORKERS,
    ROUNDS,
    START_GEMS_PER_COLOUR,
    TIED_LEADER_RETURN,
    WORKER_BONUS,
    Gems,
    action_cards,
)
from app.games.base import N_, NP_, Action, IllegalAction, Result, State

MAJORITY_EVENTS: dict[str, tuple[str, str]] = {
    "red": NP_(
        "{seat} leads red with {count} gem: {points} points, returns {returned}.",
        "{seat} leads red with {count} gems: {points} points, returns {returned}.",
    ),
    "yellow": NP_(
        "{seat} leads yellow with {count} gem: {points} points, returns {returned}.",
        "{seat} leads yellow with {count} gems: {points} points, returns {returned}.",
    ),
    "green": NP_(
        "{seat} leads green with {count} gem: {points} points, returns {returned}.",
        "{seat} leads green with {count} gems: {points} points, returns {returned}.",
    ),
    "blue": NP_(
        "{seat} leads blue with {count} gem: {points} points, returns {returned}.",
        "{seat} leads blue with {count} gems: {points} points, returns {returned}.",
    ),
}
RAISE_CONSTRAINT = N_(
    "Your offer must beat the current one: more gems, "
    "or as many gems with more red (then yellow, green, blue)."
)
EXCHANGE_CONSTRAINT = N_(
    "Take exactly two gems (fewer only if the bank runs short); the gem you return is back in the bank first."
)


def no_gems() -> Gems:
    return dict.fromkeys(COLOURS, 0)


def gem_total(gems: Gems) -> int:
    return sum(gems[c] for c in COLOURS)


def offer_key(gems: Gems) -> tuple[int, ...]:
    """Offers compare by number of gems, then red, yellow, green, blue (ruling 4)."""
    return (gem_total(gems), *(gems[c] for c in COLOURS))


def format_gems(gems: Gems) -> dict[str, Any]:
    """A gem list for a message, such as ``2R 1B`` (``2紅 1藍`` in Chinese: each language its letters)."""
    return base.counted([(gems[c], COLOUR_LETTERS[c]) for c in COLOURS if gems[c]])


def workers(state: State, seat: int) -> int:
    return sum(MARKET_CARDS[card]["workers"] for card in state["displays"][seat])


def top_card(state: State, seat: int) -> dict[str, Any] | None:
    """The card on top of a display: the one whose points (B) and gems (C) count."""
    display = state["displays"][seat]
    return MARKET_CARDS[display[-1]] if display else None


def seat_order(state: State) -> list[int]:
    """Seats in table order starting from the first player."""
    n = state["players"]
    return [(state["first_player"] + i) % n for i in range(n)]


def bidding_priority(state: State, seats: list[int]) -> list[int]:
    """Who offers (or takes) first: more red, yellow, green, blue gems, points, workers, then seat order.

    Ruling 4 puts "the player earlier in seat order from the first player" in place of "the oldest".
    """
    n = state["players"]

    def key(seat: int) -> tuple[int, ...]:
        gems = state["gems"][seat]
        return (
            *(-gems[c] for c in COLOURS),
            -state["scores"][seat],
            -workers(state, seat),
            (seat - state["first_player"]) % n,
        )

    return sorted(seats, key=key)


def can_beat(gems: Gems, current: Gems) -> bool:
    """Whether some offer from ``gems`` beats ``current``: offering every gem is the highest offer."""
    return offer_key(gems) > offer_key(current)


# --- setup and the flow of a round -------------------------------------------------------------


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(N_("Basari is played by 3 to 5 players."))
    state = base.new_state(GAME_ID, players, options, seed)
    start = dict.fromkeys(COLOURS, START_GEMS_PER_COLOUR)
    state.update(
        {
            "first_player": 0,
            "round": 0,
            "turn": 0,
            "phase": "choose",
            "deck": [],
            "displays": [[] for _ in range(players)],
            "gems": [dict(start) for _ in range(players)],
            "bank": {c: GEMS_PER_COLOUR - players * START_GEMS_PER_COLOUR for c in COLOURS},
            "scores": [0] * players,
            "deck_ran_out": False,
            "chosen": [None] * players,
            "revealed": [None] * players,
            "last_revealed": [None] * players,
            "pending": [],
            "bargain": None,
            "d_seat": None,
            "d_queue": [],
            "acknowledged": [],
            "round_summaries": [],
            "score_history": [{"round": 0, "turn": 0, "scores": [0] * players}],
        }
    )
    start_round(state)
    return state


def start_round(state: State) -> None:
    """Ruling 6: every market card is shuffled back into one deck; players keep their gems."""
    state["round"] += 1
    state["turn"] = 0
    state["displays"] = [[] for _ in range(state["players"])]
    deck = sorted(MARKET_CARDS)
    base.draw_rng(state).shuffle(deck)
    state["deck"] = deck
    state["deck_ran_out"] = False
    base.log_event(state, N_("Round {round} begins."), round=state["round"])
    start_turn(state)


def draw_market_card(state: State, seat: int) -> dict[str, Any] | None:
    """Move the top card of the deck onto a display; an empty deck ends the round (ruling 7)."""
    if not state["deck"]:
        state["deck_ran_out"] = True
        base.log_event(
            state,
            N_("The market deck is empty: {seat} gets no card, and the round ends after this turn."),
            seat=base.seat_ref(seat),
        )
        return None
    card_id = state["deck"].pop(0)
    state["displays"][seat].append(card_id)
    return MARKET_CARDS[card_id]


def start_turn(state: State) -> None:
    """Ruling 1 (1): everyone draws the top market card, in seat order from the first player."""
    state["turn"] += 1
    for seat in seat_order(state):
        card = draw_market_card(state, seat)
        if card is not None:
            base.log_event(
                state,
                N_("{seat} drew a market card (workers {workers}, points {points}, gems {gems})."),
                seat=base.seat_ref(seat),
                workers=card["workers"],
                points=card["points"],
                gems=format_gems(card["gems"]),
            )
    state["phase"] = "choose"
    state["chosen"] = [None] * state["players"]
    state["revealed"] = [None] * state["players"]


def choose(state: State, seat: int, card: str) -> None:
    """Ruling 1 (2): a secret choice; the cards are revealed together once everyone has chosen."""
    state["chosen"][seat] = card
    base.log_event(state, N_("{seat} has chosen an action card."), seat=base.seat_ref(seat))
    base.log_event(state, N_("You chose card {card}."), to=[seat], card=base.verbatim(card))
    if all(choice is not None for choice in state["chosen"]):
        reveal(state)


def reveal(state: State) -> None:
    state["revealed"] = state["chosen"]
    state["chosen"] = [None] * state["players"]
    for seat in seat_order(state):
        base.log_event(
            state,
            N_("{seat} played card {card}."),
            seat=base.seat_ref(seat),
            card=base.verbatim(state["revealed"][seat]),
        )
    state["pending"] = list(action_cards(state["players"]))
    resolve(state)


def choosers(state: State, card: str) -> list[int]:
    return [seat for seat in seat_order(state) if state["revealed"][seat] == card]


def resolve(state: State) -> None:
    """Ruling 1 (3) and 2: resolve A, B, C (then D) in order until a player must decide something."""
    while state["pending"]:
        card = state["pending"][0]
        seats = choosers(state, card)
        if card == "D" and seats:
            if start_d(state, seats):
                return
        elif len(seats) == 1:
            perform(state, seats[0], card)
        elif len(seats) == 2:
            if start_bargain(state, card, seats):
                return
        elif len(seats) >= 3:
            base.log_event(
                state,
                N_("{count} players chose card {card}: nobody performs it."),
                count=len(seats),
                card=base.verbatim(card),
            )
        state["pending"].pop(0)
    end_turn(state)


def perform(state: State, seat: int, card: str) -> None:
    """Ruling 3: A draws a card, B scores the top card's points, C takes its gems from the bank."""
    who = base.seat_ref(seat)
    if card == "A":
        drawn = draw_market_card(state, seat)
        if drawn is not None:
            base.log_event(
                state,
                N_("{seat} performs card A and adds a market card (workers {workers})."),
                seat=who,
                workers=drawn["workers"],
            )
        return
    top = top_card(state, seat)
    if top is None:
        base.log_event(
            state,
            N_("{seat} has no market card, so card {card} brings nothing."),
            seat=who,
            card=base.verbatim(card),
        )
        return
    if card == "B":
        state["scores"][seat] += top["points"]
        base.log_event(
            state,
            NP_(
                "{seat} performs card B and scores {count} point.",
                "{seat} performs card B and scores {count} points.",
            ),
            seat=who,
            count=top["points"],
        )
        return
    received = {c: min(top["gems"][c], state["bank"][c]) for c in COLOURS}
    for c in COLOURS:
        state["bank"][c] -= received[c]
        state["gems"][seat][c] += received[c]
    if received == top["gems"]:
        base.log_event(
            state,
            N_("{seat} performs card C and takes {gems} from the bank."),
            seat=who,
            gems=format_gems(received),
        )
    else:
        base.log_event(
            state,
            N_("{seat} performs card C and takes {gems} from the bank; the bank lacks the rest of {wanted}."),
            seat=who,
            gems=format_gems(received),
            wanted=format_gems(top["gems"]),
        )


# --- bargaining (ruling 4) ---------------------------------------------------------------------


def start_bargain(state: State, card: str, seats: list[int]) -> bool:
    """Open the bargain for ``card``; returns False when it is settled at once (a bidder has no gems).

    If neither bidder has a gem, the one with bidding priority performs the action (our reading;
    the rules only cover one empty-handed bidder).
    """
    first, second = bidding_priority(state, seats)
    empty = [seat for seat in (first, second) if gem_total(state["gems"][seat]) == 0]
    if empty:
        winner = second if empty == [first] else first
        base.log_event(
            state,
            N_("{loser} has no gems to offer, so {seat} performs card {card} without paying."),
            loser=base.seat_ref(second if winner == first else first),
            seat=base.seat_ref(winner),
            card=base.verbatim(card),
        )
        perform(state, winner, card)
        return False
    state["phase"] = "bargain"
    state["bargain"] = {"card": card, "bidders": [first, second], "offers": [], "to_move": first}
    base.log_event(
        state,
        N_("{seat} and {other} both chose card {card} and bargain for it; {seat} offers first."),
        seat=base.seat_ref(first),
        other=base.seat_ref(second),
        card=base.verbatim(card),
    )
    return True


def offer(state: State, seat: int, gems: Gems) -> None:
    bargain = state["bargain"]
    bargain["offers"].append({"seat": seat, "gems": gems})
    first, second = bargain["bidders"]
    bargain["to_move"] = second if seat == first else first
    base.log_event(
        state,
        N_("{seat} offers {gems} (total {count}) for card {card}."),
        seat=base.seat_ref(seat),
        gems=format_gems(gems),
        count=gem_total(gems),
        card=base.verbatim(bargain["card"]),
    )


def accept(state: State, seat: int) -> None:
    """The accepting player takes the offered gems; the offering player performs the action."""
    bargain = state["bargain"]
    last = bargain["offers"][-1]
    offerer, gems = last["seat"], last["gems"]
    for c in COLOURS:
        state["gems"][offerer][c] -= gems[c]
        state["gems"][seat][c] += gems[c]
    base.log_event(
        state,
        N_("{seat} accepts {gems} from {offerer}, who performs card {card}."),
        seat=base.seat_ref(seat),
        gems=format_gems(gems),
        offerer=base.seat_ref(offerer),
        card=base.verbatim(bargain["card"]),
    )
    state["bargain"] = None
    state["phase"] = "resolve"
    perform(state, offerer, bargain["card"])
    state["pending"].pop(0)
    resolve(state)


# --- action D with five players (ruling 5) -----------------------------------------------------


def start_d(state: State, seats: list[int]) -> bool:
    """Returns True when a player must now pick gems for D."""
    if len(seats) == 1:
        state["phase"] = "d_exchange"
        state["d_seat"] = seats[0]
        return True
    state["d_queue"] = bidding_priority(state, seats)
    base.log_event(
        state,
        N_("{count} players chose card D: each takes one gem from the bank, {seat} first."),
        count=len(seats),
        seat=base.seat_ref(state["d_queue"][0]),
    )
    return next_d_taker(state)


def next_d_taker(state: State) -> bool:
    """Skip the D queue when the bank is empty; True while someone still takes a gem."""
    if state["d_queue"] and sum(state["bank"].values()) > 0:
        state["phase"] = "d_take"
        return True
    for seat in state["d_queue"]:
        base.log_event(state, N_("The bank is empty: {seat} takes no gem."), seat=base.seat_ref(seat))
    state["d_queue"] = []
    return False


def d_take(state: State, seat: int, colour: str) -> None:
    state["bank"][colour] -= 1
    state["gems"][seat][colour] += 1
    state["d_queue"].pop(0)
    base.log_event(
        state,
        N_("{seat} takes {gems} from the bank (card D)."),
        seat=base.seat_ref(seat),
        gems=format_gems({c: int(c == colour) for c in COLOURS}),
    )
    if not next_d_taker(state):
        state["phase"] = "resolve"
        state["pending"].pop(0)
        resolve(state)


def d_exchange_size(state: State, seat: int) -> int:
    """How many gems the sole D chooser takes: two, unless the bank (after the return) holds fewer."""
    returned = 1 if gem_total(state["gems"][seat]) else 0
    return min(2, gem_total(state["bank"]) + returned)


def d_exchange(state: State, seat: int, give: str | None, take: Gems) -> None:
    """Sole D: return one gem, then take two. A player without gems returns nothing (our reading)."""
    if give is not None:
        state["gems"][seat][give] -= 1
        state["bank"][give] += 1
    for c in COLOURS:
        state["bank"][c] -= take[c]
        state["gems"][seat][c] += take[c]
    base.log_event(
        state,
        N_("{seat} performs card D: returns {given} and takes {gems} from the bank."),
        seat=base.seat_ref(seat),
        given=format_gems({c: int(c == give) for c in COLOURS}),
        gems=format_gems(take),
    )
    state["d_seat"] = None
    state["phase"] = "resolve"
    state["pending"].pop(0)
    resolve(state)


# --- end of a turn, a round, the game ----------------------------------------------------------


def end_turn(state: State) -> None:
    state["last_revealed"] = list(state["revealed"])
    state["score_history"].append(
        {"round": state["round"], "turn": state["turn"], "scores": list(state["scores"])}
    )
    n = state["players"]
    if state["deck_ran_out"] or any(workers(state, s) >= ROUND_END_WORKERS for s in range(n)):
        score_round(state)
    else:
        start_turn(state)


def score_round(state: State) -> None:
    """Ruling 6: colour majorities with their returns, then the worker bonus; kept as a summary."""
    n = state["players"]
    rows: list[dict[str, Any]] = [
        {
            "seat": seat,
            "gems": dict(state["gems"][seat]),
            "workers": workers(state, seat),
            "colour_points": no_gems(),
            "returned": no_gems(),
            "worker_bonus": 0,
            "round_points": 0,
        }
        for seat in range(n)
    ]
    colours = []
    for c in COLOURS:
        most = max(state["gems"][s][c] for s in range(n))
        leaders = [s for s in range(n) if most > 0 and state["gems"][s][c] == most]
        if not leaders:
            points, returned = 0, 0
        elif len(leaders) == 1:
            points, returned = MAJORITY_POINTS[c], (most + 1) // 2
        else:
            points, returned = MAJORITY_POINTS[c] // len(leaders), min(TIED_LEADER_RETURN, most)
        for s in leaders:
            rows[s]["colour_points"][c] = points
            rows[s]["returned"][c] = returned
            state["scores"][s] += points
            state["gems"][s][c] -= returned
            state["bank"][c] += returned
            base.log_event(
                state,
                MAJORITY_EVENTS[c],
                seat=base.seat_ref(s),
                count=most,
                points=points,
                returned=returned,
            )
        colours.append(
            {"colour": c, "most": most, "leaders": leaders, "points": points, "returned": returned}
        )
    for row in rows:
        if row["workers"] >= ROUND_END_WORKERS:
            row["worker_bonus"] = WORKER_BONUS
            state["scores"][row["seat"]] += WORKER_BONUS
            base.log_event(
                state,
                N_("{seat} has {workers} workers and scores {points}."),
                seat=base.seat_ref(row["seat"]),
                workers=row["workers"],
                points=WORKER_BONUS,
            )
        row["round_points"] = sum(row["colour_points"].values()) + row["worker_bonus"]
        row["total"] = state["scores"][row["seat"]]
    state["round_summaries"].append({"round": state["round"], "colours": colours, "rows": rows})
    state["score_history"].append({"round": state["round"], "turn": None, "scores": list(state["scores"])})
    base.log_event(state, N_("Round {round} is scored."), round=state["round"])
    state["pending"] = []
    state["revealed"] = [None] * n
    if state["round"] >= ROUNDS:
        finish(state)
    else:
        state["phase"] = "round_summary"
        state["acknowledged"] = []


def acknowledge(state: State, seat: int) -> None:
    """The round summary stays up until every player has read it (bots at once)."""
    state["acknowledged"].append(seat)
    if len(state["acknowledged"]) == state["players"]:
        state["acknowledged"] = []
        start_round(state)


def winners(state: State) -> list[int]:
    best = max(state["scores"])
    return [s for s in range(state["players"]) if state["scores"][s] == best]


def finish(state: State) -> None:
    """Ruling 8: after the third round the highest total wins; ties share the win."""
    state["phase"] = "finished"
    state["finished"] = True
    for seat in winners(state):
        base.log_event(
            state,
            N_("{seat} wins with {points} points."),
            seat=base.seat_ref(seat),
            points=state["scores"][seat],
        )


# --- whose turn, what is legal, apply, the result ---------------------------------------------


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
        cards = list(action_cards(state["players"]))
        return [{"type": "choose", "label": N_("Play an action card"), "params": {"card": _choice(cards)}}]
    if phase == "bargain":
        offers = state["bargain"]["offers"]
        gems_domain = {"kind": "counts", "max": dict(own), "min_total": 1}
        if not offers:
            return [{"type": "offer", "label": N_("Offer"), "params": {"gems": gems_domain}}]
        current = offers[-1]["gems"]
        legal: list[dict[str, Any]] = [{"type": "accept", "label": N_("Accept"), "params": {}}]
        if can_beat(own, current):
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
        size = d_exchange_size(state, seat)
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


REFUSALS = base.Refusals(
    not_an_action=N_("That is not an action."),
    game_over=N_("The game is over."),
    not_seated=N_("You are not a player at this table."),
)


def apply(state: State, seat: int, action: Action) -> State:
    kind = base.open_apply(state, seat, action, REFUSALS).get("type")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise IllegalAction(N_("There is no action called {type} in Basari."), type=shown(kind))
    new_state = base.copy_state_sharing_log(state)
    handler(new_state, seat, action)
    return new_state


def result(state: State) -> Result | None:
    if not state["finished"]:
        return None
    return Result(winners=winners(state), scores=list(state["scores"]))


def _choice(options: list[Any]) -> dict[str, Any]:
    return {"kind": "choice", "options": options}


# --- validating what a player sends, then calling the flow above --------------------------------


def _require_turn(state: State, seat: int, phase: str, message: str) -> None:
    if state["phase"] != phase or seat not in to_act(state):
        raise IllegalAction(message)


def _choose(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "choose", N_("You cannot choose an action card now."))
    card = action.get("card")
    cards = action_cards(state["players"])
    if isinstance(card, str):
        card = card.strip().upper()
    if card not in cards:
        raise IllegalAction(N_("Choose one of your action cards: {cards}."), cards=", ".join(cards))
    choose(state, seat, card)


def _offer(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "bargain", N_("It is not your turn to offer."))
    gems = parse_gems(action, "gems")
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
    offer(state, seat, gems)


def _accept(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "bargain", N_("It is not your turn to answer an offer."))
    if not state["bargain"]["offers"]:
        raise IllegalAction(N_("There is no offer to accept yet: you offer first."))
    accept(state, seat)


def _exchange(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "d_exchange", N_("You cannot exchange gems now."))
    own = state["gems"][seat]
    give: str | None = None
    if gem_total(own):
        give = parse_colour(action.get("give"))
        if not own[give]:
            raise IllegalAction(N_("You have no gem of that colour to return."))
    elif action.get("give") not in (None, ""):
        raise IllegalAction(N_("You have no gems, so you return nothing."))
    take = parse_gems(action, "take")
    size = d_exchange_size(state, seat)
    if gem_total(take) != size:
        raise IllegalAction(N_("Take exactly {count} gems from the bank."), count=size)
    bank = {c: state["bank"][c] + (1 if c == give else 0) for c in COLOURS}
    if any(take[c] > bank[c] for c in COLOURS):
        raise IllegalAction(
            N_("The bank holds only {bank}; you asked for {gems}."),
            bank=format_gems(bank),
            gems=format_gems(take),
        )
    d_exchange(state, seat, give, take)


def _take(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "d_take", N_("It is not your turn to take a gem."))
    colour = parse_colour(action.get("colour"))
    if not state["bank"][colour]:
        raise IllegalAction(N_("The bank has no gem of that colour left."))
    d_take(state, seat, colour)


def _continue(state: State, seat: int, action: Action) -> None:
    _require_turn(state, seat, "round_summary", N_("There is no round summary to close now."))
    acknowledge(state, seat)


HANDLERS: dict[str, Callable[[State, int, Action], None]] = {
    "choose": _choose,
    "offer": _offer,
    "accept": _accept,
    "exchange": _exchange,
    "take": _take,
    "continue": _continue,
}


# --- parsing what a player sends ---------------------------------------------------------------


def shown(value: Any) -> str:
    """A short text of what a player sent, for a refusal (some huge numbers refuse to become text)."""
    try:
        return str(value)[:12]
    except ValueError:
        return "…"


def parse_count(value: Any) -> int:
    """A gem count from a form or JSON: blank is 0; anything but a whole number 0-22 is refused."""
    if value is None or value == "":
        return 0
    if isinstance(value, str):
        value = value.strip()
    try:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        raise IllegalAction(
            N_("A number of gems must be a whole number, not {value}."), value=shown(value)
        ) from None
    if count < 0:
        raise IllegalAction(N_("A number of gems cannot be negative."))
    if count > GEMS_PER_COLOUR:
        raise IllegalAction(N_("There are only {count} gems of each colour."), count=GEMS_PER_COLOUR)
    return count


def parse_gems(action: dict[str, Any], name: str) -> Gems:
    """Gem counts given as ``{name: {"red": 1, ...}}`` or, from a form, as ``name.red`` fields."""
    raw = action.get(name)
    if raw is None:
        raw = {
            key[len(name) + 1 :]: value
            for key, value in action.items()
            if isinstance(key, str) and key.startswith(name + ".")
        }
    if not isinstance(raw, dict):
        raise IllegalAction(N_("Give the gems as a number per colour."))
    unknown = [shown(key) for key in raw if key not in COLOURS]
    if unknown:
        raise IllegalAction(N_("There is no gem colour called {colour}."), colour=unknown[0])
    return {c: parse_count(raw.get(c)) for c in COLOURS}


def parse_colour(value: Any) -> str:
    if not isinstance(value, str) or value not in COLOURS:
        raise IllegalAction(N_("Choose a gem colour: red, yellow, green or blue."))
    return value
