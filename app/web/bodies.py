"""Every request body a route reads as JSON is bounded in depth as it is read: ``JsonBodies``, one
ASGI layer in front of every route, inside the guards (which bound its size: ``limits.counting_body``).

Python's ``json`` recurses once per level of nesting, so a body of a few thousand ``[`` (a few KB,
well under the size limit) raised ``RecursionError`` wherever a route parsed it: FastAPI's body
parsing, ``Request.json()``, a record's import. Here the body is measured as the route reads it
(``json_depth``: brackets outside strings, no parse), and its last read raises ``TooDeep``, a
``Refusal`` (400), which FastAPI's body parsing and the app's handler pass on as for a body too
large: readable, in the visitor's language, ``{"detail": ...}`` to a JSON body.

Form bodies (what pages post) are not JSON and pass untouched; any other body may be read as JSON
(FastAPI reads a body without a ``Content-Type`` as JSON, ``Request.json()`` reads any), so it is
measured. A route then parses with ``json`` as usual: what reaches it nests at most ``MAX_DEPTH``.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.games.base import N_
from app.web.answers import Refusal

MAX_DEPTH = 32  # arrays and objects inside each other; a game record, the deepest body, nests five deep
TOO_DEEP = N_("This request nests its data too deep (at most {depth} levels).")

FORMS = (b"application/x-www-form-urlencoded", b"multipart/form-data")
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)  # a JSON string, escapes included
NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


class TooDeep(Refusal):
    def __init__(self) -> None:
        super().__init__(400, TOO_DEEP, depth=MAX_DEPTH)


def json_depth(raw: bytes, stop_after: int = MAX_DEPTH) -> int:
    """How deep the JSON text's arrays and objects nest (brackets inside strings do not count); it
    stops counting once past ``stop_after``. Not a check of the text's grammar: a malformed body is
    the parser's to refuse."""
    depth = deepest = 0
    for bracket in STRING.sub(b"", raw).translate(None, NOT_BRACKETS):
        if bracket in b"[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop_after:
                    break
        else:
            depth -= 1
    return deepest


def _may_be_json(scope: Scope) -> bool:
    if scope["method"] not in BODY_METHODS:
        return False
    for name, value in scope["headers"]:
        if name == b"content-type":
            return not value.lower().lstrip().startswith(FORMS)
    return True


def bounded_json(receive: Receive) -> Receive:
    """``receive`` whose last chunk of the body raises ``TooDeep`` if the body nests too deep."""
    chunks: list[bytes] = []

    async def received() -> Message:
        message = await receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
                chunks.clear()
                if json_depth(body) > MAX_DEPTH:
                    raise TooDeep()
        return message

    return received


class JsonBodies:
    """The ASGI layer that bounds how deep a body read as JSON may nest (see the module's words)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _may_be_json(scope):
            receive = bounded_json(receive)
        await self.app(scope, receive, send)
