"""The JSON API for bots, tests and other clients (documented at /docs)."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.games.base import N_, visible_events
from app.games.registry import ENGINES
from app.i18n import format_event, format_message
from app.rooms import Forbidden, RoomError, RoomSnapshot
from app.web.deps import chat_author_of, chosen_clock, get_app_settings, get_live, get_service, resume_url
from app.web.limits import client_key

DESCRIPTION = """
Bourse's JSON API. Authenticate as a seat with `Authorization: Bearer <seat token>` (the token
returned when creating or joining a room). Without a token you get the spectator view.

Errors are `{"detail": "<human message>"}` with 400 (malformed), 403 (not your seat / not your turn /
host only), 404 (unknown room), 409 (stale version, duplicate submit or wrong room status: fetch the
room again), 413 (a body over the limit, 64 KB by default), 422 (malformed JSON, or an illegal move: the engine's message
says why), 429 (too many requests from your address: wait `Retry-After` seconds) or 503 (the server
cannot save right now). A refused action changes nothing. An action keeps only the parameters its
legal template names.

### Acting
`POST /api/rooms/{code}/actions` with `{"version": <room version you saw>, "action": {...}}`. An action
is `{"type": "<type>", "<param>": <value>, ...}`. Integers may be of any size (JSON numbers are read
exactly) and may also be sent as digit strings.

### The game log
`view` holds everything your seat may see but the game log, which grows with the game: read it at
`GET /api/rooms/{code}/log`.

### Clocks, away seats and chat
A room created with `clock` (seconds per decision: 0 for none, or one of the server's presets) gives
each seat the game waits for a `deadline` (epoch milliseconds); when it passes, that seat's bot makes
the one decision and the log says so. A seat whose player has had no page open for the grace period
is `away`: only then may the host hand it to a bot (`POST .../bots` with its `seat`), and two timeouts
in a row while away hand it over; its player takes it back with `POST .../takeback` at any time.
Chat: `GET`/`POST /api/rooms/{code}/chat` (`text`, or a quick `reaction`), `POST .../chat/mute`
(the host; `message`: an id).

### The `legal` list
`legal` holds the action templates your seat may submit now. Each is
`{"type": "...", "label": "...", "params": {"<name>": <domain>, ...}, "constraint": "..."?}`;
pick a template, then a value from each param's domain:

* `{"kind": "int", "min": m, "max": M or null, "exclude": [..]}` — an integer in [m, M] (no upper
  bound when `max` is null), not in `exclude`;
* `{"kind": "choice", "options": [..]}` — one of the options (any JSON value);
* `{"kind": "counts", "max": {"red": 3, ...}, "min_total": k}` — an object of counts per key, each
  between 0 and its max, adding up to at least k.

Every value in the domains is legal unless the template has a `constraint` (a human description of a
rule spanning params, e.g. "must beat the current offer"): then a random pick may be refused with 422,
and a generic client simply picks again. `to_act` lists the seats the game is waiting for; a seat not
in it may still have legal actions (out-of-turn moves).
"""


class Problem(BaseModel):
    """Every error the API answers: a sentence a person can read (in English)."""

    detail: str


class StaleProblem(Problem):
    """A 409 to an action also carries the room as it is now, to look at and retry."""

    room: dict[str, Any] | None = None


WHY = {
    400: "Malformed: a name, a game, a player count or a parameter the server cannot use",
    403: "Not your seat, not your turn, or only the host may do that",
    404: "There is no room with this code",
    409: "The room changed (a stale version or a double submit) or is in the wrong state for this",
    413: "The request body is larger than the server takes (64 KB unless configured)",
    422: "Malformed JSON or parameters, or (for an action) a move the rules do not allow",
    429: "Too many requests from your address: wait the Retry-After seconds",
    503: "The server cannot save right now (its database refused): try again later",
}


def errors(*codes: int, stale: bool = False) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses, each ``{"detail": str}``."""
    return {
        code: {"model": StaleProblem if stale and code == 409 else Problem, "description": WHY[code]}
        for code in codes
    }


# Every request may be refused for its size or, on a database error, with 503; routes that write
# may also be rate limited (429). Declaring 422 replaces FastAPI's own (its detail is a list; ours
# is a string, see app.web.app.validation_error).
READ = errors(403, 404, 413, 422, 503)
WRITE = (413, 422, 429, 503)

router = APIRouter(prefix="/api", tags=["api"])


# Bodies are read as their schema says: a number where a number is due (not "3" or true), so what
# the OpenAPI document promises to refuse is refused (422).
STRICT = ConfigDict(strict=True)


class CreateRoomBody(BaseModel):
    model_config = STRICT

    game: str = Field(description="Game id, see GET /api/games")
    players: int
    options: dict[str, bool] = Field(default_factory=dict)
    name: str = Field(description="Your display name (1-24 characters)")
    clock: int = Field(
        0,
        description="Seconds each decision may take, then a bot makes it: 0 (no clock, the default) "
        "or one of the server's presets (by default 30, 120, 600 and 86400).",
    )


class JoinBody(BaseModel):
    model_config = STRICT

    name: str


class BotsBody(BaseModel):
    model_config = STRICT

    strength: Literal["easy", "normal"] = Field(
        "normal", description="Before the start: how well the new bot(s) play."
    )

    seat: int | None = Field(
        None,
        description="Before the start: the next free seat gets a bot. "
        "During play: hand this player's seat to a bot.",
    )
    fill: bool = Field(False, description="Fill every free seat with a bot.")


class ChatBody(BaseModel):
    model_config = STRICT

    text: str | None = Field(None, description="A message (at most 280 characters)")
    reaction: str | None = Field(None, description="Or a quick reaction: 👍 👏 😄 😮 🤝 ⏳")
    name: str | None = Field(None, description="A spectator's name (players write under their seat's)")


class MuteBody(BaseModel):
    model_config = STRICT

    message: int = Field(description="The id of a message whose writer the host mutes")


class ActionBody(BaseModel):
    model_config = STRICT

    version: int
    action: dict[str, Any]


async def _seat(request: Request, code: str) -> int | None:
    header = request.headers.get("authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else None
    seat = await run_in_threadpool(get_service(request).seats.seat_for_token, code, token)
    if token and seat is None:
        raise Forbidden(N_("This token is not a seat of this room."))
    return seat


def _refusal(refused: RoomError) -> JSONResponse:
    return JSONResponse(
        {"detail": format_message("en", refused.message, refused.params, str)}, status_code=refused.status
    )


def _without_log(view: dict[str, Any]) -> dict[str, Any]:
    view.pop("events", None)  # at /api/rooms/{code}/log
    return view


def room_json(
    snapshot: RoomSnapshot,
    seat: int | None,
    connected: AbstractSet[int],
    away: AbstractSet[int] = frozenset(),
) -> dict[str, Any]:
    """A room as one seat (or a spectator) may know it. ``deadline`` (epoch milliseconds) is when a
    seat's clock runs out on the decision the game waits for; ``away`` marks a seat whose player has
    been gone longer than the grace period (only then may the host hand it to a bot)."""
    core = snapshot.core  # the state without its game log: reading the log grows with the game
    engine = snapshot.engine
    result = snapshot.result
    return {
        "code": snapshot.code,
        "game": snapshot.game,
        "status": snapshot.status,
        "version": snapshot.version,
        "players": snapshot.players,
        "you": seat,
        "clock": snapshot.clock,
        "seats": [
            {
                "seat": s.seat,
                "name": s.name,
                "is_bot": s.is_bot,
                "bot_strength": snapshot.bot_strengths.get(s.seat),
                "bot_controlled": s.bot_controlled,
                "host": s.is_host,
                "connected": s.is_bot or s.seat in connected,
                "away": s.seat in away,
                "deadline": s.deadline,
                "bot_turns": s.bot_turns,
            }
            for s in snapshot.seats
        ],
        "to_act": snapshot.to_act(),
        "view": _without_log(engine.view(core, seat)) if core is not None else None,
        "legal": snapshot.legal(seat),
        "result": result.to_json() if result is not None else None,
        "next_code": snapshot.next_code,
    }


async def _answer(request: Request, code: str, seat: int | None) -> dict[str, Any]:
    snapshot = await run_in_threadpool(get_service(request).load, code)
    live = get_live(request)
    return room_json(snapshot, seat, live.connected(code), live.away(code, snapshot))


@router.get("/games", responses=errors(413))
def games() -> list[dict[str, Any]]:
    return [
        {
            "id": info.id,
            "name": {"en": info.name_en, "zh_Hant": info.name_zh_hant, "zh_Hans": info.name_zh_hans},
            "players": {"min": info.min_players, "max": info.max_players},
            "minutes": info.minutes,
            "blurb": info.blurb,
            "options": [{"key": o.key, "label": o.label, "default": o.default} for o in info.options],
        }
        for info in (engine.info for engine in ENGINES.values())
    ]


@router.post("/rooms", status_code=201, responses=errors(400, *WRITE))
async def create_room(request: Request, body: CreateRoomBody) -> Any:
    try:
        code, seat, token = await run_in_threadpool(
            get_service(request).seats.create_room,
            body.game,
            body.players,
            body.options,
            body.name,
            chosen_clock(get_app_settings(request), body.clock),
        )
    except RoomError as refused:
        return _refusal(refused)
    base = str(request.base_url).rstrip("/")
    resume = resume_url(base, code, token) if token else None
    return {"code": code, "url": f"{base}/r/{code}", "seat": seat, "token": token, "resume_url": resume}


@router.get("/rooms/{code}", responses=READ)
async def get_room(request: Request, code: str) -> Any:
    try:
        return await _answer(request, code, await _seat(request, code))
    except RoomError as refused:
        return _refusal(refused)


@router.post("/rooms/{code}/join", status_code=201, responses=errors(400, 404, 409, *WRITE))
async def join(request: Request, code: str, body: JoinBody) -> Any:
    try:
        seat, token = await run_in_threadpool(get_service(request).seats.join, code, body.name)
    except RoomError as refused:
        return _refusal(refused)
    await get_live(request).after_change(code)
    base = str(request.base_url).rstrip("/")
    return {"seat": seat, "token": token, "resume_url": resume_url(base, code, token)}


@router.post("/rooms/{code}/bots", responses=errors(400, 403, 404, 409, *WRITE))
async def bots(request: Request, code: str, body: BotsBody) -> Any:
    service = get_service(request)
    try:
        seat = await _seat(request, code)
        snapshot = await run_in_threadpool(service.load, code)
        if snapshot.status == "waiting":
            if body.seat is not None and not body.fill and body.seat != len(snapshot.seats):
                raise RoomError(N_("Bots join at the next free seat ({seat})."), seat=len(snapshot.seats))
            await run_in_threadpool(service.seats.add_bot, code, seat, body.fill, body.strength)
        else:
            away = get_live(request).away(code, snapshot)
            await run_in_threadpool(service.seats.set_bot_control, code, seat, body.seat, True, away)
        await get_live(request).after_change(code)
        return await _answer(request, code, seat)
    except RoomError as refused:
        return _refusal(refused)


@router.post("/rooms/{code}/takeback", responses=errors(400, 403, 404, 409, *WRITE))
async def take_back(request: Request, code: str) -> Any:
    """Take your seat back from the bot the host handed it to."""
    try:
        seat = await _seat(request, code)
        await run_in_threadpool(get_service(request).seats.set_bot_control, code, seat, seat, False)
        await get_live(request).after_change(code)
        return await _answer(request, code, seat)
    except RoomError as refused:
        return _refusal(refused)


@router.delete("/rooms/{code}/seats/{target}", responses=errors(400, 403, 404, 409, *WRITE))
async def remove_seat(request: Request, code: str, target: int) -> Any:
    """The host removes a waiting player (before the start)."""
    try:
        seat = await _seat(request, code)
        await run_in_threadpool(get_service(request).seats.remove_seat, code, seat, target)
        await get_live(request).after_change(code)
        return await _answer(request, code, seat)
    except RoomError as refused:
        return _refusal(refused)


@router.post("/rooms/{code}/start", responses=errors(403, 404, 409, *WRITE))
async def start(request: Request, code: str) -> Any:
    try:
        seat = await _seat(request, code)
        await run_in_threadpool(get_service(request).seats.start, code, seat)
        await get_live(request).after_change(code)
        return await _answer(request, code, seat)
    except RoomError as refused:
        return _refusal(refused)


@router.post("/rooms/{code}/again", status_code=201, responses=errors(403, 404, 409, *WRITE))
async def play_again(request: Request, code: str) -> Any:
    """The host sets up a new room with the same game, options and bots; others may join it."""
    try:
        seat = await _seat(request, code)
        new_code, token = await run_in_threadpool(get_service(request).records.play_again, code, seat)
        await get_live(request).after_change(code)
    except RoomError as refused:
        return _refusal(refused)
    url = str(request.base_url).rstrip("/") + f"/r/{new_code}"
    return {"code": new_code, "url": url, "seat": 0, "token": token}


@router.post("/rooms/{code}/actions", responses=errors(400, 403, 404, 409, *WRITE, stale=True))
async def act(request: Request, code: str, body: ActionBody) -> Any:
    service = get_service(request)
    try:
        seat = await _seat(request, code)
        snapshot = await run_in_threadpool(service.turns.act, code, seat, body.version, body.action)
    except RoomError as refused:
        if refused.status == 409:
            try:
                fresh = await _answer(request, code, await _seat(request, code))
            except RoomError:
                return _refusal(refused)
            return JSONResponse(
                {"detail": format_message("en", refused.message, refused.params, str), "room": fresh},
                status_code=409,
            )
        return _refusal(refused)
    live = get_live(request)
    await live.after_change(code, snapshot)
    return room_json(snapshot, seat, live.connected(code), live.away(code, snapshot))


@router.get("/rooms/{code}/log", responses=READ)
async def game_log(request: Request, code: str) -> Any:
    """The game log as this seat may read it (the spectator's without a token)."""
    try:
        seat = await _seat(request, code)
        snapshot = await run_in_threadpool(get_service(request).load, code)
    except RoomError as refused:
        return _refusal(refused)
    events = visible_events(snapshot.state, seat) if snapshot.state is not None else []
    return {
        "events": [
            {
                "text": format_event("en", event, snapshot.name_of),
                "message": event["text"],
                **({"plural": event["plural"]} if "plural" in event else {}),
                "params": event["params"],
            }
            for event in events
        ]
    }


@router.get("/rooms/{code}/chat", responses=READ)
async def chat_messages(request: Request, code: str) -> Any:
    """The table chat's newest messages, oldest first (spectators' marked ``spectator``)."""
    try:
        lines = await run_in_threadpool(get_service(request).chat.lines, code)
    except RoomError as refused:
        return _refusal(refused)
    return {"messages": [line.to_json() for line in lines]}


@router.post("/rooms/{code}/chat", status_code=201, responses=errors(400, 403, 404, *WRITE))
async def post_chat(request: Request, code: str, body: ChatBody) -> Any:
    """Say something at the table, or send a quick reaction. Without a seat token you write as a
    spectator (known by your address, for the host's mute). Pushed live to the room's pages."""
    service = get_service(request)
    try:
        seat = await _seat(request, code)
        header = request.headers.get("authorization", "")
        token = header[7:].strip() if seat is not None else None
        snapshot = await run_in_threadpool(service.load, code)
        reaction = body.reaction is not None
        line = await run_in_threadpool(
            service.chat.post,
            code,
            seat,
            chat_author_of(token, "address:" + client_key(request.scope)),
            body.reaction if reaction else body.text,
            body.name,
            reaction,
        )
    except RoomError as refused:
        return _refusal(refused)
    await get_live(request).share_chat(code, snapshot.game, line)
    return line.to_json()


@router.post("/rooms/{code}/chat/mute", responses=errors(400, 403, 404, *WRITE))
async def mute(request: Request, code: str, body: MuteBody) -> Any:
    """The host mutes the writer of a message: they can no longer write at this table."""
    try:
        seat = await _seat(request, code)
        await run_in_threadpool(get_service(request).chat.mute, code, seat, body.message)
    except RoomError as refused:
        return _refusal(refused)
    return {"muted": body.message}
