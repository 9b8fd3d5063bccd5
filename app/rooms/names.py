"""What rooms, seats and tokens are called, and how the names and numbers clients send are checked."""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from typing import Any

from sqlmodel import Session, select

from app.games.base import N_
from app.models import Room
from app.rooms.errors import RoomError

CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i look-alikes
CODE_LENGTH = 13  # 13 * log2(31) ≈ 64 bits
ROOM_CODE = re.compile(f"[0-9a-z]{{{CODE_LENGTH}}}")
NAME_MAX = 24
# Characters a name may not hold: control (Cc), format (Cf: zero-width, bidi overrides), surrogate,
# private-use and unassigned; and letters that draw as blanks (Hangul fillers, the braille blank).
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def free_code(session: Session) -> str:
    """A room code no room has yet."""
    code = new_code()
    while session.exec(select(Room).where(Room.code == code)).first():
        code = new_code()
    return code


def is_room_code(code: Any) -> bool:
    """Whether ``code`` has a room code's shape: 13 lowercase ASCII letters or digits (``new_code``
    draws from a smaller alphabet). Anything else is no room, known without asking the database."""
    return isinstance(code, str) and ROOM_CODE.fullmatch(code) is not None


def clean_name(raw: Any) -> str:
    """A display name as stored: NFKC-normalised (full-width letters, ligatures and the like become
    their plain forms), runs of white space one space; refused if empty, too long, or holding a
    character that shows nothing or something else (control, format such as zero-width or
    right-to-left marks, private-use, unassigned, or a blank that is not white space)."""
    if not isinstance(raw, str):
        raise RoomError(N_("Please give a name."))
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    if not name:
        raise RoomError(N_("Please give a name."))
    if any(unicodedata.category(c) in HIDDEN_CATEGORIES or c in BLANKS for c in name):
        raise RoomError(N_("A name cannot contain invisible or control characters."))
    if len(name) > NAME_MAX:
        raise RoomError(N_("A name can have at most {max} characters."), max=NAME_MAX)
    return name


def name_key(name: str) -> str:
    """What two names are compared by: "Ann", "ann" and "Ａｎｎ" are one name."""
    return unicodedata.normalize("NFKC", name).casefold()


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name (2)``... if a seat already has that name (compared by ``name_key``)."""
    keys = {name_key(other) for other in taken}
    if name_key(name) not in keys:
        return name
    suffix = 2
    while name_key(f"{name} ({suffix})") in keys:
        suffix += 1
    return f"{name} ({suffix})"


def as_int(value: Any) -> int | None:
    """A number a client sent (a seat, a version, a count), or ``None`` if it is not one. A number
    no database column can hold (past 64 bits) is not one either: it names nothing stored."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 18:
        return int(value.strip())
    return None
