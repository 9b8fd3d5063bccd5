"""The routes of Web Push (issue 23): the service worker, and a seat opting in or out of being told
when it is their turn (the room menu's "Tell me when it's my turn", ``static/js/bourse.js``).

The page posts its browser's ``PushSubscription.toJSON()`` (``endpoint`` and ``keys``) as JSON; a
refusal answers ``{"detail": ...}`` in the reader's language, for the menu to show. Sending is
``app.web.push``'s.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from app.games.base import N_
from app.games.registry import package_of
from app.i18n import format_message
from app.rooms import RoomError
from app.web.deps import PageRoom
from app.web.render import ROOT

router = APIRouter(include_in_schema=False)

SERVICE_WORKER = ROOT / "static" / "js" / "service-worker.js"
NOT_JSON = N_("The subscription must be sent as JSON.")
PUSH_OFF = N_("Notifications of your turn are not available on this server.")


@router.get("/service-worker.js")
def service_worker() -> FileResponse:
    """The service worker, from the site's root so that its scope is every page; never cached
    stale (a browser checks it for updates at each navigation)."""
    return FileResponse(SERVICE_WORKER, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError as malformed:
        raise RoomError(NOT_JSON) from malformed
    if not isinstance(body, dict):
        raise RoomError(NOT_JSON)
    return body


def _refused(room: PageRoom, refused: RoomError) -> JSONResponse:
    game = None
    with contextlib.suppress(RoomError):  # an unknown room: the platform's words
        game = room.service.load(room.code).game
    detail = format_message(
        room.locale, refused.message, refused.params, str, package_of(game) if game else None
    )
    return JSONResponse({"detail": detail}, status_code=refused.status)


@router.post("/r/{code}/push")
async def subscribe(request: Request, room: PageRoom) -> Response:
    """Tell this browser when it is this seat's turn (in the page's language), until turned off."""
    try:
        if getattr(request.app.state, "push", None) is None:
            raise RoomError(PUSH_OFF)
        body = await _json_body(request)
        await run_in_threadpool(
            room.service.push.subscribe,
            room.code,
            room.seat,
            body.get("endpoint"),
            body.get("keys"),
            room.locale,
        )
    except RoomError as refused:
        return _refused(room, refused)
    return Response(status_code=204)


@router.post("/r/{code}/push/off")
async def unsubscribe(request: Request, room: PageRoom) -> Response:
    """This browser is no longer told of this seat's turns."""
    try:
        body = await _json_body(request)
        endpoint = body.get("endpoint")
        if isinstance(endpoint, str):
            await run_in_threadpool(room.service.push.unsubscribe, room.code, room.seat, endpoint)
    except RoomError as refused:
        return _refused(room, refused)
    return Response(status_code=204)
