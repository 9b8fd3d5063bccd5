"""What a seat of Fifth guess may know: the scores, who has picked, and its own pick only."""

from __future__ import annotations

from app.games.base import State, View, visible_events


def view(state: State, seat: int | None) -> View:
    return {
        "round": state["round"],
        "scores": list(state["scores"]),
        "picked": [pick is not None for pick in state["picks"]],
        "my_pick": state["picks"][seat] if seat is not None else None,
        "events": visible_events(state, seat),
    }
