"""Reading a bid as a player typed it: exact whole numbers of any size, up to 30 digits."""

from __future__ import annotations

import re
from typing import Any

from app.games.base import N_, IllegalAction
from app.games.qe.data import MAX_BID_DIGITS

_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]*[.,][0-9]*")


def parse_bid(value: Any) -> int:
    """The bid as an exact ``int``, or an ``IllegalAction`` saying what is wrong with it.

    Accepts ints and strings of ASCII (or full-width, as typed with a Chinese input method)
    digits, with surrounding spaces ignored. Refuses negatives, decimals, signs, words, blanks
    and anything longer than 30 digits.
    """
    if isinstance(value, bool):
        raise IllegalAction(N_("A bid must be a whole number such as 12."))
    if isinstance(value, int):
        if value < 0:
            raise IllegalAction(N_("A bid cannot be negative."))
        if value >= 10**MAX_BID_DIGITS:
            raise IllegalAction(N_("A bid may have at most {digits} digits."), digits=MAX_BID_DIGITS)
        return value
    if isinstance(value, float):
        raise IllegalAction(N_("A bid must be a whole number, without decimals."))
    if not isinstance(value, str):
        raise IllegalAction(N_("A bid must be a whole number such as 12."))
    text = value.strip().translate(_FULLWIDTH_DIGITS)
    if not text:
        raise IllegalAction(N_("Write your bid first: a whole number such as 12."))
    if len(text) > MAX_BID_DIGITS:
        raise IllegalAction(N_("A bid may have at most {digits} digits."), digits=MAX_BID_DIGITS)
    if text.startswith("-"):
        raise IllegalAction(N_("A bid cannot be negative."))
    if text.startswith("+"):
        raise IllegalAction(N_("Write the bid without a + sign, digits only."))
    if _DECIMAL.fullmatch(text):
        raise IllegalAction(N_("A bid must be a whole number, without decimals or separators."))
    if not _DIGITS.fullmatch(text):
        raise IllegalAction(N_("A bid is written with the digits 0 to 9 only."))
    return int(text)
