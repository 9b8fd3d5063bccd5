"""How the web answers: a page in the visitor's language, and a refusal as JSON, a flash or a page.

Kept apart from the routes so the guards in front of them (``limits.py``, ``security.py``) and the
app's error handlers answer a refusal as the routes do without importing a router. ``room_refused``
is the one handler for a ``RoomError`` that any route lets through.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from app.games.base import N_
from app.games.registry import ENGINES, package_of
from app.i18n import LOCALE_COOKIE, format_message, named_locale
from app.rooms import RoomError, RoomService
from app.web.deps import get_locale, get_service
from app.web.messages import error_query
from app.web.render import render_page, wrap_region

CANNOT_SAVE = N_("The server cannot save anything right now; please try again in a while.")
CANNOT_READ = N_("The server cannot reach its games right now; please try again in a while.")
SERVER_ERROR = N_("Something went wrong on our side; please try again.")

log = logging.getLogger(__name__)


def database_failed(service: RoomService, what: str, failure: Exception) -> None:
    """Note that the database refused ``what`` (a full disk, a read-only or locked file, a server
    that is down): logged, and /healthz reports it for a while. The caller answers 503 with
    ``CANNOT_SAVE`` (a read: ``CANNOT_READ``)."""
    log.error("%s: the database failed: %s", what, getattr(failure, "orig", failure))
    service.health.write_failed()


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def sent_json(request: Request) -> bool:
    """Whether the request's body is JSON (a client that sent JSON reads JSON)."""
    return request.headers.get("content-type", "").startswith("application/json")


def page(
    request: Request,
    locale: str,
    template: str,
    status_code: int = 200,
    game_id: str | None = None,
    **context: Any,
) -> HTMLResponse:
    html = render_page(template, locale, game_id, request_path=request.url.path, games=ENGINES, **context)
    response = HTMLResponse(html, status_code=status_code)
    if named_locale(request.query_params.get("lang")) is not None:
        response.set_cookie(LOCALE_COOKIE, locale, max_age=60 * 60 * 24 * 365, samesite="lax")
    return response


class Refusal(HTTPException):
    """A request refused before it reached the room service (too large, too many, cross-site, a
    socket's move that cannot be read): a status and a translatable message, answered by
    ``refusal_response`` (a socket's move: by ``moves.py``)."""

    def __init__(
        self, status: int, message: str, headers: dict[str, str] | None = None, **params: Any
    ) -> None:
        super().__init__(status, format_message("en", message, params, str), headers)
        self.message = message
        self.params = params


def json_refusal(
    status: int, message: str, params: Mapping[str, Any], headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """``{"detail": ...}``, the message in English: what the JSON API answers to every refusal."""
    detail = format_message("en", message, params, str)
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


def refusal_response(
    request: Request,
    status: int,
    message: str,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    game_package: str | None = None,
) -> Response:
    """``{"detail": ...}`` under ``/api/``; else the message in the visitor's language (and the room's
    game's words): as ``{"detail": ...}`` to a JSON body (a page's script sent it: the Web Push
    opt-in), as a flash for an htmx request (its page stays: bourse.js shows the flash's text at
    the refused form's control) or as an error page."""
    if request.url.path.startswith("/api/"):
        return json_refusal(status, message, params or {}, headers)
    locale = get_locale(request)
    text = format_message(locale, message, params or {}, str, game_package)
    if sent_json(request):
        return JSONResponse({"detail": text}, status_code=status, headers=headers)
    if is_htmx(request):
        flash = render_page("platform/flash.html", locale, message=text)
        return HTMLResponse(str(wrap_region("flash", flash, oob=True)), status_code=status, headers=headers)
    response = page(request, locale, "platform/error.html", status_code=status, message=text)
    response.headers.update(headers or {})
    return response


async def _refusals_go_back_to_room(request: Request) -> None:
    request.state.refused_back_to_room = True


BACK_TO_ROOM = [Depends(_refusals_go_back_to_room)]
"""``dependencies`` of a room's form post: refused, a plain form (not htmx) goes back to the room page,
which shows the message its ``?error=`` names. An unknown room still gets the error page."""


async def room_refused(request: Request, refused: RoomError) -> Response:
    """The answer to a ``RoomError`` a route let through: JSON under ``/api/`` and to a JSON body
    (a client that sent JSON reads JSON), else as ``refusal_response`` draws it, in the words of the
    game of the room the path names, or back on the room page (``BACK_TO_ROOM``)."""
    if request.url.path.startswith("/api/") or sent_json(request):
        return json_refusal(refused.status, refused.message, refused.params)
    code = request.path_params.get("code")
    back_to_room = getattr(request.state, "refused_back_to_room", False)
    if back_to_room and code is not None and refused.status != 404 and not is_htmx(request):
        # The page shows the message from its key: a URL anyone can write carries no text.
        return RedirectResponse(f"/r/{code}?{error_query(refused.message, refused.params)}", status_code=303)
    game_id = await run_in_threadpool(game_of, get_service(request), code)
    # An htmx post gets only the message: the tab's WebSocket already brought the table that made a
    # move stale (409), and bourse.js then catches the tab up.
    package = package_of(game_id) if game_id else None
    return refusal_response(request, refused.status, refused.message, refused.params, game_package=package)


def game_of(service: RoomService, code: str | None) -> str | None:
    """The game of room ``code`` (for a refusal in the game's words); None if there is no such room."""
    try:
        return service.load(code).game if code else None
    except RoomError:
        return None
