"""A tiny test-only game: each round every seat secretly picks 1, 2 or 3; the highest unique pick
scores a point. Three rounds. It exercises simultaneous secret choices without any real game's rules."""

from __future__ import annotations

import random
from typing import Any

from app.games.base import (
    N_,
    Budget,
    GameInfo,
    IllegalAction,
    Result,
    State,
    View,
    copy_state,
    draw_rng,
    log_event,
    new_state,
    seat_ref,
    visible_events,
)

ROUNDS = 3


class SealedGuess:
    info = GameInfo(
        id="toy-guess",
        name_en="Sealed guess",
        name_zh_hant="密猜",
        name_zh_hans="密猜",
        min_players=2,
        max_players=4,
        minutes="2",
        blurb="A test-only game.",
        regions=(),
    )

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        state = new_state(self.info.id, players, options, seed)
        state.update(
            round=1, picks=[None] * players, scores=[0] * players, secret_bonus=draw_rng(state).randint(1, 99)
        )
        return state

    def to_act(self, state: State) -> list[int]:
        if state["finished"]:
            return []
        return [seat for seat, pick in enumerate(state["picks"]) if pick is None]

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_act(state):
            return []
        return [
            {"type": "pick", "label": "Pick", "params": {"number": {"kind": "choice", "options": [1, 2, 3]}}}
        ]

    def apply(self, state: State, seat: int, action: dict[str, Any]) -> State:
        if seat not in self.to_act(state):
            raise IllegalAction(N_("You have already picked."))
        if action.get("type") != "pick":
            raise IllegalAction(N_("Unknown action."))
        number = action.get("number")
        if str(number) not in ("1", "2", "3"):
            raise IllegalAction(N_("Pick 1, 2 or 3, not {number}."), number=number)
        state = copy_state(state)
        state["picks"][seat] = int(str(number))
        log_event(state, N_("{seat} has picked."), seat=seat_ref(seat))
        if all(pick is not None for pick in state["picks"]):
            picks = state["picks"]
            unique = [p for p in picks if picks.count(p) == 1]
            if unique:
                winner = picks.index(max(unique))
                state["scores"][winner] += 1
                log_event(
                    state, N_("{seat} wins round {round}."), seat=seat_ref(winner), round=state["round"]
                )
            state["picks"] = [None] * state["players"]
            if state["round"] == ROUNDS:
                state["finished"] = True
            else:
                state["round"] += 1
        return state

    def view(self, state: State, seat: int | None) -> View:
        return {
            "round": state["round"],
            "scores": state["scores"],
            "picked": [pick is not None for pick in state["picks"]],
            "my_pick": state["picks"][seat] if seat is not None else None,
            "events": visible_events(state, seat),
        }

    def result(self, state: State) -> Result | None:
        if not state["finished"]:
            return None
        best = max(state["scores"])
        return Result([s for s, v in enumerate(state["scores"]) if v == best], list(state["scores"]))

    def decide(
        self,
        view: View,
        seat: int,
        legal: list[dict[str, Any]],
        rng: random.Random,
        strength: str = "normal",
        budget: Budget | None = None,
    ) -> dict[str, Any]:
        return {"type": "pick", "number": rng.choice([1, 2, 3])}

    def bot_action(
        self,
        state: State,
        seat: int,
        rng: random.Random,
        strength: str = "normal",
        budget: Budget | None = None,
    ) -> dict[str, Any]:
        return self.decide(
            self.view(state, seat), seat, self.legal_actions(state, seat), rng, strength, budget
        )


TOY = SealedGuess()
