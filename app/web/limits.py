"""What one client may ask of the server: the size of a request body, how often it may create rooms,
join, act and open live sockets, and how many sockets it (and a room) may hold open.

These are plain ASGI middleware: they answer before routing, so a refused request costs neither a
parse nor a database read. Refusals are readable (``pages.refusal_response``): JSON under ``/api/``,
the visitor's language elsewhere.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.games.base import N_
from app.web.pages import Refusal, refusal_response

TOO_LARGE = N_("This request is too large (at most {kib} KB).")


class BodyTooLarge(Refusal):
    def __init__(self, limit: int) -> None:
        super().__init__(413, TOO_LARGE, kib=limit // 1024)


async def refuse(scope: Scope, receive: Receive, send: Send, refusal: Refusal) -> None:
    """Answer an HTTP request with ``refusal`` from a middleware (before any route ran)."""
    response = refusal_response(
        Request(scope, receive), refusal.status_code, refusal.message, refusal.params, refusal.headers
    )
    await response(scope, receive, send)


class BodyLimit:
    """Refuse a request body over ``limit`` bytes with 413, before it is parsed.

    A declared ``Content-Length`` over the limit is refused before the route runs; a body sent in
    chunks is counted as the route reads it, and the read that passes the limit raises
    ``BodyTooLarge`` (an ``HTTPException``, which FastAPI's body parsing and our handler pass on as
    413). Starlette's own limit answers a declared length only once the route has run."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await refuse(scope, receive, send, BodyTooLarge(self.limit))
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        await self.app(scope, counted, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            text: Any = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None
