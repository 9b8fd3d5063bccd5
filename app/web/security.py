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
from functools import lru_cache
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import Message, Scope, Send

from app.games.base import N_
from app.web.answers import Refusal

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


def cross_site_refusal(scope: Scope, headers: Headers, public_host: str | None) -> Refusal | None:
    """403 for an unsafe request from another site's page on a route a cookie authenticates (all
    but ``/api/``)."""
    if (
        scope["method"] in UNSAFE_METHODS
        and not scope["path"].startswith("/api/")
        and is_cross_site(headers, public_host)
    ):
        return Refusal(403, CROSS_SITE)
    return None


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
    return dict(_headers_for(bool(PRIVATE.match(path)), host))


def adding_security_headers(scope: Scope, headers: Headers, send: Send) -> Send:
    """``send`` that adds ``security_headers`` to the response's start (a header the response set
    itself stays)."""
    extra = _raw_headers_for(bool(PRIVATE.match(scope["path"])), headers.get("host"))

    async def with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            raw = list(message.get("headers", ()))
            present = {name.lower() for name, _ in raw}
            message["headers"] = raw + [header for header in extra if header[0] not in present]
        await send(message)

    return with_headers


# Made once per kind of path and host (a bounded few: the hosts the site answers to).
@lru_cache(maxsize=64)
def _headers_for(private: bool, host: str | None) -> tuple[tuple[str, str], ...]:
    sockets = f" ws://{host} wss://{host}" if host and PLAIN_HOST.fullmatch(host) else ""
    headers = {**HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY.format(sockets=sockets)}
    if private:
        headers["Cache-Control"] = "no-store"
    return tuple(headers.items())


@lru_cache(maxsize=64)
def _raw_headers_for(private: bool, host: str | None) -> tuple[tuple[bytes, bytes], ...]:
    """``_headers_for`` as ASGI sends them: lower-case names, bytes."""
    return tuple(
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in _headers_for(private, host)
    )
