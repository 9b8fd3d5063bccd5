"""The web's security basics: refusing cross-site requests (CSRF) and the response headers.

Every response carries a strict Content-Security-Policy: scripts, styles, fonts and connections from
our own origin only (there is no inline script or style, and htmx is told not to add any), no
framing, no plugins, forms posting only to us. Also ``nosniff``, ``Referrer-Policy: same-origin``
(a page's address never leaves the site), ``Cross-Origin-Opener-Policy`` and, for room pages and
room JSON (a seat's private view), ``Cache-Control: no-store``.

Pages act through cookies, so a page on another site could make a visitor's browser post a form to
us with the visitor's seat cookie. ``SameSite=Lax`` cookies already stop most of that; as lichess
does, we also refuse any unsafe request a browser marks as coming from another site
(``Sec-Fetch-Site``, else ``Origin``). The JSON API authenticates with a bearer token a browser never
adds by itself, so it is not checked. The live socket checks its ``Origin`` itself (``pages.py``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.games.base import N_
from app.web.answers import Refusal
from app.web.limits import refuse

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CROSS_SITE = N_("This request came from another site, so it was refused.")


def is_cross_site(headers: Headers, public_host: str | None = None) -> bool:
    """Whether a browser says this request was made by another site's page.

    ``Sec-Fetch-Site`` (every current browser) must be ``same-origin`` (or ``none``: typed or
    bookmarked); ``same-site`` is refused too, since a sibling subdomain is not us. Without it, an
    ``Origin`` must name this host. With neither, it is not a browser's cross-site request."""
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site not in ("same-origin", "none")
    origin = headers.get("origin")
    if origin is None:
        return False
    host = urlsplit(origin).netloc
    return not host or host not in {headers.get("host"), public_host}


class CrossSiteGuard:
    """Refuse (403) unsafe requests from another site's page on every route a cookie authenticates
    (all but ``/api/``)."""

    def __init__(self, app: ASGIApp, public_url: str = "") -> None:
        self.app = app
        self.public_host = urlsplit(public_url).netloc or None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in UNSAFE_METHODS
            and not scope["path"].startswith("/api/")
            and is_cross_site(Headers(scope=scope), self.public_host)
        ):
            await refuse(scope, receive, send, Refusal(403, CROSS_SITE))
            return
        await self.app(scope, receive, send)


CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'{sockets}; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",  # frame-ancestors 'none' for browsers that predate it
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
PRIVATE = re.compile(r"/r/|/api/rooms/")  # a seat's own view: never kept by a cache
PLAIN_HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]+)?|\[[0-9A-Fa-f:.]+\](:[0-9]+)?")


def security_headers(path: str, host: str | None) -> dict[str, str]:
    """The headers every response carries (``host``: the request's, for the live socket's URL:
    browsers from before CSP 3 do not count ws: and wss: as 'self')."""
    sockets = f" ws://{host} wss://{host}" if host and PLAIN_HOST.fullmatch(host) else ""
    headers = {**HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY.format(sockets=sockets)}
    if PRIVATE.match(path):
        headers["Cache-Control"] = "no-store"
    return headers


class SecurityHeaders:
    """Add ``security_headers`` to every HTTP response (a header the response set itself stays)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = security_headers(scope["path"], Headers(scope=scope).get("host"))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in extra.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)
