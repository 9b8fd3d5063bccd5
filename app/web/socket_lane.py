"""A tab's live socket (``/ws/rooms/{code}``), served past FastAPI's routing.

The route stays declared in the router (``pages.room_socket``: the route table reads it there); this
lane reaches the same endpoint without the router and FastAPI's dependency solving. A socket lives as
long as its tab, and every layer it goes through keeps a frame open for as long: through the router,
the exception middleware and the dependency solving (three exit stacks) that was several kilobytes a
socket, which at a thousand rooms of five tabs takes the process past its memory bound (BENCHMARKS.md).
It sits inside ``Guards``, so every check still runs first (``app.web.app.Bourse`` hands it the socket).
A refusal the endpoint lets through is answered by the app's own handler for it
(``app.exception_handlers``), as the router would have; anything else goes on to the server-error
handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from app.web.deps import get_live, get_locale, get_seat_token, get_service
from app.web.limits import live_socket_code
from app.web.pages import room_socket


class SocketLane:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        code = live_socket_code(_route_path(scope)) if scope["type"] == "websocket" else None
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
