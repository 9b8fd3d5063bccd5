"""The JSON API for bots, tests and other clients (documented at /docs)."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.games.base import N_, visible_events
from app.games.registry import ENGINES
from app.i18n import format_event, format_message
from app.rooms import RoomError, RoomSnapshot
from app.web.deps import (
    ApiRoom,
    RoomRequest,
    ServiceDep,
    SettingsDep,
    chat_author_of,
    chosen_clock,
    resume_url,
)
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
The host may pause the clock (`POST .../clock` with `{"paused": true}`) and resume it (`false`):
while `clock_paused_at` (epoch ms) is set no clock runs out, and resuming moves every `deadline` on
by the pause's length; the chat says so with a `notice` (its `text` the notice's key).
Chat: `GET`/`POST /api/rooms/{code}/chat` (`text`, or a quick `reaction`), `POST .../chat/mute`
(the host; `message`: an id).

### Hints, the coach and reviews
A room created with `"hints": true` (a practice room always has it) allows each seat to ask the
search for its best few options at its decision: `GET /api/rooms/{code}/hint` (403 where the table
allows none, 409 when it is not your decision; labels in `?lang=`'s language). Once the game is
over, `POST /api/rooms/{code}/review` queues the review of your decisions and `GET` reads it: each
weighed from what your seat saw then, marked where another option was clearly better.

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
    full_record: bool = Field(
        False,
        description="The table agrees that once the game is over anyone may download its full record, "
        "every secret included (otherwise each reader's record holds what that reader saw)",
    )
    hints: bool = Field(
        False,
        description="The table allows the coach and hints from the search "
        "(`GET /api/rooms/{code}/hint`) and reviews after the game, for every seat",
    )


class JoinBody(BaseModel):
    model_config = STRICT

    name: str


class BotsBody(BaseModel):
    model_config = STRICT

    strength: Literal["easy", "normal", "strong"] = Field(
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


class ClockBody(BaseModel):
    model_config = STRICT

    paused: bool = Field(description="true: pause the table's clock; false: resume it")


class ActionBody(BaseModel):
    model_config = STRICT

    version: int
    action: dict[str, Any]


# ------------------------------------------------------------ what the API answers
# The routes build plain dicts; these models are what /docs and /openapi.json show of them (and what
# FastAPI checks them against). Their fields are in the order the answers have always had.


class GameNames(BaseModel):
    en: str
    zh_Hant: str
    zh_Hans: str


class PlayerRange(BaseModel):
    min: int
    max: int


class GameOptionInfo(BaseModel):
    key: str = Field(description="The key to set in a new room's `options`")
    label: str
    default: bool


class GameInfo(BaseModel):
    id: str
    name: GameNames
    players: PlayerRange
    minutes: str = Field(description='How long a game takes, e.g. "45-60"')
    blurb: str
    options: list[GameOptionInfo]


class CreatedRoom(BaseModel):
    code: str
    url: str
    seat: int | None = Field(description="Your seat (0, the host's), or null without a name")
    token: str | None = Field(description="Your seat token: `Authorization: Bearer <token>`")
    resume_url: str | None = Field(description="Your seat's personal link for a browser")


class JoinedRoom(BaseModel):
    seat: int
    token: str
    resume_url: str


class NewRoom(BaseModel):
    """The room set up to play again: the host holds seat 0 there."""

    code: str
    url: str
    seat: int
    token: str | None


class SeatState(BaseModel):
    seat: int
    name: str
    is_bot: bool
    bot_strength: str | None = Field(description="A bot's: easy, normal or strong")
    bot_controlled: bool = Field(description="A person's seat a bot plays for now")
    host: bool
    connected: bool
    away: bool = Field(description="Gone longer than the grace period: the host may hand it to a bot")
    deadline: int | None = Field(description="When this seat's decision times out (epoch ms)")
    bot_turns: int = Field(description="Decisions a bot made for this person")


class GameResult(BaseModel):
    winners: list[int]
    scores: list[int | None]


class Room(BaseModel):
    """A room as one seat (or a spectator) may know it."""

    code: str
    game: str
    status: Literal["waiting", "playing", "finished"]
    version: int
    players: int
    you: int | None = Field(description="Your seat, null for a spectator")
    clock: int = Field(description="Seconds per decision, 0 for none")
    clock_paused_at: int | None = Field(
        description="When the host paused the clock (epoch ms); null while it runs"
    )
    full_record: bool = Field(description="The table agreed: the finished game's record holds every secret")
    imported: bool = Field(description="Made from an uploaded record: its names and moves are the record's")
    hints: bool = Field(description="The table allows hints, the coach and reviews")
    seats: list[SeatState]
    to_act: list[int] = Field(description="The seats the game waits for")
    view: dict[str, Any] | None = Field(
        description="The game as your seat sees it, without its log; each game's own shape. Null before the start"
    )
    legal: list[dict[str, Any]] = Field(
        description="The action templates your seat may submit now (see above)"
    )
    result: GameResult | None
    next_code: str | None = Field(description="The room the host set up to play again")


class LogEvent(BaseModel):
    text: str = Field(description="The event in English")
    message: str = Field(description="Its message before translation, placeholders unfilled")
    plural: str | None = Field(None, description="A message that counts: its plural form (only then present)")
    params: dict[str, Any]


class GameLog(BaseModel):
    events: list[LogEvent]


class ChatMessage(BaseModel):
    id: int
    seat: int | None
    name: str = Field(description="Empty: an unnamed spectator")
    spectator: bool
    text: str
    reaction: bool
    notice: bool = Field(description="A platform notice (the clock paused or resumed): text is its key")


class ChatMessages(BaseModel):
    messages: list[ChatMessage]


class Muted(BaseModel):
    muted: int = Field(description="The id of the message whose writer is muted")
    removed: list[int] = Field(description="The ids of the muted writer's messages, now deleted")


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
        "clock_paused_at": snapshot.clock_paused_at,
        "full_record": snapshot.full_record,
        "imported": snapshot.imported,
        "hints": snapshot.hints,
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


def _room_now(room: RoomRequest, snapshot: RoomSnapshot, seat: int | None) -> dict[str, Any]:
    live = room.live
    return room_json(snapshot, seat, live.connected(room.code), live.away(room.code, snapshot))


async def _answer(room: RoomRequest, seat: int | None) -> dict[str, Any]:
    return _room_now(room, await run_in_threadpool(room.service.load, room.code), seat)


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


# RoomError refusals are answered by app.web.answers.room_refused: {"detail": ...} with their status.
@router.get("/games", response_model=list[GameInfo], responses=errors(413))
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


@router.post("/rooms", status_code=201, response_model=CreatedRoom, responses=errors(400, *WRITE))
async def create_room(
    request: Request, body: CreateRoomBody, service: ServiceDep, settings: SettingsDep
) -> dict[str, Any]:
    code, seat, token = await run_in_threadpool(
        service.seats.create_room,
        body.game,
        body.players,
        body.options,
        body.name,
        chosen_clock(settings, body.clock),
        body.full_record,
        body.hints,
    )
    base = _base(request)
    resume = resume_url(base, code, token) if token else None
    return {"code": code, "url": f"{base}/r/{code}", "seat": seat, "token": token, "resume_url": resume}


@router.get("/rooms/{code}", response_model=Room, responses=READ)
async def get_room(room: ApiRoom) -> Response:
    """Answered as JSON directly, not through ``response_model`` (which validated and serialised
    the whole view again, on every bot's and client's look; a test holds the answer to the model)."""
    seat = room.seat  # refused here for an unknown room or a token that is no seat of it
    assert room.snapshot is not None  # the room as the seat was found in it: no second read
    return JSONResponse(_room_now(room, room.snapshot, seat))


@router.post(
    "/rooms/{code}/join", status_code=201, response_model=JoinedRoom, responses=errors(400, 404, 409, *WRITE)
)
async def join(request: Request, room: ApiRoom, body: JoinBody) -> dict[str, Any]:
    seat, token = await run_in_threadpool(room.service.seats.join, room.code, body.name)
    await room.live.after_change(room.code)
    return {"seat": seat, "token": token, "resume_url": resume_url(_base(request), room.code, token)}


@router.post("/rooms/{code}/bots", response_model=Room, responses=errors(400, 403, 404, 409, *WRITE))
async def bots(room: ApiRoom, body: BotsBody) -> dict[str, Any]:
    seat, service, code = room.seat, room.service, room.code
    snapshot = await run_in_threadpool(service.load, code)
    if snapshot.status == "waiting":
        if body.seat is not None and not body.fill and body.seat != len(snapshot.seats):
            raise RoomError(N_("Bots join at the next free seat ({seat})."), seat=len(snapshot.seats))
        await run_in_threadpool(service.seats.add_bot, code, seat, body.fill, body.strength)
    else:
        away = room.live.away(code, snapshot)
        await run_in_threadpool(service.seats.set_bot_control, code, seat, body.seat, True, away)
    await room.live.after_change(code)
    return await _answer(room, seat)


@router.post("/rooms/{code}/takeback", response_model=Room, responses=errors(400, 403, 404, 409, *WRITE))
async def take_back(room: ApiRoom) -> dict[str, Any]:
    """Take your seat back from the bot the host handed it to."""
    seat = room.seat
    await run_in_threadpool(room.service.seats.set_bot_control, room.code, seat, seat, False)
    await room.live.after_change(room.code)
    return await _answer(room, seat)


@router.delete(
    "/rooms/{code}/seats/{target}", response_model=Room, responses=errors(400, 403, 404, 409, *WRITE)
)
async def remove_seat(room: ApiRoom, target: int) -> dict[str, Any]:
    """The host removes a waiting player (before the start)."""
    seat = room.seat
    await run_in_threadpool(room.service.seats.remove_seat, room.code, seat, target)
    await room.live.after_change(room.code)
    return await _answer(room, seat)


@router.post("/rooms/{code}/start", response_model=Room, responses=errors(403, 404, 409, *WRITE))
async def start(room: ApiRoom) -> dict[str, Any]:
    seat = room.seat
    await run_in_threadpool(room.service.seats.start, room.code, seat)
    await room.live.after_change(room.code)
    return await _answer(room, seat)


@router.post("/rooms/{code}/clock", response_model=Room, responses=errors(400, 403, 404, 409, *WRITE))
async def pause_clock(room: ApiRoom, body: ClockBody) -> dict[str, Any]:
    """The host pauses the table's turn clock, or resumes it; the chat says so."""
    seat, clocks = room.seat, room.service.clocks
    notice = await run_in_threadpool(clocks.pause if body.paused else clocks.resume, room.code, seat)
    snapshot = await run_in_threadpool(room.service.load, room.code)
    if notice is not None:
        await room.live.after_change(room.code, snapshot)
        await room.live.share_chat(room.code, snapshot.game, notice)
    return _room_now(room, snapshot, seat)


@router.post(
    "/rooms/{code}/again", status_code=201, response_model=NewRoom, responses=errors(403, 404, 409, *WRITE)
)
async def play_again(request: Request, room: ApiRoom) -> dict[str, Any]:
    """The host sets up a new room with the same game, options and bots; others may join it."""
    new_code, token = await run_in_threadpool(room.service.records.play_again, room.code, room.seat)
    await room.live.after_change(room.code)
    return {"code": new_code, "url": f"{_base(request)}/r/{new_code}", "seat": 0, "token": token}


@router.post(
    "/rooms/{code}/actions", response_model=Room, responses=errors(400, 403, 404, 409, *WRITE, stale=True)
)
async def act(room: ApiRoom, body: ActionBody) -> dict[str, Any] | JSONResponse:
    seat = room.seat
    try:
        snapshot = await run_in_threadpool(room.service.turns.act, room.code, seat, body.version, body.action)
    except RoomError as refused:
        if refused.status != 409:
            raise
        return await _stale(room, seat, refused)
    await room.live.after_change(room.code, snapshot)
    return _room_now(room, snapshot, seat)


async def _stale(room: RoomRequest, seat: int | None, refused: RoomError) -> JSONResponse:
    """A 409 to an action carries the room as it is now (``StaleProblem``), to look at and retry."""
    try:
        fresh = await _answer(room, seat)
    except RoomError:
        raise refused from None
    detail = format_message("en", refused.message, refused.params, str)
    return JSONResponse({"detail": detail, "room": fresh}, status_code=409)


@router.get("/rooms/{code}/log", response_model=GameLog, response_model_exclude_unset=True, responses=READ)
async def game_log(room: ApiRoom) -> dict[str, Any]:
    """The game log as this seat may read it (the spectator's without a token)."""
    seat = room.seat
    snapshot = await run_in_threadpool(room.service.load, room.code)
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


@router.get("/rooms/{code}/chat", response_model=ChatMessages, responses=READ)
async def chat_messages(room: ApiRoom) -> dict[str, Any]:
    """The table chat's newest messages, oldest first (spectators' marked ``spectator``)."""
    lines = await run_in_threadpool(room.service.chat.lines, room.code)
    return {"messages": [line.to_json() for line in lines]}


@router.post(
    "/rooms/{code}/chat", status_code=201, response_model=ChatMessage, responses=errors(400, 403, 404, *WRITE)
)
async def post_chat(request: Request, room: ApiRoom, body: ChatBody) -> dict[str, Any]:
    """Say something at the table, or send a quick reaction. Without a seat token you write as a
    spectator (known by your address, for the host's mute). Pushed live to the room's pages."""
    seat = room.seat
    snapshot = await run_in_threadpool(room.service.load, room.code)
    reaction = body.reaction is not None
    line = await run_in_threadpool(
        room.service.chat.post,
        room.code,
        seat,
        chat_author_of(room.token if seat is not None else None, "address:" + client_key(request.scope)),
        body.reaction if reaction else body.text,
        body.name,
        reaction,
        client_key(request.scope),
    )
    await room.live.share_chat(room.code, snapshot.game, line)
    return line.to_json()


@router.post("/rooms/{code}/chat/mute", response_model=Muted, responses=errors(400, 403, 404, *WRITE))
async def mute(room: ApiRoom, body: MuteBody) -> dict[str, Any]:
    """The host mutes the writer of a message: they can no longer write at this table (a seat by
    its token, and whoever writes without a seat from the message's address), and their earlier
    messages are deleted (``removed``: their ids), also from the room's open pages."""
    removed = await run_in_threadpool(room.service.chat.mute, room.code, room.seat, body.message)
    await room.live.chat.remove(room.code, removed)
    return {"muted": body.message, "removed": removed}
