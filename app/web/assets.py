"""The static assets' addresses carry a version, so a browser may keep them for a year.

``asset_url`` (the templates' ``asset()``) names a file under ``static/`` with a digest of its
content (``/static/css/bourse.css?v=…``): a deploy that changes the file changes its address. The
static files are served by ``VersionedStatic``: an address with a version is cached as immutable, one
without (an old page, the service worker's list) is asked again each time, answered 304 by its ETag.
"""

from __future__ import annotations

from functools import cache
from hashlib import blake2b
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC = Path(__file__).resolve().parents[2] / "static"
A_YEAR = 365 * 24 * 60 * 60


@cache
def asset_url(path: str) -> str:
    """The address of ``static/<path>`` with its content's digest (read once a process)."""
    digest = blake2b((STATIC / path).read_bytes(), digest_size=6).hexdigest()
    return f"/static/{path}?v={digest}"


class VersionedStatic(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            versioned = b"v=" in scope.get("query_string", b"")
            response.headers["Cache-Control"] = (
                f"public, max-age={A_YEAR}, immutable" if versioned else "no-cache"
            )
        return response
