"""The web's security basics: refusing cross-site requests (CSRF) and the response headers.

Pages act through cookies, so a page on another site could make a visitor's browser post a form to
us with the visitor's seat cookie. ``SameSite=Lax`` cookies already stop most of that; as lichess
does, we also refuse any unsafe request a browser marks as coming from another site
(``Sec-Fetch-Site``, else ``Origin``). The JSON API authenticates with a bearer token a browser never
adds by itself, so it is not checked. The live socket checks its ``Origin`` itself (``pages.py``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.games.base import N_
from app.web.limits import refuse
from app.web.pages import Refusal

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
