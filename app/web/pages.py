"""The HTML pages, their form posts and the room's live WebSocket (not in the OpenAPI schema).

Routes only translate HTTP to ``RoomService`` calls and views to HTML; rules live in engines. A
room's route takes its request as a ``deps.PageRoom`` (the service, the live rooms, the settings, the
locale and this browser's seat); a ``RoomError`` it lets through is answered by
``answers.room_refused`` (a flash for htmx, an error page, or for a room's form posts marked
``BACK_TO_ROOM`` the room page again).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.types import Scope

from app.config import Settings
from app.games.base import N_, visible_events
from app.games.registry import ENGINES, package_of
from app.i18n import format_message, person_name
from app.rooms import REACTIONS, ChatLine, RoomError, RoomSnapshot
from app.web import learn
from app.web.answers import BACK_TO_ROOM, is_htmx, json_refusal, page
from app.web.deps import (
    VIEWER_COOKIE,
    LiveDep,
    LocaleDep,
    PageRoom,
    RoomRequest,
    SeatTokenDep,
    ServiceDep,
    SettingsDep,
    chat_author_of,
    chosen_clock,
    get_live,
    get_seat_token,
    get_service,
    new_viewer_key,
    resume_url,
    seat_cookie,
)
from app.web.limits import client_key
from app.web.live import Tab
from app.web.messages import error_from_query
from app.web.moves import MAX_FORM_FIELDS, TOO_MANY_FIELDS, form_to_action, move_from_socket
from app.web.render import (
    ROOT,
    environment,
    event_line,
    regions_container,
    render_page,
    rules_for_phase,
)
from app.web.render.room import make_table

router = APIRouter(include_in_schema=False)


# ------------------------------------------------------------ helpers
def set_seat_cookie(response: Response, settings: Settings, code: str, token: str) -> None:
    response.set_cookie(
        seat_cookie(code),
        token,
        max_age=60 * 60 * 24 * 60,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
        path="/",
    )


def base_url(request: Request, settings: Settings) -> str:
    return settings.public_url.rstrip("/") or str(request.base_url).rstrip("/")


def chat_panel(
    locale: str, game_id: str, code: str, lines: list[ChatLine], seat: int | None, is_host: bool
) -> Markup:
    """The table chat as one viewer's page shows it (its newest messages, the forms)."""
    return Markup(
        render_page(
            "platform/chat.html",
            locale,
            game_id,
            code=code,
            lines=lines,
            seat=seat,
            seated=seat is not None,
            is_host=is_host,
            reactions=REACTIONS,
        )
    )


def chat_push(game_id: str, code: str, line: ChatLine) -> Callable[[str], str]:
    """How one new chat message is drawn for a language: the same bytes for every tab in it (no
    reader's controls: the host's page shows its mute buttons itself)."""

    def draw(locale: str) -> str:
        template = environment(locale, game_id).get_template("platform/chat_line.html")
        html = template.render(line=line, code=code, show_mute=False)
        return f'<div hx-swap-oob="beforeend:#chat-list">{html}</div>'

    return draw


def room_page(
    request: Request, room: RoomRequest, snapshot: RoomSnapshot, chat: list[ChatLine] | None = None
) -> HTMLResponse:
    locale, seat, token = room.locale, room.seat, room.token
    if snapshot.hints and seat is not None:  # its first hint should not wait for a process to start
        learn.learn_workers(request).warm()
    regions = room.live.page_regions(snapshot, seat, locale)
    info = snapshot.engine.info
    me = snapshot.seat(seat)
    return page(
        request,
        locale,
        "platform/room.html",
        game_id=info.id,
        room={
            "code": snapshot.code,
            "version": snapshot.version,
            "status": snapshot.status,
            "imported": snapshot.imported,
            "hints": snapshot.hints,
        },  # never the state: only views reach templates
        info=info,
        regions=regions_container(regions, oob=False),
        invite_url=f"{base_url(request, room.settings)}/r/{snapshot.code}",
        resume_url=resume_url(base_url(request, room.settings), snapshot.code, token)
        if seat is not None and token
        else None,
        error=_redirected_error(request, locale, snapshot),
        chat_panel=chat_panel(
            locale, info.id, snapshot.code, chat or [], seat, me is not None and me.is_host
        ),
        has_game_css=(ROOT / "static" / "games" / f"{info.id}.css").is_file(),
        viewer_seat=seat,  # the page marks "you" and shows the host's buttons (public regions do not)
        viewer_host=me is not None and me.is_host,
        # the VAPID public key a seat's browser subscribes with ("Tell me when it's my turn")
        push_key=push.vapid.public
        if (push := request.app.state.push) is not None and me is not None
        else None,
    )


def _redirected_error(request: Request, locale: str, snapshot: RoomSnapshot) -> str | None:
    """The message a refused form's redirect names (``messages.error_query``), in the reader's words."""
    named = error_from_query(request.query_params)
    if named is None:
        return None
    message, params = named
    return format_message(locale, message, params, snapshot.name_of, package_of(snapshot.game))


async def posted_fields(request: Request) -> list[tuple[str, str]]:
    """A form post's text fields, in order. The url-encoded body every browser sends for the room's
    forms is read as Starlette's parser reads it (escapes as UTF-8, blank values kept) in a quarter
    of its time; any other body goes through that parser."""
    if (
        request.headers.get("content-type", "").partition(";")[0].strip()
        == "application/x-www-form-urlencoded"
    ):
        body = (await request.body()).decode("latin-1")
        try:
            return parse_qsl(body, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
        except ValueError as too_many:
            raise RoomError(TOO_MANY_FIELDS) from too_many
    async with request.form() as form:
        return [(key, value) for key, value in form.multi_items() if isinstance(value, str)]


# ------------------------------------------------------------ pages
@router.get("/healthz")
async def healthz(service: ServiceDep) -> JSONResponse:
    """200 while the database can be read and written and its disk has room; 503 otherwise (a monitor
    restarts or alerts)."""
    if not await run_in_threadpool(service.health.readable):
        return JSONResponse({"status": "error", "detail": "the database cannot be read"}, status_code=503)
    if not await run_in_threadpool(service.health.writable):
        return JSONResponse({"status": "error", "detail": "the database cannot be written"}, status_code=503)
    free = await run_in_threadpool(service.health.free_bytes_if_low)
    if free is not None:
        detail = f"the disk is nearly full: {free // (1024 * 1024)} MB free"
        return JSONResponse({"status": "error", "detail": detail}, status_code=503)
    return JSONResponse({"status": "ok"})


@router.get("/docs", response_class=HTMLResponse)
def api_docs() -> HTMLResponse:
    """The API's docs: Swagger UI served from our own origin (``/vendor/swagger-ui``)."""
    return HTMLResponse((ROOT / "templates" / "platform" / "docs.html").read_text(encoding="utf-8"))


@router.get("/", response_class=HTMLResponse)
def index(request: Request, locale: LocaleDep, settings: SettingsDep) -> HTMLResponse:
    return page(request, locale, "platform/index.html", clocks=settings.clocks)


@router.get("/games/{game_id}/rules", response_class=HTMLResponse)
def rules(request: Request, locale: LocaleDep, game_id: str) -> HTMLResponse:
    engine = ENGINES.get(game_id)
    if engine is None:
        return page(request, locale, "platform/error.html", status_code=404, message=N_("Unknown game."))
    return page(request, locale, "platform/rules.html", game_id=game_id, info=engine.info)


@router.get("/games/{game_id}/rules/{phase}", response_class=HTMLResponse)
def rules_in_place(request: Request, locale: LocaleDep, game_id: str, phase: str) -> HTMLResponse:
    """The rules for one phase of a game: the room's "?" beside a decision loads them into its
    dialog (htmx); opened as a link (no script), a short page of them."""
    engine = ENGINES.get(game_id)
    rules_html = rules_for_phase(game_id, phase, locale) if engine is not None else ""
    if engine is None or not rules_html:
        message = N_("Unknown game.") if engine is None else N_("These rules have no part for that moment.")
        return page(request, locale, "platform/error.html", status_code=404, message=message)
    template = "platform/rules_part.html" if is_htmx(request) else "platform/rules_part_page.html"
    return page(request, locale, template, game_id=game_id, info=engine.info, part=Markup(rules_html))


@router.post("/rooms")
async def create_room(
    request: Request, service: ServiceDep, settings: SettingsDep, live: LiveDep, locale: LocaleDep
) -> Response:
    form = await request.form()
    game = str(form.get("game", ""))
    engine = ENGINES.get(game)
    if form.get("practice") == "yes":  # "Learn <game>": a practice room, started at once (learn.py)
        code, token = await run_in_threadpool(learn.open_practice_room, service, game, locale)
        await live.after_change(code)
    else:
        options = {o.key: form.get(f"option.{o.key}") == "on" for o in engine.info.options} if engine else {}
        clock = chosen_clock(settings, form.get("clock") or 0)
        full_record = form.get("full_record") == "on"
        code, _, created = await run_in_threadpool(
            service.seats.create_room,
            game,
            form.get("players"),
            options,
            form.get("name", ""),
            clock,
            full_record,
            form.get("hints") == "on",
        )
        assert created is not None
        token = created
    response = RedirectResponse(f"/r/{code}", status_code=303)
    set_seat_cookie(response, settings, code, token)
    return response


@router.get("/r/{code}", response_class=HTMLResponse)
def room(request: Request, room: PageRoom) -> Response:
    snapshot = room.snapshot or room.service.load(room.code)  # the room its seat was found in
    chat = room.service.chat.lines(room.code)
    return room_page(request, room, snapshot, chat)


# The personal link (``deps.resume_url``) carries the seat token in its fragment: the resume page's
# script (static/js/bourse.js) posts it here; without JavaScript it can be pasted into the form.
@router.get("/r/{code}/resume", response_class=HTMLResponse)
def resume_page(request: Request, room: PageRoom) -> Response:
    snapshot = room.service.load(room.code)
    return page(
        request,
        room.locale,
        "platform/resume.html",
        game_id=snapshot.game,
        code=room.code,
        info=snapshot.engine.info,
    )


@router.post("/r/{code}/resume")
async def resume(request: Request, room: PageRoom) -> Response:
    token = str((await request.form()).get("token", "")).strip()
    seat = await run_in_threadpool(room.service.seats.seat_for_token, room.code, token)
    if seat is None:
        return page(
            request,
            room.locale,
            "platform/error.html",
            status_code=403,
            message=N_("This resume link is not valid."),
        )
    response = RedirectResponse(f"/r/{room.code}", status_code=303)
    set_seat_cookie(response, room.settings, room.code, token)
    return response


@router.post("/r/{code}/join", dependencies=BACK_TO_ROOM)
async def join(request: Request, room: PageRoom) -> Response:
    form = await request.form()
    code = room.code
    _, token = await run_in_threadpool(room.service.seats.join, code, form.get("name", ""))
    await room.live.after_change(code)
    response: Response = RedirectResponse(f"/r/{code}", status_code=303)
    set_seat_cookie(response, room.settings, code, token)
    if is_htmx(request):
        response = Response(status_code=204, headers={"HX-Redirect": f"/r/{code}"})
        set_seat_cookie(response, room.settings, code, token)
    return response


@router.post("/r/{code}/rematch", dependencies=BACK_TO_ROOM)
async def join_rematch(room: PageRoom) -> Response:
    """Take one's seat in the room the host set up to play again: the seat token carries over, so
    this browser's cookie for this room opens the same seat there."""
    snapshot = await run_in_threadpool(room.service.load, room.code)
    token = room.token
    if snapshot.next_code is None or snapshot.seat(room.seat) is None or token is None:
        return RedirectResponse(f"/r/{room.code}", status_code=303)
    kept = await run_in_threadpool(room.service.seats.seat_for_token, snapshot.next_code, token) is not None
    response = RedirectResponse(f"/r/{snapshot.next_code}", status_code=303)
    if kept:
        set_seat_cookie(response, room.settings, snapshot.next_code, token)
    return response


@router.post("/r/{code}/host/{operation}", dependencies=BACK_TO_ROOM)
async def host(request: Request, room: PageRoom, operation: str) -> Response:
    form = await request.form()
    target = form.get("seat")
    code, seat, service = room.code, room.seat, room.service
    token: str | None = None
    new_code: str | None = None
    if operation == "start":
        # "Start without …": the seats named whose players are still not back (none may be skipped
        # who is here), played by their bots until they take them back.
        without = {
            int(n) for n in form.getlist("without") if isinstance(n, str) and n.isdigit() and len(n) < 4
        }
        without -= room.live.connected(code)
        await run_in_threadpool(service.seats.start, code, seat, without)
    elif operation == "bot":
        await run_in_threadpool(service.seats.add_bot, code, seat, False, form.get("strength", "normal"))
    elif operation == "fill":
        await run_in_threadpool(service.seats.add_bot, code, seat, True, form.get("strength", "normal"))
    elif operation == "remove":
        await run_in_threadpool(service.seats.remove_seat, code, seat, target)
    elif operation == "hand-to-bot":
        away = room.live.away(code, await run_in_threadpool(service.load, code))
        await run_in_threadpool(service.seats.set_bot_control, code, seat, target, True, away)
    elif operation == "take-back":
        await run_in_threadpool(service.seats.set_bot_control, code, seat, seat, False)
    elif operation == "again":
        new_code, token = await run_in_threadpool(service.records.play_again, code, seat, room.token)
    else:
        return page(
            request, room.locale, "platform/error.html", status_code=404, message=N_("Unknown operation.")
        )
    await room.live.after_change(code)
    target_code = new_code or code
    if is_htmx(request) and new_code is None:
        return Response(status_code=204)
    if is_htmx(request):
        response: Response = Response(status_code=204, headers={"HX-Redirect": f"/r/{target_code}"})
    else:
        response = RedirectResponse(f"/r/{target_code}", status_code=303)
    if new_code is not None and token is not None:
        set_seat_cookie(response, room.settings, new_code, token)
    return response


@router.post("/r/{code}/clock", dependencies=BACK_TO_ROOM)
async def pause_clock(request: Request, room: PageRoom) -> Response:
    """The host pauses the table's turn clock (``pause=yes``) or resumes it (``pause=no``); the
    table chat says so."""
    paused = (await request.form()).get("pause") == "yes"
    clocks = room.service.clocks
    notice = await run_in_threadpool(clocks.pause if paused else clocks.resume, room.code, room.seat)
    if notice is not None:
        snapshot = await run_in_threadpool(room.service.load, room.code)
        await room.live.after_change(room.code, snapshot)
        await room.live.share_chat(room.code, snapshot.game, notice)
    if is_htmx(request):
        return Response(status_code=204)
    return RedirectResponse(f"/r/{room.code}", status_code=303)


async def act(request: Request) -> Response:
    """A move from the room page's form. The hottest route, so a plain Starlette endpoint (no
    dependency resolution) with one worker-thread hop: the seat comes from this browser's cookie
    inside the move's own write transaction (``Turns.act_as``), not from a read before it."""
    code = request.path_params["code"]
    request.state.refused_back_to_room = True  # as BACK_TO_ROOM does for the other form posts
    fields = await posted_fields(request)
    version = next((value for key, value in fields if key == "version"), None)
    action = form_to_action([(key, value) for key, value in fields if key != "version"])
    turns = get_service(request).turns
    after = await run_in_threadpool(turns.act_as, code, get_seat_token(request, code), version, action)
    await get_live(request).after_change(code, after)
    if not is_htmx(request):
        return RedirectResponse(f"/r/{code}", status_code=303)
    # The tab's WebSocket brings the new table (and clears old refusals); anything sent here could land
    # after a newer push, or find its form already replaced by one (htmx then has no target for it).
    return HTMLResponse("")


router.add_route("/r/{code}/act", act, methods=["POST"], include_in_schema=False)


# ------------------------------------------------------------ chat
@router.get("/r/{code}/chat")
async def chat_lines(room: PageRoom) -> Response:
    """The chat's newest messages as this reader's list shows them: a tab that was offline while
    people talked fetches them when its WebSocket comes back (pushes are not replayed). Its script
    reads a refusal as JSON."""
    code, seat = room.code, room.seat
    try:
        snapshot = await run_in_threadpool(room.service.load, code)
        lines = await run_in_threadpool(room.service.chat.lines, code)
    except RoomError as refused:
        return json_refusal(refused.status, refused.message, refused.params)
    me = snapshot.seat(seat)
    is_host = me is not None and me.is_host
    template = environment(room.locale, snapshot.game).get_template("platform/chat_line.html")
    html = "".join(
        template.render(line=line, code=code, show_mute=is_host and line.seat != seat) for line in lines
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.post("/r/{code}/chat", dependencies=BACK_TO_ROOM)
async def chat(request: Request, room: PageRoom) -> Response:
    """Say something at the table (``text``) or send a quick reaction (``reaction``); a spectator
    may give a ``name``. The message reaches every tab of the room through its WebSocket."""
    form = await request.form()
    code, seat = room.code, room.seat
    viewer_key = request.cookies.get(VIEWER_COOKIE) or new_viewer_key()
    author = chat_author_of(room.token if seat is not None else None, viewer_key)
    reaction = form.get("reaction")
    snapshot = await run_in_threadpool(room.service.load, code)
    line = await run_in_threadpool(
        room.service.chat.post,
        code,
        seat,
        author,
        reaction if reaction is not None else form.get("text"),
        form.get("name") or None,
        reaction is not None,
        client_key(request.scope),
    )
    await room.live.share_chat(code, snapshot.game, line)
    response: Response = (
        Response(status_code=204)
        if is_htmx(request)
        else RedirectResponse(f"/r/{code}#chat", status_code=303)
    )
    if seat is None and VIEWER_COOKIE not in request.cookies:
        response.set_cookie(
            VIEWER_COOKIE,
            viewer_key,
            max_age=60 * 60 * 24 * 365,
            httponly=True,
            samesite="lax",
            secure=room.settings.secure_cookies,
        )
    return response


@router.post("/r/{code}/chat/mute", dependencies=BACK_TO_ROOM)
async def mute(request: Request, room: PageRoom) -> Response:
    """The host mutes the writer of a chat message at this table; their earlier lines leave every
    tab's chat."""
    form = await request.form()
    removed = await run_in_threadpool(room.service.chat.mute, room.code, room.seat, form.get("message"))
    await room.live.chat.remove(room.code, removed)
    if is_htmx(request):
        # Into the flash region named by the form's hx-target, not out of band: the push above may
        # already have taken the form (and its line) off the page, and htmx looks for an
        # out-of-band target only in the document that still holds the requesting element.
        return HTMLResponse(render_page("platform/flash.html", room.locale, message=_muted(room.locale)))
    return RedirectResponse(f"/r/{room.code}#chat", status_code=303)


def _muted(locale: str) -> str:
    return format_message(
        locale, N_("Muted: their messages are removed and they can no longer write at this table."), {}, str
    )


# ------------------------------------------------------------ live
AWAY_LINES = 3  # the newest of the lines a tab missed that its "while you were away" note quotes


def away_note(snapshot: RoomSnapshot, seat: int | None, locale: str, seen: int) -> str:
    """What a tab that comes back missed: the game-log lines its seat may read after the first
    ``seen`` it showed, whom they were about, and the newest of them (a note for that tab only; ""
    if it missed none)."""
    table = make_table(snapshot, seat, frozenset())
    missed = visible_events({"events": snapshot.events}, seat)[seen:]
    if not missed:
        return ""
    lines = [event_line(event, locale, snapshot.game, table.name_of) for event in missed[-AWAY_LINES:]]
    subjects = [subject for subject in map(_subject, missed) if subject is not None]
    about = sorted(Counter(subjects).items())
    return render_page(
        "platform/away.html",
        locale,
        snapshot.game,
        count=len(missed),
        lines=Markup("".join(lines)),
        about=[(person_name(locale, table.name_of(subject)), times) for subject, times in about],
    )


def _subject(event: dict[str, Any]) -> int | None:
    """The seat a log line is about (its ``{seat}``: who bid, sold, scored), if it names one."""
    subject = event["params"].get("seat")
    return subject["seat"] if isinstance(subject, dict) and set(subject) == {"seat"} else None


@dataclass(frozen=True, slots=True)
class _Opening:
    """What a live socket's handshake asks, read once. Not read through the ``WebSocket``'s own
    properties: Starlette keeps a connection's parsed headers, cookies and query for as long as it
    lives (~1.5 KB), and a live socket lives as long as its tab (8 MB at 1000 rooms of five tabs)."""

    cross_site: bool  # opened by another site's page
    page_version: int | None  # ``?v=``: the room version its page was rendered at
    viewer: str  # the viewer cookie: names a spectator's chat lines
    seen: str  # ``?away=``: the log lines the page showed when it last saw the room
    reopened: bool  # ``&back=1``: a page opened again

    @classmethod
    def of(cls, scope: Scope) -> _Opening:
        connection = HTTPConnection(scope)
        origin = connection.headers.get("origin")
        version = connection.query_params.get("v", "")
        return cls(
            cross_site=bool(origin) and urlsplit(origin).netloc != connection.headers.get("host"),
            page_version=int(version) if version.isdigit() else None,
            viewer=connection.cookies.get(VIEWER_COOKIE, ""),
            seen=connection.query_params.get("away", ""),
            reopened=connection.query_params.get("back") == "1",
        )


async def _tell_what_was_missed(
    service: ServiceDep, code: str, tab: Tab, seat: int | None, locale: str, opening: _Opening
) -> None:
    """Send a tab the "while you were away" note when it names the log lines it saw last
    (``?away=``): a line that was closed a while (the room moved past the page's version), or a page
    opened again (``&back=1``: the lines this browser showed when it last had the room open)."""
    seen, reopened = opening.seen, opening.reopened
    if not seen.isdigit() or (tab.page_version is None and not reopened):
        return
    snapshot = await run_in_threadpool(service.load, code)
    moved_on = reopened or (tab.page_version is not None and snapshot.version > tab.page_version)
    if moved_on and snapshot.status != "waiting":
        note = await run_in_threadpool(away_note, snapshot, seat, locale, int(seen))
        if note:
            tab.push(note)


@router.websocket("/ws/rooms/{code}")
async def room_socket(
    socket: WebSocket, code: str, service: ServiceDep, live: LiveDep, locale: LocaleDep, token: SeatTokenDep
) -> None:
    opening = _Opening.of(socket.scope)
    if opening.cross_site:
        await socket.close(code=4403)  # another site's page must not open a seat's live view
        return
    try:
        # Not SeatDep: an unknown room closes the socket here, after the origin check. A spectator
        # of a room with open tabs needs no lookup (a crowd of them must not queue other rooms' moves).
        seat = (
            None
            if token is None and live.is_open(code)
            else await run_in_threadpool(service.seats.seat_for_token, code, token)
        )
    except RoomError:
        await socket.close(code=4404)
        return
    live.joining += 1  # until its tab has its page (tests' idle() waits: a connect returns at the accept)
    try:
        await socket.accept()
    except (OSError, RuntimeError):  # the client left while its seat was looked up
        live.joining -= 1
        return
    tab = Tab(
        socket=socket,
        seat=seat,
        locale=locale,
        page_version=opening.page_version,
        viewer=chat_author_of(None, opening.viewer) if seat is None and opening.viewer else "",
    )
    sender = asyncio.create_task(tab.send_pushes())
    try:
        try:
            await live.join(code, tab)
            await _tell_what_was_missed(service, code, tab, seat, locale, opening)
        finally:
            live.joining -= 1
        # The page sends its moves here while the line is open (``moves.py``); the line stays open
        # until the client leaves. It reads with receive(), not receive_text(): once the sender's
        # push has failed on a reset socket, the socket counts as closed for sending and
        # receive_text() would raise.
        limits, max_bytes = socket.app.state.limits, socket.app.state.settings.max_body_bytes
        while (message := await socket.receive())["type"] != "websocket.disconnect":
            if message.get("text"):
                await move_from_socket(message["text"], tab, code, token, service, live, limits, max_bytes)
    except (WebSocketDisconnect, OSError, RuntimeError):
        pass  # a reset or a closed socket: it is gone either way, and that is no error
    finally:
        await live.leave(code, tab)
        sender.cancel()
