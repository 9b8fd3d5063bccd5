"""What one client may ask of the server: the size of a request body, how often it may create rooms,
join, act and open live sockets, and how many sockets it (and a room) may hold open.

These are plain ASGI middleware: they answer before routing, so a refused request costs neither a
parse nor a database read. Refusals are readable (``answers.refusal_response``): JSON under ``/api/``,
the visitor's language elsewhere.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Rate, Settings, parse_rate
from app.games.base import N_
from app.web.answers import Refusal, refusal_response

log = logging.getLogger(__name__)

TOO_LARGE = N_("This request is too large (at most {kib} KB).")
TOO_MANY = N_("Too many requests from your network; try again in {seconds} seconds.")
TOO_CHATTY = N_("You are sending messages too fast; wait {seconds} seconds.")
MAX_CLIENTS = 100_000  # clients a limiter remembers at most (the least recently seen go first)

# Which requests count against which limit: (limit, method, path). Reads are not limited; every
# route that writes is (a test checks that each POST and DELETE route is classified).
ROUTES: list[tuple[str, str, re.Pattern[str]]] = [
    ("create", "POST", re.compile(r"/(api/)?rooms")),
    ("create", "POST", re.compile(r"/r/[^/]+/host/again|/api/rooms/[^/]+/again")),
    ("create", "POST", re.compile(r"/rooms/import")),  # a finished room from a game record
    ("join", "POST", re.compile(r"/r/[^/]+/(join|rematch|resume)|/api/rooms/[^/]+/join")),
    ("act", "POST", re.compile(r"/r/[^/]+/(act|host/[^/]+)|/api/rooms/[^/]+/(actions|bots|takeback|start)")),
    ("act", "DELETE", re.compile(r"/api/rooms/[^/]+/seats/[^/]+")),
    ("chat", "POST", re.compile(r"/r/[^/]+/chat|/api/rooms/[^/]+/chat")),
    ("act", "POST", re.compile(r"/r/[^/]+/chat/mute|/api/rooms/[^/]+/chat/mute")),
]
LIVE_SOCKET = re.compile(r"/ws/rooms/([^/]+)")


class BodyTooLarge(Refusal):
    def __init__(self, limit: int) -> None:
        super().__init__(413, TOO_LARGE, kib=limit // 1024)


async def refuse(scope: Scope, receive: Receive, send: Send, refusal: Refusal) -> None:
    """Answer an HTTP request with ``refusal`` from a middleware (before any route ran)."""
    response = refusal_response(
        Request(scope, receive), refusal.status_code, refusal.message, refusal.params, refusal.headers
    )
    await response(scope, receive, send)


class BodyLimit:
    """Refuse a request body over ``limit`` bytes with 413, before it is parsed.

    A declared ``Content-Length`` over the limit is refused before the route runs; a body sent in
    chunks is counted as the route reads it, and the read that passes the limit raises
    ``BodyTooLarge`` (an ``HTTPException``, which FastAPI's body parsing and our handler pass on as
    413). Starlette's own limit answers a declared length only once the route has run."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await refuse(scope, receive, send, BodyTooLarge(self.limit))
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        await self.app(scope, counted, send)


class TokenBuckets:
    """One process's counters: a token bucket per client, ``rate.count`` tokens, refilled evenly
    over ``rate.seconds``; a request takes one. So a client may send a burst of ``count`` and then
    one per ``seconds / count``. (Several processes share ``SharedRates`` instead.)

    Memory stays bounded: buckets that have filled up again hold nothing and are dropped, and at
    most ``max_clients`` are kept."""

    def __init__(
        self, rate: Rate, max_clients: int = MAX_CLIENTS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.capacity = float(rate.count)
        self.per_second = rate.count / rate.seconds
        self.max_clients = max_clients
        self.clock = clock
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, when)

    def take(self, client: str) -> float:
        """0 if ``client`` may go ahead (a token is taken), else the seconds until it may."""
        now = self.clock()
        tokens, when = self.buckets.pop(client, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - when) * self.per_second)
        wait = 0.0 if tokens >= 1 else (1 - tokens) / self.per_second
        self.buckets[client] = (tokens - 1 if wait == 0 else tokens, now)  # the most recent last
        self._forget(now)
        return wait

    def _forget(self, now: float) -> None:
        while self.buckets:
            tokens, when = next(iter(self.buckets.values()))
            full = tokens + (now - when) * self.per_second >= self.capacity
            if not full and len(self.buckets) <= self.max_clients:
                return
            self.buckets.popitem(last=False)


class SharedRates:
    """The counters of several processes (``BOURSE_BROADCAST_URL``), in Redis, so a client gets each
    limit once whichever processes serve it: the ``limits`` library's moving window, at most
    ``rate.count`` requests in any ``rate.seconds``. Redis keeps them, and forgets each with its
    window. While Redis cannot be reached, requests are let through (the log says so) rather than
    refused: the limits guard against abuse, and losing them for a moment costs less than the
    site."""

    def __init__(self, redis_url: str, rates: dict[str, Rate]) -> None:
        from limits import RateLimitItemPerSecond  # the `scale` extra: imported only when configured
        from limits.aio.storage import RedisStorage
        from limits.aio.strategies import MovingWindowRateLimiter

        storage = RedisStorage(
            "async+" + redis_url, implementation="redispy", key_prefix="bourse-limits", wrap_exceptions=True
        )
        self.limiter = MovingWindowRateLimiter(storage)
        self.items = {name: RateLimitItemPerSecond(rate.count, rate.seconds) for name, rate in rates.items()}

    async def take(self, limit: str, client: str) -> float:
        """0 if ``client`` may go ahead (the request is counted), else the seconds until it may."""
        from limits.errors import StorageError

        item = self.items.get(limit)
        if item is None:
            return 0.0
        try:
            if await self.limiter.hit(item, limit, client):
                return 0.0
            stats = await self.limiter.get_window_stats(item, limit, client)
        except StorageError as failure:
            log.warning("the rate limits cannot reach Redis, so they let requests through: %s", failure)
            return 0.0
        return max(1.0, stats.reset_time - time.time())


def client_key(scope: Scope) -> str:
    """Who a request is from: the client address uvicorn gives (a trusted proxy's
    ``X-Forwarded-For`` already applied, see ``FORWARDED_ALLOW_IPS``); an IPv6 client by its /64,
    the block one household or server is handed."""
    client = scope.get("client")
    host = str(client[0]) if client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6 and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address.ipv4_mapped or address) if address.version == 6 else str(address)


def classify(method: str, path: str) -> str | None:
    """The limit a request counts against (``create``, ``join``, ``act``, ``chat``), if any."""
    for limit, verb, pattern in ROUTES:
        if method == verb and pattern.fullmatch(path):
            return limit
    return None


class Limits:
    """Per-client rate limits on creating rooms, joining, acting, chatting and opening live sockets; caps on
    the live sockets one client, and one room, hold open. Over a limit: 429 with ``Retry-After``
    (a socket is closed before it is accepted)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        rates = {
            "create": settings.rate_create,
            "join": settings.rate_join,
            "act": settings.rate_act,
            "chat": settings.rate_chat,
            "connect": settings.rate_connect,
        }
        limited = {
            name: rate
            for name, rate in ((name, parse_rate(text)) for name, text in rates.items())
            if not rate.unlimited
        }
        self.shared = SharedRates(settings.broadcast_url, limited) if settings.broadcast_url else None
        self.buckets = (
            {name: TokenBuckets(rate) for name, rate in limited.items()} if self.shared is None else {}
        )
        self.per_client = settings.max_sockets_per_client
        self.per_room = settings.max_sockets_per_room
        self.client_sockets: dict[str, int] = {}  # only clients and rooms with a socket open
        self.room_sockets: dict[str, int] = {}
        self.warned = False  # about an untrusted proxy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            limit = classify(scope["method"], scope["path"])
            if limit and not self.warned:
                self._check_proxy(scope)
            wait = await self._wait(limit, client_key(scope)) if limit else 0.0
            if wait:
                seconds = math.ceil(wait)
                message = TOO_CHATTY if limit == "chat" else TOO_MANY
                refusal = Refusal(429, message, {"Retry-After": str(seconds)}, seconds=seconds)
                await refuse(scope, receive, send, refusal)
                return
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket" and (match := LIVE_SOCKET.fullmatch(scope["path"])):
            await self._socket(scope, receive, send, match[1])
        else:
            await self.app(scope, receive, send)

    async def _wait(self, limit: str, client: str) -> float:
        """0 if ``client`` may go ahead under ``limit`` (the request is counted), else the seconds
        until it may."""
        if self.shared is not None:
            return await self.shared.take(limit, client)
        bucket = self.buckets.get(limit)
        return bucket.take(client) if bucket else 0.0

    def _check_proxy(self, scope: Scope) -> None:
        """Warn once if requests come through a proxy that is not trusted: every visitor would then
        be the proxy, one client for the limits. (A trusted proxy's client is one of the addresses
        its ``X-Forwarded-For`` lists.)"""
        forwarded = next((value for name, value in scope["headers"] if name == b"x-forwarded-for"), None)
        client = scope.get("client")
        if forwarded is None or not client:
            return
        if client[0] not in {part.strip() for part in forwarded.decode("latin-1").split(",")}:
            self.warned = True
            log.warning(
                "requests come through a proxy at %s that FORWARDED_ALLOW_IPS does not trust: "
                "every visitor counts as that one client for the rate limits",
                client[0],
            )

    async def _socket(self, scope: Scope, receive: Receive, send: Send, code: str) -> None:
        client = client_key(scope)
        if (
            (self.per_client and self.client_sockets.get(client, 0) >= self.per_client)
            or (self.per_room and self.room_sockets.get(code, 0) >= self.per_room)
            or await self._wait("connect", client)
        ):
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
            return
        self.client_sockets[client] = self.client_sockets.get(client, 0) + 1
        self.room_sockets[code] = self.room_sockets.get(code, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            _release(self.client_sockets, client)
            _release(self.room_sockets, code)


def _release(counts: dict[str, int], key: str) -> None:
    counts[key] -= 1
    if not counts[key]:
        del counts[key]


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            text: Any = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None
