"""What the coach says of a Basari decision (``app/learn``): each option in a player's words, from
the seat's view alone."""

from __future__ import annotations

from typing import Any

from app.games import base
from app.games.basari.data import COLOUR_LETTERS, COLOURS
from app.games.base import N_, Action, View

Message = tuple[str, dict[str, Any]]


def _gems(counts: dict[str, int | str]) -> dict[str, Any]:
    """The colours given, the zeros left out. A move posted from the page carries its counts as the
    form's text ("0"), and the log keeps them so: a review read "Offer 0R 0Y 0G 1B"."""
    given = [(int(counts.get(c) or 0), COLOUR_LETTERS[c]) for c in COLOURS]
    return base.counted([(count, letter) for count, letter in given if count])


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


def notes(view: View, seat: int, legal: list[dict[str, Any]]) -> list[Message]:
    """What this decision is and what it leads to, and what the options mean in numbers the seat can
    work out from what it sees: its top market card, its workers, and the gem counts round the table."""
    phase = view.get("phase")
    seats = view.get("seats", [])
    me = next((s for s in seats if s["seat"] == seat), None)
    said: list[Message] = []
    if me is None:
        return said
    if phase == "choose":
        said.append(
            (
                N_(
                    "Choose an action card in secret: alone on a card, you perform it; two on one card "
                    "bargain for it with gems; three or more, and nobody performs it."
                ),
                {},
            )
        )
        top = me.get("top")
        if top:
            said.append(
                (
                    N_(
                        "With your top card, B scores {points}★ and C takes {gems} from the bank; A draws another market card."
                    ),
                    {"points": top["points"], "gems": _gems(top["gems"])},
                )
            )
        said.append(
            (
                N_(
                    "Workers: you have {workers}. Every turn begins with each player drawing a market card, whose workers count too; once anyone has {needed} when a turn's actions are done, the round is scored, and everyone with {needed} or more gains {bonus}★."
                ),
                {
                    "workers": me["workers"],
                    "needed": view.get("round_end_workers", 15),
                    "bonus": view.get("worker_bonus", 12),
                },
            )
        )
    elif phase == "bargain" and view.get("bargain"):
        bargain = view["bargain"]
        said.append(
            (
                N_(
                    "You bargain for card {card}: accept, and you take the offered gems while the other "
                    "performs the card; offer or raise, and you pay if the other accepts."
                ),
                {"card": base.verbatim(str(bargain["card"]))},
            )
        )
        current = bargain.get("current")
        if current:
            said.append(
                (
                    N_("The offer stands at {gems}; you hold {mine}."),
                    {"gems": _gems(current["gems"]), "mine": _gems(me["gems"])},
                )
            )
        said += _walk_away(view, me, bargain, legal)
    elif phase in ("d_exchange", "d_take"):
        said.append(
            (
                N_("Action D: alone, return one gem and take any two; shared, take one gem from the bank."),
                {},
            )
        )
    others = [s for s in seats if s["seat"] != seat]
    if others and phase in ("choose", "bargain", "d_exchange", "d_take"):
        best = {c: max(s["gems"][c] for s in others) for c in COLOURS}
        said.append(
            (
                N_(
                    "Your gems {mine} against the most any other player holds of each, {best}: the most red "
                    "scores 14 at the round's end, yellow 12, green 10, blue 8."
                ),
                {"mine": _gems_all(me["gems"]), "best": _gems_all(best)},
            )
        )
    return said


# What each side of a bargain walks away with, by card (A, B, C; D is never bargained for): the
# offerer's gems, or the card performed with what the performer's own top card (or the deck) gives.
ACCEPT_NOTES = {
    "A": N_(
        "Accept, and you walk away with {gems} while {other} performs card A and draws a market card "
        "worth 1 to {most} workers (they have {theirs}; the round is scored once anyone has {needed})."
    ),
    "B": N_(
        "Accept, and you walk away with {gems} while {other} performs card B and scores {theirs}★ with "
        "their top card (yours would score {mine}★)."
    ),
    "C": N_(
        "Accept, and you walk away with {gems} while {other} performs card C and takes {theirs} from "
        "the bank with their top card (yours would bring you {mine})."
    ),
}
FIRST_OFFER_NOTES = {
    "A": N_(
        "Offer, and if {other} accepts, they walk away with the gems you offer while you perform card A "
        "and draw a market card worth 1 to {most} workers (you have {mine}, {other} {theirs}; the round "
        "is scored once anyone has {needed})."
    ),
    "B": N_(
        "Offer, and if {other} accepts, they walk away with the gems you offer while you perform card B "
        "and score {mine}★ with your top card (theirs would score {theirs}★)."
    ),
    "C": N_(
        "Offer, and if {other} accepts, they walk away with the gems you offer while you perform card C "
        "and take {mine} from the bank with your top card (theirs would bring them {theirs})."
    ),
}
RAISE_NOTES = {
    "A": N_(
        "Raise, and if {other} accepts, they walk away with the gems you offer while you perform card A "
        "and draw a market card worth 1 to {most} workers (you have {mine})."
    ),
    "B": N_(
        "Raise, and if {other} accepts, they walk away with the gems you offer while you perform card B "
        "and score {mine}★ with your top card."
    ),
    "C": N_(
        "Raise, and if {other} accepts, they walk away with the gems you offer while you perform card C "
        "and take {mine} from the bank with your top card."
    ),
}


def _gain(card: str, seat: dict[str, Any], bank: dict[str, int]) -> Any:
    """What performing ``card`` brings ``seat`` (its entry in the view): its workers before card A's
    draw, its top card's points for B, or for C its top card's gems the bank still has (ruling 3)."""
    if card == "A":
        return seat["workers"]
    top = seat.get("top") or {"points": 0, "gems": {}}
    if card == "B":
        return top["points"]
    return _gems({c: min(int(top["gems"].get(c, 0)), bank.get(c, 0)) for c in COLOURS})


def _walk_away(
    view: View, me: dict[str, Any], bargain: dict[str, Any], legal: list[dict[str, Any]]
) -> list[Message]:
    """Ruling 4 in the numbers of this bargain: what each side walks away with if the offer on the
    table is accepted (the seat may accept it), or if the seat's own offer is (it may offer or raise)."""
    card = str(bargain["card"])
    if card not in ACCEPT_NOTES:
        return []
    other_seat = next((s for s in bargain["bidders"] if s != me["seat"]), None)
    other = next((s for s in view.get("seats", []) if s["seat"] == other_seat), None)
    if other is None:
        return []
    bank = view.get("bank", {})
    params = {
        "other": base.seat_ref(other["seat"]),
        "mine": _gain(card, me, bank),
        "theirs": _gain(card, other, bank),
        "most": view.get("most_workers_on_a_card", 4),
        "needed": view.get("round_end_workers", 15),
    }
    types = {template["type"] for template in legal}
    current = bargain.get("current")
    said: list[Message] = []
    if "accept" in types and current:
        said.append((ACCEPT_NOTES[card], {**params, "gems": _gems(current["gems"])}))
    if "offer" in types:
        said.append(((RAISE_NOTES if current else FIRST_OFFER_NOTES)[card], params))
    return said


def _gems_all(counts: dict[str, int]) -> dict[str, Any]:
    """Every colour's count, zeros too: a comparison colour by colour."""
    return base.counted([(counts.get(c, 0), COLOUR_LETTERS[c]) for c in COLOURS])
