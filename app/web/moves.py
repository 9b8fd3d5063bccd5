"""A move as the room page sends it: its form's fields, posted (``pages.act``) or, while the tab's
live line is open, sent over the room's WebSocket (``static/js/bourse.js``). Over the socket a move
costs no HTTP request: no request line and headers to parse, no cookie to read, no middleware, no
response, no access-log line (issue 18).

Over the socket it is the same move as ``pages.act``: the form's own fields (``version`` and the
action's, as the form would post them), by the seat of the cookie the socket opened with, under the
same rate limit ("act"), through the same ``Turns.act_as`` (committed before anyone is told) and the
same publish.
The answer goes through the tab's own outbox, so it arrives after the table the move changed:
``{"move": id, "status": 200}``, or the refusal's status and its message in the tab's language,
which the page shows at the form's control (and a 409 makes it catch up, as after a refused post).
A message without a readable ``move`` number has nobody to answer and is ignored.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool

from app.games.base import N_
from app.games.registry import package_of
from app.i18n import format_message
from app.rooms import RoomError, RoomService
from app.web.answers import CANNOT_SAVE, SERVER_ERROR, Refusal, database_failed, game_of
from app.web.limits import TOO_LARGE, Limits
from app.web.live import LiveRooms, Tab

log = logging.getLogger(__name__)

MAX_FORM_FIELDS = 1000  # as Starlette's form parser allows
TOO_MANY_FIELDS = N_("This form has too many fields.")
UNREADABLE = N_("This move could not be read.")


def form_to_action(fields: list[tuple[str, str]]) -> dict[str, Any]:
    """Form fields to an action: dotted names nest (``gems.red``), repeated names become lists."""
    action: dict[str, Any] = {}
    for key, value in fields:
        target = action
        *parents, leaf = key.split(".")
        for parent in parents:
            nested = target.setdefault(parent, {})
            if not isinstance(nested, dict):
                break
            target = nested
        else:
            if leaf in target:
                existing = target[leaf]
                target[leaf] = [*existing, value] if isinstance(existing, list) else [existing, value]
            else:
                target[leaf] = value
    return action


def read_move(text: str) -> tuple[int, Any] | None:
    """The move's number and its message (a JSON object); None if the text names no move number."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read
        return None
    number = message.get("move") if isinstance(message, dict) else None
    if not isinstance(number, int) or isinstance(number, bool):
        return None
    return number, message


def move_fields(text: str, message: dict[str, Any], max_bytes: int) -> list[tuple[str, str]]:
    """The move's form fields, in order; a ``Refusal`` if the move is too large or they are not a
    list of name/value pairs."""
    if len(text.encode()) > max_bytes:
        raise Refusal(413, TOO_LARGE, kib=max_bytes // 1024)
    fields = message.get("fields")
    if not isinstance(fields, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair)
        for pair in fields
    ):
        raise Refusal(400, UNREADABLE)
    if len(fields) > MAX_FORM_FIELDS:
        raise Refusal(400, TOO_MANY_FIELDS)
    return [(name, value) for name, value in fields]


async def move_from_socket(
    text: str,
    tab: Tab,
    code: str,
    token: str | None,
    service: RoomService,
    live: LiveRooms,
    limits: Limits,
    max_bytes: int,
) -> None:
    """Play the move ``text`` asks for, if it is one, and answer it on ``tab``."""
    read = read_move(text)
    if read is None:
        return
    number, message = read
    try:
        fields = move_fields(text, message, max_bytes)
        refusal = await limits.move_refusal(tab.socket.scope)
        if refusal is not None:
            raise refusal
        version = next((value for key, value in fields if key == "version"), None)
        action = form_to_action([(key, value) for key, value in fields if key != "version"])
        after = await run_in_threadpool(service.turns.act_as, code, token, version, action)
        await live.after_change(code, after)
    except Refusal as refused:
        _answer(tab, refused.status_code, _words(tab, refused.message, refused.params), number)
    except RoomError as refused:
        game = await run_in_threadpool(game_of, service, code)
        package = package_of(game) if game else None
        _answer(tab, refused.status, _words(tab, refused.message, refused.params, package), number)
    except OperationalError as failed:
        database_failed(service, f"a move over the socket of room {code}", failed)
        _answer(tab, 503, _words(tab, CANNOT_SAVE), number)
    except Exception:
        log.exception("a move over the socket of room %s failed", code)
        _answer(tab, 500, _words(tab, SERVER_ERROR), number)
    else:
        _answer(tab, 200, "", number)


def _words(tab: Tab, message: str, params: dict[str, Any] | None = None, package: str | None = None) -> str:
    return format_message(tab.locale, message, params or {}, str, package)


def _answer(tab: Tab, status: int, message: str, number: int) -> None:
    tab.push(json.dumps({"move": number, "status": status, "message": message}, ensure_ascii=False))
