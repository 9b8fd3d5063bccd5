"""My games (issue 23): every room this browser holds a seat in, rooms where it is your turn first.

A seat lives in a cookie per room (``deps.seat_cookie``, path ``/``), so the browser sends them all
here; nothing else is kept. Each room is read as its seat may know it: its status line comes from
the game's prompt template with that seat's view (the engine's redaction), the rest are public
facts of the table (names, whose turn, the seat's own clock). No token is ever shown, and a cookie
that is no seat of its room (a deleted room, a seat removed before the start) is dropped.

The page polls its list (``/my-games/list``) so whose turn it is and your clock stay current; a
cached copy opens offline (the service worker, ``static/js/service-worker.js``).
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from app.i18n import person_name
from app.rooms import RoomError, RoomService, RoomSnapshot, hash_token
from app.rooms.names import is_room_code
from app.web.answers import page
from app.web.deps import SEAT_COOKIE_PREFIX, LocaleDep, ServiceDep, seat_cookie
from app.web.render import environment, render_page, seat_context
from app.web.render.room import make_table

router = APIRouter(include_in_schema=False)

MY_GAMES_MAX = 60  # rooms one page lists (a browser keeps far fewer seat cookies than it could)
POLL_SECONDS = 30  # how often the open page asks for its list again


@dataclass(frozen=True)
class MyGame:
    """One room of this browser, as its seat may know it, and the card drawn for it."""

    code: str
    status: str  # waiting | playing | finished
    your_turn: bool
    deadline: int | None  # the seat's own clock, while it is to act
    card: Markup

    @property
    def order(self) -> tuple[int, int, str]:
        """Your turn first (the clock that runs out soonest first), then games waiting for others,
        then those not started, then finished ones."""
        rank = 0 if self.your_turn else {"playing": 1, "waiting": 2}.get(self.status, 3)
        return rank, self.deadline if self.deadline is not None else 2**62, self.code


def seats_held(cookies: dict[str, str]) -> list[tuple[str, str]]:
    """(room code, seat token) of every seat cookie the browser sent, at most ``MY_GAMES_MAX``. Only
    a name with a room code's shape is one (``seat_cookie``): any site of the same domain may plant a
    cookie of any name, which this page would otherwise read, and fail to delete."""
    held = [
        (code, token)
        for name, token in cookies.items()
        if name.startswith(SEAT_COOKIE_PREFIX) and is_room_code(code := name[len(SEAT_COOKIE_PREFIX) :])
    ]
    return sorted(held)[:MY_GAMES_MAX]


def my_game(snapshot: RoomSnapshot, seat: int, locale: str) -> MyGame:
    """The card of ``seat``'s room: drawn from that seat's context, as its own table page is."""
    table = make_table(snapshot, seat, frozenset())
    context = seat_context(snapshot.engine, snapshot.core, seat, table, locale, legal=snapshot.legal(seat))
    me = snapshot.seat(seat)
    assert me is not None
    your_turn = seat in table.to_act and not me.played_by_bot
    others = [person_name(locale, s.name) for s in snapshot.seats if s.seat != seat]
    template = environment(locale, snapshot.game).get_template("platform/my_game.html")
    card = template.render(
        {
            **context.values,
            "me": me,
            "others": others,
            "your_turn": your_turn,
            "playing_bot": me.bot_controlled,
        }
    )
    deadline = me.deadline if your_turn else None
    return MyGame(snapshot.code, snapshot.status, your_turn, deadline, Markup(card))


def my_games(service: RoomService, cookies: dict[str, str], locale: str) -> tuple[list[MyGame], list[str]]:
    """This browser's rooms in the page's order, and the seat cookies that name no seat any more."""
    found: list[MyGame] = []
    stale: list[str] = []
    for code, token in seats_held(cookies):
        try:
            snapshot = service.load(code)
        except RoomError:
            stale.append(code)
            continue
        seat = snapshot.seat_of_token.get(hash_token(token))
        if seat is None:
            stale.append(code)
            continue
        found.append(my_game(snapshot, seat, locale))
    return sorted(found, key=lambda game: game.order), stale


def _list_html(games: list[MyGame], locale: str) -> str:
    return render_page(
        "platform/my_games_list.html",
        locale,
        games=games,
        your_turns=sum(game.your_turn for game in games),
        poll_seconds=POLL_SECONDS,
    )


def _forget(response: Response, stale: list[str]) -> Response:
    """Delete the seat cookies of ``stale`` rooms: each name is a room code's (``seats_held``), which
    a ``Set-Cookie`` header can always carry (``http.cookies`` refuses a name with ``(``, a space or
    a letter outside ASCII, failing the page)."""
    for code in stale:
        response.delete_cookie(seat_cookie(code), path="/")
    return response


@router.get("/my-games", response_class=HTMLResponse)
def my_games_page(request: Request, locale: LocaleDep, service: ServiceDep) -> Response:  # a worker thread
    games, stale = my_games(service, dict(request.cookies), locale)
    response = page(request, locale, "platform/my_games.html", games_list=Markup(_list_html(games, locale)))
    response.headers["Cache-Control"] = "no-cache"  # always asked again; the service worker keeps a copy
    return _forget(response, stale)


@router.get("/my-games/list", response_class=HTMLResponse)
def my_games_list(request: Request, locale: LocaleDep, service: ServiceDep) -> Response:  # a worker thread
    """The list alone, which the open page asks for every ``POLL_SECONDS``."""
    games, stale = my_games(service, dict(request.cookies), locale)
    response = HTMLResponse(_list_html(games, locale), headers={"Cache-Control": "no-store"})
    return _forget(response, stale)
