"""What the coach says of a Tulipmania 1637 decision (``app/learn``): each option in a player's
words, from the seat's view alone."""

from __future__ import annotations

from typing import Any

from app.games.base import N_, Action, View
from app.games.tulipmania_1637.data import CARD_NAMES, COLOUR_NAMES

Message = tuple[str, dict[str, Any]]


def describe(action: Action, view: View, seat: int) -> Message | None:
    """``action`` as a player says it ("Buy a red tulip"), or None for the template's own label."""
    kind = action.get("type")
    if kind == "sell":
        return N_("Sell a {colour} tulip"), {"colour": COLOUR_NAMES[action["colour"]]}
    if kind == "buy":
        return N_("Buy a {colour} tulip"), {"colour": COLOUR_NAMES[action["colour"]]}
    if kind == "play":
        return N_("Play {card}"), {"card": CARD_NAMES[action["card"]]}
    if kind == "take_buyer":
        index = action["index"]
        face_up = view.get("face_up", [])
        if 0 <= index < len(face_up):
            return N_("Take the face-up {colour} buyer"), {"colour": COLOUR_NAMES[face_up[index]]}
    return None


def notes(view: View, seat: int, legal: list[dict[str, Any]]) -> list[Message]:
    """What this decision is and what it leads to, and what the options mean in guilders the seat can
    work out from what it sees: the prices on the board and where each card moves them."""
    phase = view.get("phase")
    you = view.get("you") or {}
    colours = {c["key"]: c for c in view.get("colours", [])}
    said: list[Message] = []
    if phase == "sell":
        said.append(
            (
                N_(
                    "Sell one of your tulips: the others answer with action cards, and the highest card "
                    "decides who takes it and what you are paid."
                ),
                {},
            )
        )
        for key, count in sorted((you.get("tulips") or {}).items()):
            colour = colours.get(key)
            if count and colour and colour.get("live"):
                said.append(
                    (
                        N_(
                            "One {colour} tulip, bought (card 2), pays you ƒ{price}; speculated (card 4), ƒ{above}."
                        ),
                        {
                            "colour": colour["name"],
                            "price": colour["price"],
                            "above": colour.get("speculate_pay") or colour["price"],
                        },
                    )
                )
    elif phase == "seller_choice" and view.get("sale"):
        sale = view["sale"]
        said.append(
            (
                N_(
                    "Everybody passed on your {colour} tulip: play Pass, 1 or 3 yourself. Pass returns it to "
                    "the stockpile and the bank pays you ƒ{low}; 1 or 3 spends your buyers of that colour."
                ),
                {
                    "colour": sale["colour_name"],
                    "low": colours.get(sale["colour"], {}).get("pass_pay") or sale["price"],
                },
            )
        )
    elif phase == "choose" and view.get("sale"):
        sale = view["sale"]
        colour = colours.get(sale["colour"], {})
        said.append(
            (
                N_(
                    "This {colour} tulip is for sale: the highest action card wins it. 2 pays the seller "
                    "ƒ{price} and moves the price to ƒ{after}; 4 pays ƒ{above} and moves it to ƒ{jump}."
                ),
                {
                    "colour": sale["colour_name"],
                    "price": sale["price"],
                    "after": colour.get("purchase_to") or sale["price"],
                    "above": colour.get("speculate_pay") or sale["price"],
                    "jump": colour.get("speculate_to") or sale["price"],
                },
            )
        )
        said.append((N_("You hold ƒ{cash} in cash."), {"cash": you.get("cash", 0)}))
    elif phase == "draw":
        said.append(
            (
                N_(
                    "Draw a buyer card: buyers of a colour let you sell by proxy (cards 1 and 3) and sell your "
                    "tulips of that colour when it bursts."
                ),
                {},
            )
        )
    elif phase == "buy":
        said.append(
            (
                N_("You may buy one tulip from the stockpile at its price; the price then rises one step."),
                {},
            )
        )
        for key in view.get("purchase_options", []):
            colour = colours.get(key)
            if colour:
                said.append(
                    (
                        N_(
                            "One {colour} tulip costs ƒ{price} and moves its price to ƒ{after}; you hold ƒ{cash}."
                        ),
                        {
                            "colour": colour["name"],
                            "price": colour["price"],
                            "after": colour.get("purchase_to") or colour["price"],
                            "cash": you.get("cash", 0),
                        },
                    )
                )
    return said
