"""Learning at the table, on the web: practice rooms, the search's hints (the JSON API and the room
page's "Hint" button) and the review after the game (``app.learn``). The coach's panel is a region
of the room page (platform/coach.html), pushed to each seat's own tabs like the table's others.

Every answer here is one seat's, from that seat's view: a spectator, another seat or a table that
does not allow hints gets nothing (403), and a seat that has no decision now gets 409 (a review: a
game not over yet). Hints and reviews are thought in the niced workers of ``app.learn.workers``; a
hint and a review queued count against the caller's "act" rate limit, as a move does. A hint's and
a review's answers go to the asking tab only, never over the room's socket.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app.games.base import N_, NP_, view_without_log
from app.games.registry import ENGINES, package_of
from app.i18n import format_message
from app.learn.coaching import option_message
from app.learn.hints import Weighed, hint_seed
from app.learn.review import Reviewer, ReviewState
from app.learn.workers import LearnWorkers
from app.rooms import Conflict, Forbidden, RoomError, RoomService, RoomSnapshot
from app.web.answers import page
from app.web.api import errors
from app.web.deps import ApiRoom, PageRoom, RoomRequest, get_locale
from app.web.limits import Limits

router = APIRouter()

PRACTICE_PLAYERS = 4  # you and three normal bots (clamped to the game's player counts)
PRACTICE_NAME = N_("Learner")
NO_HINTS = N_("This table does not allow hints.")
ONLY_SEATS = N_("Only a player at this table can ask for a hint.")
NOT_YOUR_DECISION = N_("A hint is for your own decision, and there is none now.")
WIN_SHARE = N_("{option}: you win about {tenths} in 10 of these games")
PLAYOUTS = NP_("(from {count} playout)", "(from {count} playouts)")
# Fewer playouts than this and a share is noise ("10 in 10" from one playout read as a certainty to the
# newcomer trial): the hint gives the count it rests on and says so.
FEW_PLAYOUTS = 10
TOO_FEW = NP_(
    "{option}: won {won} of its {count} playout, too few to tell",
    "{option}: won {won} of its {count} playouts, too few to tell",
)
ONLY_OPTION = N_("{option}: your only option")
NOT_WEIGHED = N_("{option}: the bots' usual move here (the search had no time to play it out)")


def open_practice_room(service: RoomService, game: str, locale: str) -> tuple[str, str]:
    """A practice room: the learner at seat 0 against normal bots, hints allowed, started at once.
    Returns its code and the learner's seat token."""
    engine = ENGINES.get(game)
    if engine is None:
        raise RoomError(N_("Unknown game."))
    info = engine.info
    players = max(info.min_players, min(PRACTICE_PLAYERS, info.max_players))
    name = format_message(locale, PRACTICE_NAME, {}, str)
    code, seat, token = service.seats.create_room(game, players, {}, name, 0, False, True)
    assert token is not None
    service.seats.add_bot(code, seat, True, "normal")
    service.seats.start(code, seat)
    return code, token


def learn_workers(request: Request) -> LearnWorkers:
    return cast(LearnWorkers, request.app.state.learn)


# ------------------------------------------------------------ hints
class HintOption(BaseModel):
    action: dict[str, Any] = Field(description="The action, as `POST .../actions` takes it")
    label: str = Field(description="The action in the caller's language (`?lang=`, else Accept-Language)")
    text: str = Field(description='What the search measured, in words: "Bid 12: you win about 4 in 10 …"')
    won: float | None = Field(
        description="The share of the playouts after this option that you won (0 to 1); "
        "null for your only option, which is not weighed, and for the bots' usual move when no "
        "playout ended within the hint's time (then `playouts` is 0)"
    )
    playouts: int = Field(description="How many playouts, each to the game's end, the share rests on")


class Hint(BaseModel):
    options: list[HintOption] = Field(description="Your best few options, best first")


async def _weighed(request: Request, room: RoomRequest) -> tuple[RoomSnapshot, int, list[Weighed]]:
    """The seat's weighed options now, or the refusal: no hints here (403), no seat (403), no
    decision of the seat's (409), too many requests (429), the coach busy (503)."""
    seat = room.seat
    snapshot = await run_in_threadpool(room.service.load, room.code)
    if not snapshot.hints:
        raise Forbidden(NO_HINTS)
    if seat is None:
        raise Forbidden(ONLY_SEATS)
    legal = snapshot.legal(seat)
    if snapshot.core is None or seat not in snapshot.to_act() or not legal:
        raise Conflict(NOT_YOUR_DECISION)
    refusal = await cast(Limits, request.app.state.limits).move_refusal(request.scope)
    if refusal is not None:
        raise refusal
    view = view_without_log(snapshot.engine, snapshot.core, seat)
    key = (snapshot.code, snapshot.version, seat)
    seed = hint_seed(*key)
    options = await run_in_threadpool(
        learn_workers(request).hint, key, snapshot.game, view, seat, legal, seed
    )
    return snapshot, seat, options


def said_options(
    snapshot: RoomSnapshot, seat: int, options: list[Weighed], locale: str
) -> list[dict[str, Any]]:
    """Each weighed option with its label and what it measured, in ``locale``."""
    assert snapshot.core is not None
    view = view_without_log(snapshot.engine, snapshot.core, seat)
    legal = snapshot.legal(seat)
    package = package_of(snapshot.game)
    said = []
    for option in options:
        text, params = option_message(snapshot.game, option.action, view, seat, legal)
        label = format_message(locale, text, params, snapshot.name_of, package)
        if option.won is None:
            unweighed = ONLY_OPTION if option.only else NOT_WEIGHED
            words = format_message(locale, unweighed, {"option": label}, str)
        elif option.playouts < FEW_PLAYOUTS:
            words = format_message(
                locale,
                TOO_FEW[0],
                {"option": label, "won": round(option.won * option.playouts), "count": option.playouts},
                str,
                plural=TOO_FEW[1],
            )
        else:
            share = format_message(
                locale, WIN_SHARE, {"option": label, "tenths": round(10 * option.won)}, str
            )
            playouts = format_message(
                locale, PLAYOUTS[0], {"count": option.playouts}, str, plural=PLAYOUTS[1]
            )
            words = f"{share} {playouts}"
        said.append(
            {
                "action": option.action,
                "label": label,
                "text": words,
                "won": option.won,
                "playouts": option.playouts,
            }
        )
    return said


@router.get(
    "/api/rooms/{code}/hint",
    tags=["api"],
    response_model=Hint,
    responses=errors(403, 404, 409, 413, 422, 429, 503),
)
async def api_hint(request: Request, room: ApiRoom) -> dict[str, Any]:
    """Your best few options at your decision, weighed by the search from your seat's view alone
    (playouts from worlds drawn from what you can see), where the table allows hints (`hints` in
    the room). 403 where it does not or without a seat token; 409 when the game is not waiting for
    your decision; 429 past the moves' rate limit; 503 while the coach is busy with other tables."""
    snapshot, seat, options = await _weighed(request, room)
    return {"options": said_options(snapshot, seat, options, get_locale(request))}


@router.get("/r/{code}/hint", include_in_schema=False)
async def page_hint(request: Request, room: PageRoom) -> Response:
    """The room page's "Hint" button: the same options, drawn for the coach panel."""
    snapshot, seat, options = await _weighed(request, room)
    response = page(
        request,
        room.locale,
        "platform/hint.html",
        game_id=snapshot.game,
        options=said_options(snapshot, seat, options, room.locale),
    )
    response.headers["Cache-Control"] = "no-store"
    return response


# ------------------------------------------------------------ reviews
NOT_OVER = N_("A game is reviewed once it is over.")
ONLY_SEATS_REVIEW = N_("Only a player of this game can have it reviewed.")
MARK_TEXT = N_(
    "Move {move}: you played {played} (you win about {played_tenths} in 10 of these games); "
    "{better} was clearly better (about {better_tenths} in 10)."
)
MARK_KINDS = {"inaccuracy": N_("Inaccuracy:"), "mistake": N_("Mistake:")}


class ReviewMark(BaseModel):
    move: int = Field(
        description="The move's number in the game (1: the first). The replay shows the position it was "
        "made from at `/r/{code}/replay?before={move}` (and the position after it at `?step={move}`)"
    )
    kind: Literal["inaccuracy", "mistake"]
    played: dict[str, Any] = Field(description="Your move")
    better: dict[str, Any] = Field(description="The option the search found clearly better")
    played_won: float = Field(description="The share of playouts after your move that you won")
    better_won: float = Field(description="The share of playouts after the better option that you won")
    playouts: int = Field(description="Playouts, each to the game's end, behind each share")
    text: str = Field(description="The mark in words, in the caller's language")


class ReviewAnswer(BaseModel):
    status: Literal["none", "queued", "done"] = Field(description="none: not asked for yet")
    decisions: int = Field(description="Your decisions that had a choice")
    reviewed: int = Field(description="How many of them the search has weighed so far")
    marks: list[ReviewMark] = Field(
        description="Where another option was clearly better, in the game's order"
    )


def reviewer(request: Request) -> Reviewer:
    return cast(Reviewer, request.app.state.reviewer)


async def _reviewable(room: RoomRequest) -> tuple[RoomSnapshot, int]:
    seat = room.seat
    snapshot = await run_in_threadpool(room.service.load, room.code)
    if not snapshot.hints:
        raise Forbidden(NO_HINTS)
    if seat is None or snapshot.seat(seat) is None:
        raise Forbidden(ONLY_SEATS_REVIEW)
    if snapshot.status != "finished":
        raise Conflict(NOT_OVER)
    return snapshot, seat


def review_json(state: ReviewState, snapshot: RoomSnapshot, locale: str) -> dict[str, Any]:
    package = package_of(snapshot.game)
    marks = []
    for mark in state.marks:
        played = format_message(
            locale, mark["played_said"][0], mark["played_said"][1], snapshot.name_of, package
        )
        better = format_message(
            locale, mark["better_said"][0], mark["better_said"][1], snapshot.name_of, package
        )
        params = {
            "move": mark["move"],
            "played": played,
            "better": better,
            "played_tenths": round(10 * mark["played_won"]),
            "better_tenths": round(10 * mark["better_won"]),
        }
        marks.append(
            {
                "move": mark["move"],
                "kind": mark["kind"],
                "played": mark["played"],
                "better": mark["better"],
                "played_won": mark["played_won"],
                "better_won": mark["better_won"],
                "playouts": mark["playouts"],
                "text": format_message(locale, MARK_TEXT, params, str),
            }
        )
    return {"status": state.status, "decisions": state.decisions, "reviewed": state.reviewed, "marks": marks}


@router.get(
    "/api/rooms/{code}/review",
    tags=["api"],
    response_model=ReviewAnswer,
    responses=errors(403, 404, 409, 413, 422, 503),
)
async def api_review(request: Request, room: ApiRoom) -> dict[str, Any]:
    """The review of your decisions in this finished game, where the table allowed hints: each
    decision weighed by the search from your seat's view then, marked where another option was
    clearly better. `status` says whether it was asked for (`POST`), is under way or done."""
    snapshot, seat = await _reviewable(room)
    state = await run_in_threadpool(reviewer(request).state, snapshot, seat)
    return review_json(state, snapshot, get_locale(request))


@router.post(
    "/api/rooms/{code}/review",
    tags=["api"],
    status_code=202,
    response_model=ReviewAnswer,
    responses=errors(403, 404, 409, 413, 422, 429, 503),
)
async def api_ask_review(request: Request, room: ApiRoom) -> dict[str, Any]:
    """Have the search review your decisions in this finished game (queued: one game at a time per
    server process; read it with `GET`). Asked again, the same review is answered."""
    snapshot, seat = await _reviewable(room)
    state = await run_in_threadpool(reviewer(request).ask, snapshot, seat)
    return review_json(state, snapshot, get_locale(request))


async def _review_panel(request: Request, room: PageRoom, ask: bool) -> Response:
    snapshot = await run_in_threadpool(room.service.load, room.code)
    seat = room.seat
    state: ReviewState | None = None
    if snapshot.hints and seat is not None and snapshot.status == "finished":
        work = reviewer(request)
        state = await run_in_threadpool(work.ask if ask else work.state, snapshot, seat)
    response = page(
        request,
        room.locale,
        "platform/review.html",
        game_id=snapshot.game,
        code=snapshot.code,
        seat=seat,
        review=None if state is None else review_json(state, snapshot, room.locale),
        kinds=MARK_KINDS,
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/r/{code}/review", include_in_schema=False)
async def review_panel(request: Request, room: PageRoom) -> Response:
    """The end screen's and the replay's review panel, for this browser's seat (empty otherwise)."""
    return await _review_panel(request, room, ask=False)


@router.post("/r/{code}/review", include_in_schema=False)
async def ask_review(request: Request, room: PageRoom) -> Response:
    """ "Review my game": queued, and the panel shows how far it is."""
    return await _review_panel(request, room, ask=True)
