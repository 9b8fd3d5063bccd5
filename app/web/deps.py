"""FastAPI dependencies shared by the pages (``pages.py``, ``replay.py``) and the JSON API (``api.py``).

``create_app`` puts the settings, the room service and the live rooms on ``app.state``; these read
them back, typed, for HTTP requests and WebSockets alike (``HTTPConnection`` is either). A route of
one room takes them all at once as a ``RoomRequest``: ``PageRoom`` (the seat from this browser's
cookie) or ``ApiRoom`` (the seat from the bearer token).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Annotated, Any, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from app.config import Settings
from app.games.base import N_
from app.i18n import LOCALE_COOKIE, choose_locale
from app.rooms import Forbidden, NotFound, RoomError, RoomService, RoomSnapshot, chat_author, hash_token
from app.web.live import LiveRooms

SEAT_COOKIE_PREFIX = "bourse_seat_"
VIEWER_COOKIE = "bourse_viewer"  # a spectator's random key: what the host mutes when muting them


def get_app_settings(connection: HTTPConnection) -> Settings:
    return cast(Settings, connection.app.state.settings)


def get_service(connection: HTTPConnection) -> RoomService:
    return cast(RoomService, connection.app.state.service)


def get_live(connection: HTTPConnection) -> LiveRooms:
    return cast(LiveRooms, connection.app.state.live)


def get_locale(connection: HTTPConnection) -> str:
    """The locale asked for by ``?lang=``, else the locale cookie, else the browser's languages."""
    return choose_locale(
        connection.query_params.get("lang"),
        connection.cookies.get(LOCALE_COOKIE),
        connection.headers.get("accept-language"),
    )


def seat_cookie(code: str) -> str:
    """The name of the cookie holding this browser's seat token for room ``code``."""
    return SEAT_COOKIE_PREFIX + code


def resume_url(base: str, code: str, token: str) -> str:
    """A seat's personal link. The token is in the fragment, which a browser never sends: it reaches
    no access log (ours or a proxy's), no Referer and no link preview; the resume page's script posts
    it. Not a one-time code: a player may open it on several devices during a long game, a chat
    app's link preview must not use it up, and making one would cost a write per page view."""
    return f"{base}/r/{code}/resume#{token}"


def new_viewer_key() -> str:
    return secrets.token_urlsafe(18)


def chat_author_of(seat_token: str | None, viewer_key: str) -> str:
    """Who writes a chat message, as a mute names them: a seated person by their seat, anyone else
    by their browser's viewer key (or, for the API, their address). Never shown to anyone."""
    if seat_token:
        return chat_author(hash_token(seat_token))
    return "viewer:" + hashlib.sha256(viewer_key.encode()).hexdigest()[:32]


def chosen_clock(settings: Settings, raw: Any) -> int:
    """The turn clock a new room asks for, in seconds: 0 (none) or one of the presets."""
    seconds = int(raw) if isinstance(raw, int) or (isinstance(raw, str) and raw.strip().isdigit()) else -1
    if seconds != 0 and seconds not in settings.clocks:
        raise RoomError(
            N_("A turn clock is one of {choices} seconds per move, or 0 for none."),
            choices=", ".join(str(choice) for choice in settings.clocks),
        )
    return seconds


def get_seat_token(connection: HTTPConnection, code: str) -> str | None:
    return connection.cookies.get(seat_cookie(code))


# FastAPI runs plain functions in worker threads: these cheap reads are given to it as coroutines.
async def _settings_dependency(connection: HTTPConnection) -> Settings:
    return get_app_settings(connection)


async def _service_dependency(connection: HTTPConnection) -> RoomService:
    return get_service(connection)


async def _live_dependency(connection: HTTPConnection) -> LiveRooms:
    return get_live(connection)


async def _locale_dependency(connection: HTTPConnection) -> str:
    return get_locale(connection)


async def _seat_token_dependency(connection: HTTPConnection, code: str) -> str | None:
    return get_seat_token(connection, code)


SettingsDep = Annotated[Settings, Depends(_settings_dependency)]
ServiceDep = Annotated[RoomService, Depends(_service_dependency)]
LiveDep = Annotated[LiveRooms, Depends(_live_dependency)]
LocaleDep = Annotated[str, Depends(_locale_dependency)]
SeatTokenDep = Annotated[str | None, Depends(_seat_token_dependency)]


@dataclass(frozen=True)
class RoomRequest:
    """A request to room ``code``: who asks (their seat and its token), in which language, and what
    serves it. The seat was looked up once, in a worker thread, in ``snapshot`` (the room as it was
    then, ``None`` for an unknown room): a route that only reads may answer from it."""

    code: str
    token: str | None
    looked_up_seat: int | None
    locale: str
    service: RoomService
    live: LiveRooms
    settings: Settings
    refused: RoomError | None = None  # the API only: an unknown room, a token that is no seat of it
    snapshot: RoomSnapshot | None = None

    @property
    def seat(self) -> int | None:
        """The caller's seat, ``None`` for a spectator. The API's refusal comes here, when the route
        asks: after FastAPI has validated the body, so a malformed request is still refused first
        (422), and a route that needs no seat (joining, reading the chat) takes any token."""
        if self.refused is not None:
            raise self.refused
        return self.looked_up_seat


NOT_A_SEAT = N_("This token is not a seat of this room.")


def _page_room(  # a worker thread: it reads
    code: str,
    token: SeatTokenDep,
    locale: LocaleDep,
    service: ServiceDep,
    live: LiveDep,
    settings: SettingsDep,
) -> RoomRequest:
    """The seat this browser's cookie holds; an unknown room is no seat either (without a cookie,
    nothing is read)."""
    try:
        snapshot = service.load(code) if token is not None else None
    except RoomError:
        snapshot = None
    if snapshot is None:
        return RoomRequest(code, token, None, locale, service, live, settings)
    return RoomRequest(
        code, token, snapshot.seat_for_token(token), locale, service, live, settings, None, snapshot
    )


def _bearer_token(connection: HTTPConnection) -> str | None:
    header = connection.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else None


def _api_room(  # a worker thread: it reads
    connection: HTTPConnection, code: str, service: ServiceDep, live: LiveDep, settings: SettingsDep
) -> RoomRequest:
    """The seat the bearer token holds (the API speaks English); refused, as ``RoomRequest.seat``
    says, for an unknown room or a token that is no seat of it."""
    token = _bearer_token(connection)
    try:
        snapshot = service.load(code)
    except NotFound as unknown:
        return RoomRequest(code, token, None, "en", service, live, settings, refused=unknown)
    seat = snapshot.seat_for_token(token)
    refused = Forbidden(NOT_A_SEAT) if token and seat is None else None
    return RoomRequest(code, token, seat, "en", service, live, settings, refused, snapshot)


PageRoom = Annotated[RoomRequest, Depends(_page_room)]
ApiRoom = Annotated[RoomRequest, Depends(_api_room)]
