"""The FastAPI application: pages, the JSON API and the live WebSocket.

Routes only translate HTTP to ``RoomService`` calls and views to HTML/JSON; rules live in engines.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote, urlsplit

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.config import Settings, get_settings
from app.db import Database
from app.games.base import N_
from app.games.registry import ENGINES, package_of
from app.i18n import LOCALE_COOKIE, LOCALES, choose_locale, format_message
from app.migrate import upgrade_to_head
from app.rooms import RoomError, RoomService, RoomSnapshot
from app.web import api
from app.web.live import LiveRooms, Tab
from app.web.render import ROOT, regions_container, render_page, wrap_region

log = logging.getLogger(__name__)

SEAT_COOKIE_PREFIX = "bourse_seat_"
NODE_MODULES = ROOT / "node_modules"
VENDOR = {
    "htmx": NODE_MODULES / "htmx.org" / "dist",
    "htmx-ext-ws": NODE_MODULES / "htmx-ext-ws" / "dist",
}


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    db = Database(settings.database_url)  # creates the SQLite file's folder
    upgrade_to_head(settings.database_url)
    service = RoomService(db)
    live = LiveRooms(service, settings.bot_delay, settings.bot_window_delay)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        for code in await run_in_threadpool(service.playing_rooms):
            live.kick_bots(code)  # bots resume where a restart left them
        yield
        db.dispose()

    app = FastAPI(
        title="Bourse",
        summary="Play economic auction board games with friends.",
        description=api.DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.service = service
    app.state.live = live
    app.state.db = db

    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")
    for name, folder in VENDOR.items():
        if folder.is_dir():
            app.mount(f"/vendor/{name}", StaticFiles(directory=folder), name=f"vendor-{name}")
        else:
            log.warning("front-end package %s is missing: run `npm ci`", folder)

    app.include_router(api.router)

    # ------------------------------------------------------------ helpers
    def locale_of(request: Request) -> str:
        return choose_locale(
            request.query_params.get("lang"),
            request.cookies.get(LOCALE_COOKIE),
            request.headers.get("accept-language"),
        )

    def seat_cookie(code: str) -> str:
        return SEAT_COOKIE_PREFIX + code

    def set_seat_cookie(response: Response, code: str, token: str) -> None:
        response.set_cookie(
            seat_cookie(code),
            token,
            max_age=60 * 60 * 24 * 60,
            httponly=True,
            samesite="lax",
            secure=settings.secure_cookies,
            path="/",
        )

    def seat_of(request: Request, code: str) -> int | None:
        return service.seat_for_token(code, request.cookies.get(seat_cookie(code)))

    def base_url(request: Request) -> str:
        return settings.public_url.rstrip("/") or str(request.base_url).rstrip("/")

    def is_htmx(request: Request) -> bool:
        return request.headers.get("hx-request") == "true"

    def page(
        request: Request, template: str, status_code: int = 200, game_id: str | None = None, **context: Any
    ) -> HTMLResponse:
        locale = locale_of(request)
        html = render_page(template, locale, game_id, request_path=request.url.path, games=ENGINES, **context)
        response = HTMLResponse(html, status_code=status_code)
        if request.query_params.get("lang") in LOCALES:
            response.set_cookie(LOCALE_COOKIE, locale, max_age=60 * 60 * 24 * 365, samesite="lax")
        return response

    def error_response(request: Request, refused: RoomError, code: str | None = None) -> Response:
        locale = locale_of(request)
        game_id = _game_of(code)
        message = format_message(
            locale, refused.message, refused.params, str, package_of(game_id) if game_id else None
        )
        if is_htmx(request):
            flash = render_page("platform/flash.html", locale, message=message)
            # Only the message: the tab's WebSocket already brought the table that made this move stale.
            return HTMLResponse(str(wrap_region("flash", flash, oob=True)), status_code=refused.status)
        if code is not None and refused.status != 404:
            return RedirectResponse(f"/r/{code}?error={quote(message)}", status_code=303)
        return page(request, "platform/error.html", status_code=refused.status, message=message)

    def _game_of(code: str | None) -> str | None:
        try:
            return service.load(code).game if code else None
        except RoomError:
            return None

    def room_page(request: Request, snapshot: RoomSnapshot, seat: int | None) -> HTMLResponse:
        locale = locale_of(request)
        regions = live.page_regions(snapshot, seat, locale)
        info = snapshot.engine.info
        return page(
            request,
            "platform/room.html",
            game_id=info.id,
            room={
                "code": snapshot.code,
                "version": snapshot.version,
            },  # never the state: only views reach templates
            info=info,
            regions=regions_container(regions, oob=False),
            invite_url=f"{base_url(request)}/r/{snapshot.code}",
            resume_url=f"{base_url(request)}/r/{snapshot.code}/resume/{request.cookies[seat_cookie(snapshot.code)]}"
            if seat is not None
            else None,
            error=request.query_params.get("error"),
            has_game_css=(ROOT / "static" / "games" / f"{info.id}.css").is_file(),
        )

    async def changed(code: str) -> None:
        await live.after_change(code)

    # ------------------------------------------------------------ pages
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)
        return page(request, "platform/error.html", status_code=exc.status_code, message=str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        detail = f"Malformed request: {where} {first.get('msg', '')}".strip()
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": detail}, status_code=422)
        return page(request, "platform/error.html", status_code=422, message=detail)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, str]:
        service.ping()
        return {"status": "ok"}

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        return page(request, "platform/index.html")

    @app.get("/games/{game_id}/rules", response_class=HTMLResponse, include_in_schema=False)
    def rules(request: Request, game_id: str) -> HTMLResponse:
        engine = ENGINES.get(game_id)
        if engine is None:
            return page(request, "platform/error.html", status_code=404, message=N_("Unknown game."))
        return page(request, "platform/rules.html", game_id=game_id, info=engine.info)

    @app.post("/rooms", include_in_schema=False)
    async def create_room(request: Request) -> Response:
        form = await request.form()
        game = str(form.get("game", ""))
        engine = ENGINES.get(game)
        options = {o.key: form.get(f"option.{o.key}") == "on" for o in engine.info.options} if engine else {}
        try:
            code, _, token = await run_in_threadpool(
                service.create_room, game, form.get("players"), options, form.get("name", "")
            )
        except RoomError as refused:
            return error_response(request, refused)
        response = RedirectResponse(f"/r/{code}", status_code=303)
        assert token is not None
        set_seat_cookie(response, code, token)
        return response

    @app.get("/r/{code}", response_class=HTMLResponse, include_in_schema=False)
    def room(request: Request, code: str) -> Response:
        try:
            snapshot = service.load(code)
        except RoomError as refused:
            return error_response(request, refused)
        return room_page(request, snapshot, seat_of(request, code))

    @app.get("/r/{code}/resume/{token}", include_in_schema=False)
    def resume(request: Request, code: str, token: str) -> Response:
        try:
            seat = service.seat_for_token(code, token)
        except RoomError as refused:
            return error_response(request, refused)
        if seat is None:
            return page(
                request, "platform/error.html", status_code=403, message=N_("This resume link is not valid.")
            )
        response = RedirectResponse(f"/r/{code}", status_code=303)
        set_seat_cookie(response, code, token)
        return response

    @app.post("/r/{code}/join", include_in_schema=False)
    async def join(request: Request, code: str) -> Response:
        form = await request.form()
        try:
            _, token = await run_in_threadpool(service.join, code, form.get("name", ""))
        except RoomError as refused:
            return error_response(request, refused, code)
        await changed(code)
        response = RedirectResponse(f"/r/{code}", status_code=303)
        set_seat_cookie(response, code, token)
        if is_htmx(request):
            response = Response(status_code=204, headers={"HX-Redirect": f"/r/{code}"})
            set_seat_cookie(response, code, token)
        return response

    @app.post("/r/{code}/rematch", include_in_schema=False)
    async def join_rematch(request: Request, code: str) -> Response:
        """Join the room the host set up to play again, under the same name."""
        try:
            snapshot = service.load(code)
            seat = seat_of(request, code)
            me = snapshot.seat(seat)
            if snapshot.next_code is None or me is None:
                return RedirectResponse(f"/r/{code}", status_code=303)
            if service.seat_for_token(
                snapshot.next_code, request.cookies.get(seat_cookie(snapshot.next_code))
            ):
                return RedirectResponse(f"/r/{snapshot.next_code}", status_code=303)
            _, token = await run_in_threadpool(service.join, snapshot.next_code, me.name)
        except RoomError as refused:
            return error_response(request, refused, code)
        await changed(snapshot.next_code)
        response = RedirectResponse(f"/r/{snapshot.next_code}", status_code=303)
        set_seat_cookie(response, snapshot.next_code, token)
        return response

    @app.post("/r/{code}/host/{operation}", include_in_schema=False)
    async def host(request: Request, code: str, operation: str) -> Response:
        form = await request.form()
        seat = seat_of(request, code)
        target = form.get("seat")
        token: str | None = None
        new_code: str | None = None
        try:
            if operation == "start":
                await run_in_threadpool(service.start, code, seat)
            elif operation == "bot":
                await run_in_threadpool(service.add_bot, code, seat, False)
            elif operation == "fill":
                await run_in_threadpool(service.add_bot, code, seat, True)
            elif operation == "remove":
                await run_in_threadpool(service.remove_seat, code, seat, target)
            elif operation == "hand-to-bot":
                await run_in_threadpool(service.set_bot_control, code, seat, target, True)
            elif operation == "take-back":
                await run_in_threadpool(service.set_bot_control, code, seat, seat, False)
            elif operation == "again":
                new_code, token = await run_in_threadpool(service.play_again, code, seat)
            else:
                return page(request, "platform/error.html", status_code=404, message=N_("Unknown operation."))
        except RoomError as refused:
            return error_response(request, refused, code)
        await changed(code)
        target_code = new_code or code
        if is_htmx(request) and new_code is None:
            return Response(status_code=204)
        if is_htmx(request):
            response: Response = Response(status_code=204, headers={"HX-Redirect": f"/r/{target_code}"})
        else:
            response = RedirectResponse(f"/r/{target_code}", status_code=303)
        if new_code is not None and token is not None:
            set_seat_cookie(response, new_code, token)
        return response

    @app.post("/r/{code}/act", include_in_schema=False)
    async def act(request: Request, code: str) -> Response:
        form = await request.form()
        fields = [(key, value) for key, value in form.multi_items() if isinstance(value, str)]
        version = next((value for key, value in fields if key == "version"), None)
        action = form_to_action([(key, value) for key, value in fields if key != "version"])
        seat = seat_of(request, code)
        try:
            await run_in_threadpool(service.act, code, seat, version, action)
        except RoomError as refused:
            return error_response(request, refused, code)
        await changed(code)
        if not is_htmx(request):
            return RedirectResponse(f"/r/{code}", status_code=303)
        # The tab's WebSocket brings the new table; regions sent here could land after a newer push.
        return HTMLResponse(str(wrap_region("flash", "", oob=True)))

    @app.websocket("/ws/rooms/{code}")
    async def room_socket(socket: WebSocket, code: str) -> None:
        origin = socket.headers.get("origin")
        if origin and urlsplit(origin).netloc != socket.headers.get("host"):
            await socket.close(code=4403)  # another site's page must not open a seat's live view
            return
        try:
            seat = service.seat_for_token(code, socket.cookies.get(seat_cookie(code)))
        except RoomError:
            await socket.close(code=4404)
            return
        locale = choose_locale(
            socket.query_params.get("lang"),
            socket.cookies.get(LOCALE_COOKIE),
            socket.headers.get("accept-language"),
        )
        await socket.accept()
        page_version = socket.query_params.get("v", "")
        tab = Tab(
            socket=socket,
            seat=seat,
            locale=locale,
            page_version=int(page_version) if page_version.isdigit() else None,
        )
        sender = asyncio.create_task(tab.send_pushes())
        await live.join(code, tab)
        try:
            while True:
                await socket.receive_text()  # actions come over HTTP; this only keeps the line open
        except WebSocketDisconnect:
            pass
        finally:
            await live.leave(code, tab)
            sender.cancel()

    return app


def form_to_action(fields: list[tuple[str, str]]) -> dict[str, Any]:
    """Form fields to an action: dotted names nest (``gems.red``), repeated names become lists."""
    action: dict[str, Any] = {}
    for key, value in fields:
        target = action
        *parents, leaf = key.split(".")
        for parent in parents:
            nested = target.setdefault(parent, {})
            if not isinstance(nested, dict):
                break
            target = nested
        else:
            if leaf in target:
                existing = target[leaf]
                target[leaf] = [*existing, value] if isinstance(existing, list) else [existing, value]
            else:
                target[leaf] = value
    return action
