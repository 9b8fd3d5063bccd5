"""The server's log: its level (``BOURSE_LOG_LEVEL``) and format (``BOURSE_LOG_FORMAT``; issue 47).

``text``: one line a record, ``time LEVEL logger: message``, for a person reading a terminal.
``json``: one JSON object a line, for a container's log pipeline: ``time`` (UTC, ISO 8601),
``level``, ``logger``, ``message``, ``room`` (the room's code, where the record names one: in a
path such as ``/r/<code>`` or as "room <code>" in the message), ``exception`` (its traceback) if
any, and for uvicorn's access log ``client``, ``method``, ``path`` and ``status``.

uvicorn's own records, its access log included, go through the same handler at the same level.

Either way nothing secret is written (``scrubbed``): a query parameter whose name says it carries
a secret (``token``, ``key``, ``password``…), a bearer token, a cookie, the personal link's token
after ``#``, a password in a URL (a database's or Redis's) and a PEM private key are replaced by
``[redacted]``. The server never logs a seat token or a header on purpose; this is the net below that.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any

from app.config import Settings
from app.rooms.names import CODE_ALPHABET, CODE_LENGTH

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
REDACTED = "[redacted]"
ACCESS_LOGGER = "uvicorn.access"
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", ACCESS_LOGGER, "uvicorn.asgi")

_SECRET_NAME = r"[^=&#\s\"']*(?:token|key|secret|passw|auth|session|sig|cookie|credential)[^=&#\s\"']*"
SECRETS = (
    # a query parameter named like a secret: ?token=…, &api_key=…
    (re.compile(rf"([?&]{_SECRET_NAME}=)[^&#\s\"']*", re.IGNORECASE), rf"\1{REDACTED}"),
    # the personal link's token (it is after the #, which browsers never send; a pasted one still is)
    (re.compile(r"(/resume#)[^\s\"'&]+"), rf"\1{REDACTED}"),
    # a bearer token (a word of token characters, so "a bearer of news" stays)
    (re.compile(r"(\bbearer\s+)[\w.~+/=-]{8,}", re.IGNORECASE), rf"\1{REDACTED}"),
    # a header written whole: Cookie, Set-Cookie, Authorization
    (
        re.compile(r"((?:set-)?cookie|authorization)(\"?\s*[:=]\s*\"?)[^\r\n\"]*", re.IGNORECASE),
        rf"\1\2{REDACTED}",
    ),
    (re.compile(r"(bourse_seat_\w+=)[^;\s\"']+"), rf"\1{REDACTED}"),
    # user:password@ in a URL (postgresql://bourse:secret@db/…, redis://:secret@…)
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]+@", re.IGNORECASE), rf"\1{REDACTED}@"),
    # a PEM private key, also one an error message cut short
    (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)"),
        REDACTED,
    ),
)

_CODE = f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}"
# a room's code in one of its paths (/r/…, /api/rooms/…, /ws/rooms/…) or as "room <code>" in a message
ROOM = re.compile(rf"(?:/r/|/rooms/|\broom )({_CODE})(?![0-9a-z])")


def scrubbed(text: str) -> str:
    """``text`` with every secret it carries replaced by ``[redacted]``."""
    for pattern, replacement in SECRETS:
        text = pattern.sub(replacement, text)
    return text


def room_of(text: str) -> str | None:
    """The room code a log line names, if any."""
    found = ROOM.search(text)
    return found[1] if found else None


class TextFormatter(logging.Formatter):
    """The plain format, scrubbed."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        return scrubbed(super().format(record))


class JsonFormatter(logging.Formatter):
    """One JSON object a line (see the module's docstring), scrubbed."""

    def format(self, record: logging.LogRecord) -> str:
        message = scrubbed(record.getMessage())
        entry: dict[str, Any] = {
            "time": _utc(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": message,
        }
        if record.name == ACCESS_LOGGER:
            entry.update(_access_fields(record))
        room = room_of(message)
        if room is not None:
            entry["room"] = room
        if record.exc_info:
            entry["exception"] = scrubbed(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exception"] = scrubbed(record.exc_text)
        return json.dumps(entry, ensure_ascii=False, default=str)


def _utc(created: float) -> str:
    seconds = time.gmtime(created)
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S', seconds)}.{int(created % 1 * 1000):03d}Z"


def _access_fields(record: logging.LogRecord) -> dict[str, Any]:
    """uvicorn's access record as fields: its arguments are (client, method, path, HTTP version, status)."""
    args = record.args
    if not isinstance(args, tuple) or len(args) != 5:
        return {}
    client, method, path, _, status = args
    return {"client": str(client), "method": str(method), "path": scrubbed(str(path)), "status": status}


def configure_logging(settings: Settings) -> None:
    """Send every record, uvicorn's included, to standard error in the settings' format and level
    (run ``uvicorn`` with ``log_config=None`` after this, so it keeps these)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if settings.log_format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    for name in UVICORN_LOGGERS:  # as uvicorn's own configuration would, but through the root's handler
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.setLevel(logging.NOTSET)
        logger.propagate = True
