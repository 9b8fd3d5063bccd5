"""The two requests of every move, served ahead of FastAPI's routing: a move from the room page
(``POST /r/{code}/act``) and a room's JSON (``GET /api/rooms/{code}``, what a client or bot looks up
around each move); and a tab's live socket (``/ws/rooms/{code}``).

All three stay declared in the routers (``pages.act``, ``api.get_room``, ``pages.room_socket``: the
OpenAPI document and the route table read them there), and this lane reaches the same endpoints
first, without matching the app's other routes one by one and solving dependencies for them, which
was a fifth of what such a request cost. A socket lives as long as its tab, and every layer it goes
through keeps a frame open for as long: through the router, the exception middleware and FastAPI's
dependency solving (three exit stacks) that was ~6 KB a socket, 30 MB for 1000 rooms of five tabs.
It sits inside ``Guards``, so every check still runs first; a socket comes to the two of them
straight from the app's own call (``app.web.app.Bourse``), past the layers that only pass it on. A
refusal an endpoint lets through is answered by the app's own handler for it
(``app.exception_handlers``), as the router would have; anything else goes on, as before, to the
server-error handler.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from app.web.api import room_answer
from app.web.deps import get_live, get_locale, get_seat_token, get_service
from app.web.limits import live_socket_code
from app.web.pages import act, room_socket

Endpoint = Callable[[Request], Awaitable[Response]]

# (method, path with the room's code as its one group) -> the endpoint; as Starlette matches a {code}
ROUTES: dict[str, tuple[re.Pattern[str], Endpoint]] = {
    "POST": (re.compile(r"/r/([^/]+)/act"), act),
    "GET": (re.compile(r"/api/rooms/([^/]+)"), room_answer),
}


class FastLane:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._socket(scope, receive, send)
            return
        lane = ROUTES.get(scope["method"]) if scope["type"] == "http" else None
        found = lane[0].fullmatch(_route_path(scope)) if lane is not None else None
        if lane is None or found is None:
            await self.app(scope, receive, send)
            return
        scope["path_params"] = {"code": found[1]}
        request = Request(scope, receive, send)
        try:
            response = await lane[1](request)
        except Exception as refused:
            handler = _handler_for(scope["app"].exception_handlers, refused)
            if handler is None:
                raise  # the server-error handler answers it, as for any route
            response = await handler(request, refused)
        await response(scope, receive, send)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        code = live_socket_code(_route_path(scope))
        if code is None:
            await self.app(scope, receive, send)
            return
        scope["path_params"] = {"code": code}
        socket = WebSocket(scope, receive, send)
        try:
            # The locale and token are read through connections of their own: the socket keeps what
            # its properties parse (headers, cookies, query) for as long as its tab is open.
            await room_socket(
                socket,
                code,
                get_service(socket),
                get_live(socket),
                get_locale(HTTPConnection(scope)),
                get_seat_token(HTTPConnection(scope), code),
            )
        except Exception as refused:
            handler = _handler_for(scope["app"].exception_handlers, refused)
            if handler is None:
                raise
            response = await handler(socket, refused)
            if response is not None:  # before the accept: the handshake is refused with it
                await response(scope, receive, send)


def _route_path(scope: Scope) -> str:
    """The path as the router matches it: without the ``root_path`` a proxy mounts the app under."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and path[len(root) : len(root) + 1] in ("", "/"):
        return path[len(root) :]  # as Starlette's get_route_path: "/app/r/x/act", not "/application/…"
    return path


def _handler_for(
    handlers: dict[object, Callable[..., Awaitable[Response]]], refused: Exception
) -> Callable[..., Awaitable[Response]] | None:
    """The app's handler for ``refused``, as Starlette's exception middleware finds it (by class,
    nearest first); the catch-all ``Exception`` handler is the server-error middleware's."""
    for cls in type(refused).__mro__:
        if cls is Exception:
            return None
        if cls in handlers:
            return handlers[cls]
    return None
