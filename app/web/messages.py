"""Messages that travel in a URL: the error a refused form's redirect shows on the room page.

A URL is something anyone can write and send, so it carries no text: only the key of a message the
server knows (every translatable message is in a catalogue) and parameters that are numbers, seat
numbers or other known messages (a colour's name, say). Anything else shows as "…". So a link can
show only a sentence the game itself could have said, in the reader's language.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from app.i18n import Catalogue, catalogue_files

ERROR = "error"
PARAM = "e."
UNKNOWN = "…"
NUMBER = re.compile(r"-?[0-9]{1,40}")


def message_key(message: str) -> str:
    return hashlib.sha256(message.encode()).hexdigest()[:12]


@lru_cache
def known_messages() -> dict[str, str]:
    """key -> message, for every message in the catalogues (the platform's and each game's)."""
    known: dict[str, str] = {}
    for path in catalogue_files("zh_Hant", None):
        for message in Catalogue.load(path).messages():
            known[message_key(message)] = message
    return known


def error_query(message: str, params: Mapping[str, Any]) -> str:
    """The query string that makes the room page show ``message`` (only what a URL may carry)."""
    pairs = [(ERROR, message_key(message))]
    for name, value in params.items():
        if isinstance(value, int) and not isinstance(value, bool):
            pairs.append((PARAM + name, str(value)))
        elif isinstance(value, dict) and set(value) == {"seat"} and isinstance(value["seat"], int):
            pairs.append((PARAM + name, f"@{value['seat']}"))
        elif isinstance(value, str) and message_key(value) in known_messages():
            pairs.append((PARAM + name, "~" + message_key(value)))
    return urlencode(pairs)


def error_from_query(query: Mapping[str, str]) -> tuple[str, dict[str, Any]] | None:
    """The message and params a room page's ``?error=`` names; ``None`` for an unknown key."""
    message = known_messages().get(query.get(ERROR, ""))
    if message is None:
        return None
    params: dict[str, Any] = {}
    for name in _placeholders(message):
        raw = query.get(PARAM + name, "")
        if NUMBER.fullmatch(raw):
            params[name] = int(raw)
        elif raw.startswith("@") and raw[1:].isdigit() and len(raw) < 4:
            params[name] = {"seat": int(raw[1:])}
        elif raw.startswith("~") and raw[1:] in known_messages():
            params[name] = known_messages()[raw[1:]]
        else:
            params[name] = UNKNOWN
    return message, params


def _placeholders(message: str) -> set[str]:
    try:
        return {field for _, field, _, _ in string.Formatter().parse(message) if field}
    except ValueError:
        return set()
