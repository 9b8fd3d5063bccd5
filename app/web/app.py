"""The FastAPI application, assembled: settings, database, services, static files, the guards in
front of every route (``guards.py``, one layer: ``security.py``'s headers and cross-site refusals,
``limits.py``'s body size, rate limits and socket caps), a tab's live socket past the routing behind
them (``socket_lane.py``), the error handlers, routers and the cleanup sweep.

The routes live in ``api.py`` (the JSON API), ``pages.py`` (pages and the live WebSocket),
``notifications.py`` (the service worker, opting in to Web Push), ``my_games.py`` and ``replay.py``;
the Web Push sender (``push.py``) is told of every committed decision by the room writer; they read the service, the live rooms and the settings through the dependencies in
``deps.py``, and a ``RoomError`` they let through is answered by ``answers.room_refused``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from app.bots.apart import Thinkers
from app.broadcast import make_broadcast
from app.cleanup import sweep_periodically
from app.config import Settings, get_settings
from app.db import Database
from app.games.base import N_, Budget
from app.games.registry import ENGINES
from app.learn.review import Reviewer
from app.learn.workers import LearnWorkers
from app.lease import Leases, RedisLeases
from app.metrics import metrics_endpoint
from app.rooms import RoomError, RoomService
from app.rooms.push_services import PushServices
from app.rooms.vapid import kept_vapid, load_vapid
from app.web import api, learn, my_games, notifications, pages, replay
from app.web.answers import (
    CANNOT_READ,
    CANNOT_SAVE,
    SERVER_ERROR,
    Refusal,
    database_failed,
    page,
    refusal_response,
    room_refused,
)
from app.web.assets import VersionedStatic
from app.web.bodies import JsonBodies
from app.web.deps import get_locale, get_service
from app.web.guards import Guards
from app.web.limits import Limits, live_socket_code
from app.web.live import LiveRooms
from app.web.moves import form_to_action
from app.web.push import PushSender
from app.web.render import ROOT
from app.web.security import security_headers
from app.web.socket_lane import SocketLane

__all__ = ["create_app", "form_to_action"]  # form_to_action lives in moves.py; tests import it here

log = logging.getLogger(__name__)

NODE_MODULES = ROOT / "node_modules"
VENDOR = {
    "htmx": NODE_MODULES / "htmx.org" / "dist",
    "htmx-ext-ws": NODE_MODULES / "htmx-ext-ws" / "dist",
    "idiomorph": NODE_MODULES / "idiomorph" / "dist",  # htmx's morph extension: how a push swaps a region
    "swagger-ui": NODE_MODULES / "swagger-ui-dist",  # the API docs' assets, from our own origin
}


def create_app(settings: Settings | None = None, migrated: bool = False) -> FastAPI:
    """The app on ``settings``' database, brought up to date first unless ``migrated`` says it was
    (``python -m app`` migrates in a child process: see ``app/__main__.py``)."""
    settings = settings or get_settings()
    db = Database(settings.database_url)  # creates the SQLite file's folder
    if not migrated:
        from app.migrate import migrate  # not imported by the server unless it migrates: see app.migrate

        migrate(settings.database_url)
    service = RoomService(db)
    service.health.min_free_bytes = settings.min_free_mb * 1024 * 1024
    service.turns.bot_budget = Budget(seconds=settings.bot_think_seconds)
    thinkers = Thinkers()  # strong bots think in a niced process of their own, off the event loop
    learning = LearnWorkers()  # and hints and reviews in processes of their own, niced further
    reviewer = Reviewer(service, learning)
    service.turns.strong_search = thinkers.search
    broadcast = make_broadcast(settings.broadcast_url)  # several processes: Redis
    leases = (
        RedisLeases(settings.broadcast_url, broadcast.origin, settings.lease_seconds)
        if broadcast.shared
        else Leases(broadcast.origin, settings.lease_seconds)
    )
    live = LiveRooms(
        service,
        settings.bot_delay,
        settings.bot_window_delay,
        away_grace=settings.away_grace,
        broadcast=broadcast,
        leases=leases,
        draw_chat=pages.chat_push,
    )

    push = push_sender(service, settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if push is not None:
            push.start()
        await live.start()
        try:
            playing = await run_in_threadpool(service.turns.playing_rooms)
        except OperationalError as failure:  # an unreadable database: /healthz says so, pages answer 503
            log.error("the database cannot be read, so no bot resumes: %s", failure.orig)
            playing = []
        for code in playing:
            live.bots.kick(code)  # bots resume where a restart left them
        with contextlib.suppress(OperationalError):
            await run_in_threadpool(reviewer.resume)  # and so do reviews
        sweeper = (
            asyncio.create_task(sweep_periodically(service, settings)) if settings.cleanup_interval else None
        )
        timers = asyncio.create_task(live.timers.run(settings.clock_tick))  # clocks and away seats
        yield
        timers.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await timers
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
        await live.stop()
        thinkers.stop()
        learning.stop()
        if push is not None:
            push.stop()
        db.dispose()

    app = Bourse(
        title="Bourse",
        summary="Play economic auction board games with friends.",
        description=api.DESCRIPTION,
        lifespan=lifespan,
        # FastAPI's own /docs and /redoc load their scripts from a CDN (and run an inline script):
        # pages.py serves Swagger UI from node_modules instead; ReDoc is not offered.
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.service = service
    app.state.live = live
    app.state.db = db
    app.state.push = push
    app.state.limits = limits = Limits(settings)
    app.state.learn = learning
    app.state.reviewer = reviewer

    app.mount("/static", VersionedStatic(directory=ROOT / "static"), name="static")
    if settings.metrics:  # Prometheus' /metrics (app/metrics.py); off, it is a 404 like any unknown path
        scrape = metrics_endpoint(db, live, push, settings.metrics_token.get_secret_value(), ENGINES)
        app.add_route("/metrics", scrape, include_in_schema=False)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        """Browsers ask for /favicon.ico wherever a page names no icon (the API docs, a JSON answer)."""
        return FileResponse(ROOT / "static" / "icons" / "favicon.svg", media_type="image/svg+xml")

    for name, folder in VENDOR.items():
        if folder.is_dir():
            app.mount(f"/vendor/{name}", StaticFiles(directory=folder), name=f"vendor-{name}")
        else:
            log.warning("front-end package %s is missing: run `npm ci`", folder)

    app.add_middleware(JsonBodies)  # a body read as JSON nests at most so deep (inside the size limit)
    # headers, limits, body size, cross-site: one layer (the limits also count a move sent over a socket)
    app.add_middleware(Guards, settings=settings, limits=limits)
    # pages, fragments and assets compressed on the way out (outermost; never a live socket's frames)
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)
    app.live_lane = Guards(SocketLane(app.router), settings=settings, limits=limits)

    app.exception_handler(StarletteHTTPException)(http_error)
    app.exception_handler(RoomError)(room_refused)
    app.exception_handler(OperationalError)(database_error)
    app.exception_handler(Exception)(server_error)
    app.exception_handler(RequestValidationError)(validation_error)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(notifications.router)
    app.include_router(replay.router)
    app.include_router(my_games.router)
    app.include_router(learn.router)

    return app


class Bourse(FastAPI):
    """FastAPI, with a tab's live socket handed straight to the guards and the lane (``live_lane``).

    FastAPI's and Starlette's calls and the three middlewares they put around every connection (the
    server-error page, exception telemetry, the body limit) only pass a socket on, but each keeps a
    frame open for as long as the tab is: ~1.3 KB and 8 objects for the collector a tab (BENCHMARKS.md).
    The socket still meets the same guards and lane as on the way through the middleware stack, with
    the same limits. Everything else takes the usual way."""

    live_lane: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self.live_lane is not None and live_socket_code(scope["path"]):
            if self.root_path:
                scope["root_path"] = self.root_path
            scope["app"] = self
            await self.live_lane(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def push_sender(service: RoomService, settings: Settings) -> PushSender | None:
    """The Web Push sender, told of every committed decision, with the server's VAPID key pair: the
    operator's, or the one made at the first start and kept in the database. None (no pushes, the
    room menu does not offer them) while the database cannot keep a key."""
    service.push.services = PushServices.named(settings.push_services)
    try:
        vapid = (
            load_vapid(settings.vapid_private_key, settings.push_contact)
            if settings.vapid_private_key.get_secret_value()
            else kept_vapid(service.push, settings.push_contact)
        )
    except OperationalError as failure:
        log.error("no VAPID key could be stored, so no pushes are sent: %s", failure.orig)
        return None
    sender = PushSender(service, vapid, settings.push_timeout)
    service.writer.committed = sender.note
    return sender


STARLETTE_MESSAGES = {
    400: N_("This request's data could not be read."),  # FastAPI: a JSON body that is not UTF-8
    404: N_("There is no such page."),
    405: N_("This address does not take that kind of request."),
}


async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
    if isinstance(exc, Refusal):
        message, params = exc.message, exc.params
    else:
        message, params = STARLETTE_MESSAGES.get(exc.status_code, str(exc.detail)), {}
    return refusal_response(request, exc.status_code, message, params, exc.headers)


async def database_error(request: Request, exc: Exception) -> Response:
    """The database refused (a full disk, a read-only or locked file, a server that is down): 503 with
    ``Retry-After``, readable, JSON under /api/; a read says it cannot reach the games, a write that
    it cannot save. A live socket's handshake (``request`` is then its ``WebSocket``) is refused with
    the same 503: the page reconnects with back-off."""
    database_failed(
        get_service(request), f"{request.scope.get('method', 'WEBSOCKET')} {request.url.path}", exc
    )
    reading = request.scope.get("method") in ("GET", "HEAD")
    return refusal_response(
        request, 503, CANNOT_READ if reading else CANNOT_SAVE, headers={"Retry-After": "30"}
    )


async def server_error(request: Request, exc: Exception) -> Response:
    """Any other error: 500, JSON under /api/ (uvicorn logs the traceback). This answer is made
    outside the middleware, so it adds the security headers itself."""
    try:
        response = refusal_response(request, 500, SERVER_ERROR)
    except Exception:  # the error page itself failed: plain words
        response = PlainTextResponse("Internal Server Error", status_code=500)
    response.headers.update(security_headers(request.url.path, request.headers.get("host")))
    return response


async def validation_error(request: Request, exc: RequestValidationError) -> Response:
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    detail = f"Malformed request: {where} {first.get('msg', '')}".strip()
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": detail}, status_code=422)
    return page(request, get_locale(request), "platform/error.html", status_code=422, message=detail)
