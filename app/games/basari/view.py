"""What one seat may know (ruling 9): everything but the deck order and unrevealed action cards."""

from __future__ import annotations

from typing import Any

from app.games import base
from app.games.basari import data, rules
from app.games.basari.data import COLOUR_LETTERS, COLOURS, MARKET_CARDS
from app.games.basari.rules import gem_total
from app.games.base import State, View


def _card(card_id: int) -> dict[str, Any]:
    card = MARKET_CARDS[card_id]
    return {"id": card_id, "workers": card["workers"], "points": card["points"], "gems": dict(card["gems"])}


def _bargain(state: State, seat: int | None) -> dict[str, Any] | None:
    bargain = state["bargain"]
    if bargain is None:
        return None
    offers = [
        {"seat": o["seat"], "gems": dict(o["gems"]), "total": gem_total(o["gems"])} for o in bargain["offers"]
    ]
    current = offers[-1] if offers else None
    mine = seat in bargain["bidders"]
    my_turn = mine and bargain["to_move"] == seat
    can_raise = (
        my_turn
        and bool(bargain["offers"])
        and rules.can_beat(state["gems"][seat], bargain["offers"][-1]["gems"])
    )
    return {
        "card": bargain["card"],
        "bidders": list(bargain["bidders"]),
        "offers": offers,
        "current": current,
        "to_move": bargain["to_move"],
        "is_mine": mine,
        "my_turn": my_turn,
        "can_raise": can_raise,
    }


def _final(state: State) -> dict[str, Any]:
    """The finished game's story (rule 8 reveals nothing new: every score was public).

    Each seat's total split into what action B scored, each colour's majorities and the worker
    bonuses, summed over the rounds; and, unless the win is shared, the part of the score in which
    the winner gained most over the runner-up (the decisive one).
    """
    n = state["players"]
    parts: list[dict[str, Any]] = []
    for s in range(n):
        colours = {c: 0 for c in COLOURS}
        bonus = 0
        for summary in state["round_summaries"]:
            row = summary["rows"][s]
            for c in COLOURS:
                colours[c] += row["colour_points"][c]
            bonus += row["worker_bonus"]
        total = state["scores"][s]
        parts.append(
            {
                "seat": s,
                "actions": total - sum(colours.values()) - bonus,
                "colours": colours,
                "workers": bonus,
                "total": total,
            }
        )
    ranking = sorted(range(n), key=lambda s: (-state["scores"][s], s))
    winner, runner_up = ranking[0], ranking[1]
    margin = state["scores"][winner] - state["scores"][runner_up]
    decisive = None
    if margin:
        gains = {
            part: _part(parts[winner], part) - _part(parts[runner_up], part)
            for part in ("actions", *COLOURS, "workers")
        }
        best = max(gains, key=lambda part: gains[part])  # first of equals, in this order
        decisive = {
            "part": best,
            "winner": _part(parts[winner], best),
            "runner_up": _part(parts[runner_up], best),
        }
    return {
        "parts": parts,
        "winner": winner,
        "runner_up": runner_up,
        "margin": margin,
        "decisive": decisive,
        "top": max([1, *(p["total"] for p in parts)]),
    }


def _part(parts: dict[str, Any], part: str) -> int:
    value = parts["colours"][part] if part in COLOURS else parts[part]
    return int(value)


def view(state: State, seat: int | None) -> View:
    waiting = rules.to_act(state)
    n = state["players"]
    seats = []
    for s in range(n):
        display = [_card(card_id) for card_id in state["displays"][s]]
        seats.append(
            {
                "seat": s,
                "display": display,
                "top": display[-1] if display else None,
                "workers": rules.workers(state, s),
                "gems": dict(state["gems"][s]),
                "gem_total": gem_total(state["gems"][s]),
                "score": state["scores"][s],
                "has_chosen": state["chosen"][s] is not None,
                "played": state["revealed"][s],
                "last_played": state["last_revealed"][s],
            }
        )
    own_choice = state["chosen"][seat] if seat is not None else None
    summaries = base.copy_plain(state["round_summaries"])  # the view's own: a reader may change it
    seen: View = {
        "phase": state["phase"],
        "players": n,
        "round": state["round"],
        "rounds": data.ROUNDS,
        "turn": state["turn"],
        "first_player": state["first_player"],
        "colours": list(COLOURS),
        "letters": dict(COLOUR_LETTERS),
        "majority_points": dict(data.MAJORITY_POINTS),
        "round_end_workers": data.ROUND_END_WORKERS,
        "most_workers_on_a_card": data.MOST_WORKERS_ON_A_CARD,
        "worker_bonus": data.WORKER_BONUS,
        "action_cards": list(data.action_cards(n)),
        "deck_count": len(state["deck"]),
        "deck_ran_out": state["deck_ran_out"],  # public: announced when a draw finds the deck empty
        "bank": dict(state["bank"]),
        "seats": seats,
        # The viewer's own entry of ``seats`` (None for spectators): what its private regions read,
        # so they need not name the seat (a status naming it could not be shared between seats).
        "you": seats[seat] if seat is not None and 0 <= seat < n else None,
        "to_act": list(waiting),
        "my_choice": own_choice,
        "bargain": _bargain(state, seat),
        "pending": list(state["pending"]) if state["phase"] != "choose" else [],
        "d_seat": state["d_seat"],
        "d_queue": list(state["d_queue"]),
        "d_exchange_size": (
            rules.d_exchange_size(state, seat) if seat is not None and seat == state["d_seat"] else None
        ),
        "round_summaries": summaries,
        "last_summary": summaries[-1] if summaries else None,
        "acknowledged": list(state["acknowledged"]),
        "score_history": base.copy_plain(state["score_history"]),
        "finished": state["finished"],
        "winners": rules.winners(state) if state["finished"] else [],
        "final": _final(state) if state["finished"] else None,
        "events": base.copy_plain(base.visible_events(state, seat)),
    }
    return seen
