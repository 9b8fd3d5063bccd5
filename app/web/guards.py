"""The one ASGI layer in front of every route: the checks of ``security.py`` and ``limits.py``, in
the order they must run, in a single call per request (a request, the moves' included, passes one
layer and reads its headers once, not four of each).

For an HTTP request, in order:

1. every answer, refusals too, gets the security headers (``security.security_headers``);
2. the client's rate limit for what it asks (``limits.Limits``): refused before the body is read;
3. the body's size: a declared ``Content-Length`` over the limit is refused, and a body sent in
   chunks is counted as the route reads it (``limits.body_refusal``, ``limits.counting_body``);
4. an unsafe request from another site's page is refused (``security.cross_site_refusal``).

A live socket is counted against the socket caps and the connect rate (``Limits.live_socket``);
anything else (the lifespan) passes straight through.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.web.limits import Limits, body_refusal, counting_body, live_socket_code, refuse
from app.web.security import adding_security_headers, cross_site_refusal


class Guards:
    def __init__(self, app: ASGIApp, settings: Settings, limits: Limits | None = None) -> None:
        self.app = app
        self.limits = limits if limits is not None else Limits(settings)
        self.max_body = settings.max_body_bytes
        self.public_host = urlsplit(settings.public_url).netloc or None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            send = adding_security_headers(scope, headers, send)
            refusal = (
                await self.limits.refusal(scope)
                or body_refusal(scope, self.max_body)
                or cross_site_refusal(scope, headers, self.public_host)
            )
            if refusal is not None:
                await refuse(scope, receive, send, refusal)
                return
            await self.app(scope, counting_body(receive, self.max_body), send)
        elif scope["type"] == "websocket" and (code := live_socket_code(scope["path"])) is not None:
            await self.limits.live_socket(self.app, scope, receive, send, code)
        else:
            await self.app(scope, receive, send)
