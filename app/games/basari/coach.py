"""What the coach says of a Basari decision (``app/learn``): each option in a player's words, from
the seat's view alone."""

from __future__ import annotations

from typing import Any

from app.games import base
from app.games.basari.data import COLOUR_LETTERS, COLOURS
from app.games.base import N_, Action, View

Message = tuple[str, dict[str, Any]]


def _gems(counts: dict[str, int]) -> dict[str, Any]:
    return base.counted([(counts[c], COLOUR_LETTERS[c]) for c in COLOURS if counts.get(c)])


def describe(action: Action, view: View, seat: int) -> Message | None:
    """``action`` as a player says it ("Offer 2R 1G"), or None for the template's own label."""
    kind = action.get("type")
    if kind == "choose":
        return N_("Play action card {card}"), {"card": base.verbatim(str(action["card"]))}
    if kind == "offer":
        return N_("Offer {gems}"), {"gems": _gems(action["gems"])}
    if kind == "exchange":
        give = action.get("give")
        take = _gems(action["take"])
        if give is None:
            return N_("Take {take}"), {"take": take}
        return N_("Give {give} for {take}"), {"give": _gems({give: 1}), "take": take}
    if kind == "take":
        return N_("Take {gem}"), {"gem": _gems({action["colour"]: 1})}
    return None
