"""What one client may ask of the server: the size of a request body, how often it may create rooms,
join, act and open live sockets, and how many sockets it (and a room) may hold open. The rates are
counted one way everywhere (``Rates``: the ``limits`` library's moving window), in this process's
memory or, with Redis (``BOURSE_BROADCAST_URL``), in Redis, so that every limit and cap holds across
processes (with ``SharedSocketCounts``) and one process refuses exactly as several do.

``guards.Guards`` applies them before routing, so a refused request costs neither a parse nor a
database read. Refusals are readable (``answers.refusal_response``): JSON under ``/api/``,
the visitor's language elsewhere.
"""

from __future__ import annotations

import asyncio
import bisect
import ipaddress
import logging
import math
import re
import time
import uuid
from array import array
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import MovingWindowSupport, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Rate, Settings, parse_rate
from app.games.base import N_
from app.web.answers import Refusal, refusal_response

if TYPE_CHECKING:
    from redis.typing import EncodableT, FieldT

log = logging.getLogger(__name__)

TOO_LARGE = N_("This request is too large (at most {kib} KB).")
TOO_MANY = N_("Too many requests from your network; try again in {seconds} s.")
TOO_CHATTY = N_("You are sending messages too fast; wait {seconds} s.")
MAX_CLIENTS = (
    100_000  # clients (under one limit each) remembered in memory at most, the least recently seen go first
)

# Which requests count against which limit: (limit, method, path). Reads are not limited; every
# route that writes is (a test checks that each POST and DELETE route is classified).
ROUTES: list[tuple[str, str, re.Pattern[str]]] = [
    ("create", "POST", re.compile(r"/(api/)?rooms")),
    ("create", "POST", re.compile(r"/r/[^/]+/host/again|/api/rooms/[^/]+/again")),
    ("create", "POST", re.compile(r"/rooms/import")),  # a finished room from a game record
    ("join", "POST", re.compile(r"/r/[^/]+/(join|rematch|resume)|/api/rooms/[^/]+/join")),
    (
        "act",
        "POST",
        re.compile(r"/r/[^/]+/(act|host/[^/]+)|/api/rooms/[^/]+/(actions|bots|takeback|start)"),
    ),
    ("act", "POST", re.compile(r"/r/[^/]+/push(/off)?")),  # a seat opting in or out of Web Push
    ("act", "POST", re.compile(r"/r/[^/]+/review|/api/rooms/[^/]+/review")),  # a review queued (learn.py)
    ("act", "DELETE", re.compile(r"/api/rooms/[^/]+/seats/[^/]+")),
    ("chat", "POST", re.compile(r"/r/[^/]+/chat|/api/rooms/[^/]+/chat")),
    ("chat", "POST", re.compile(r"/r/[^/]+/clock|/api/rooms/[^/]+/clock")),  # a pause is said in the chat
    ("act", "POST", re.compile(r"/r/[^/]+/chat/mute|/api/rooms/[^/]+/chat/mute")),
]
LIVE_SOCKET = re.compile(r"/ws/rooms/([^/]+)")  # pages.room_socket's path


def live_socket_code(path: str) -> str | None:
    """The room's code if ``path`` is a live socket's. Callers keep the code, not the match: their
    frames live as long as the socket (thousands of them)."""
    found = LIVE_SOCKET.fullmatch(path)
    return found[1] if found is not None else None


SOCKETS_PREFIX = "bourse:sockets:"  # + a process's origin: its open sockets, by client and by room
SOCKET_PROCESSES = SOCKETS_PREFIX + "processes"  # the origins that may have sockets counted
# Count the sockets a client (ARGV[3]) and a room (ARGV[4]) have open on every live process (one whose
# hash has not expired), forget dead processes, and count one more socket for this process (ARGV[1])
# unless that passes a cap (ARGV[5], ARGV[6]; 0: none). 1 if counted. A process's hash names no key
# ahead, so this needs one Redis, not a cluster.
OPEN_SOCKET = """
redis.call('sadd', KEYS[1], ARGV[1])
local clients, rooms = 0, 0
for _, origin in ipairs(redis.call('smembers', KEYS[1])) do
  local key = ARGV[2] .. origin
  if redis.call('exists', key) == 1 then
    local counts = redis.call('hmget', key, ARGV[3], ARGV[4])
    clients = clients + (tonumber(counts[1]) or 0)
    rooms = rooms + (tonumber(counts[2]) or 0)
  elseif origin ~= ARGV[1] then
    redis.call('srem', KEYS[1], origin)
  end
end
local per_client, per_room = tonumber(ARGV[5]), tonumber(ARGV[6])
if (per_client > 0 and clients >= per_client) or (per_room > 0 and rooms >= per_room) then
  return 0
end
redis.call('hincrby', KEYS[2], ARGV[3], 1)
redis.call('hincrby', KEYS[2], ARGV[4], 1)
redis.call('pexpire', KEYS[2], ARGV[7])
return 1
"""
CLOSE_SOCKET = """
for i = 1, 2 do
  if redis.call('hincrby', KEYS[1], ARGV[i], -1) <= 0 then
    redis.call('hdel', KEYS[1], ARGV[i])
  end
end
"""


class BodyTooLarge(Refusal):
    def __init__(self, limit: int) -> None:
        super().__init__(413, TOO_LARGE, kib=limit // 1024)


async def refuse(scope: Scope, receive: Receive, send: Send, refusal: Refusal) -> None:
    """Answer an HTTP request with ``refusal`` from a middleware (before any route ran)."""
    response = refusal_response(
        Request(scope, receive), refusal.status_code, refusal.message, refusal.params, refusal.headers
    )
    await response(scope, receive, send)


def body_refusal(scope: Scope, limit: int) -> BodyTooLarge | None:
    """413 for a request that declares a body (``Content-Length``) over ``limit`` bytes, before any
    route runs. Starlette's own limit answers a declared length only once the route has run."""
    declared = _content_length(scope)
    return BodyTooLarge(limit) if declared is not None and declared > limit else None


def counting_body(receive: Receive, limit: int) -> Receive:
    """``receive`` that counts a body sent in chunks as the route reads it: the read that passes
    ``limit`` raises ``BodyTooLarge`` (an ``HTTPException``, which FastAPI's body parsing and our
    handler pass on as 413)."""
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit)
        return message

    return counted


class MovingWindows(Storage, MovingWindowSupport):
    """The ``limits`` library's moving window kept in this process's memory, for its
    ``MovingWindowRateLimiter``: per key (a limit and a client), the times of the hits still in the
    window, and a hit is let through while fewer than the limit's count are, exactly as the library's
    Redis storage decides (so one process and several refuse alike). The library's own memory
    storage sweeps every key, each in a thread of its own, after each hit, which keeps a busy
    server's event loop busy; here a key is trimmed when it is hit, and keys whose hits have all left their window are dropped,
    least recently hit first, as are the oldest beyond ``max_keys``. Only the moving window is kept:
    the fixed-window counters of ``Storage`` are not."""

    def __init__(self, max_keys: int = MAX_CLIENTS, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.max_keys = max_keys
        self.clock = clock
        # key -> (its window in seconds, its hits' times, oldest first); the most recently hit last
        self.windows: OrderedDict[str, tuple[float, array[float]]] = OrderedDict()

    @property
    def base_exceptions(self) -> type[Exception]:
        return ValueError  # as the library's memory storage: nothing here fails but a bug

    async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        now = self.clock()
        _, hits = self.windows.pop(key, (expiry, array("d")))
        del hits[: bisect.bisect_left(hits, now - expiry)]  # a hit at now - expiry still counts
        self._forget(now)
        self.windows[key] = (expiry, hits)
        if len(hits) + amount > limit:
            return False
        hits.extend([now] * amount)
        return True

    async def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        """When the oldest hit still in the window was, and how many hits are."""
        now = self.clock()
        _, hits = self.windows.get(key, (expiry, array("d")))
        inside = hits[bisect.bisect_left(hits, now - expiry) :]
        return (inside[0], len(inside)) if inside else (now, 0)

    def _forget(self, now: float) -> None:
        """Drop the least recently hit keys while they have no hit left in their window, or while
        there is no room for one more key."""
        while self.windows:
            expiry, hits = next(iter(self.windows.values()))
            if len(self.windows) < self.max_keys and hits and hits[-1] >= now - expiry:
                return
            self.windows.popitem(last=False)

    async def clear(self, key: str) -> None:
        self.windows.pop(key, None)

    async def reset(self) -> int:
        count = len(self.windows)
        self.windows.clear()
        return count

    async def check(self) -> bool:
        return True

    async def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        raise NotImplementedError("only the moving window is kept in memory")

    async def get(self, key: str) -> int:
        raise NotImplementedError("only the moving window is kept in memory")

    async def get_expiry(self, key: str) -> float:
        raise NotImplementedError("only the moving window is kept in memory")


class Rates:
    """Every limit's counters, one algorithm wherever they are kept: the ``limits`` library's moving
    window, at most ``rate.count`` requests in any ``rate.seconds`` (a client may spend them in one
    burst, and then waits until the first of them is ``rate.seconds`` old). One process keeps them
    in memory (``MovingWindows``); several (``BOURSE_BROADCAST_URL``) keep them in Redis, so a client
    gets each limit once whichever processes serve it; Redis forgets each with its window. While
    Redis cannot be reached, requests are let through (the log says so) rather than refused: the
    limits guard against abuse, and losing them for a moment costs less than the site."""

    def __init__(self, rates: dict[str, Rate], redis_url: str = "") -> None:
        storage: Storage = (
            RedisStorage(
                "async+" + redis_url,
                implementation="redispy",
                key_prefix="bourse-limits",
                wrap_exceptions=True,
            )
            if redis_url
            else MovingWindows()
        )
        self.limiter = MovingWindowRateLimiter(storage)
        self.items: dict[str, RateLimitItem] = {
            name: RateLimitItemPerSecond(rate.count, rate.seconds) for name, rate in rates.items()
        }

    async def take(self, limit: str, client: str) -> float:
        """0 if ``client`` may go ahead (the request is counted), else the seconds until it may."""
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
    the live sockets one client, and one room, hold open (``SocketCounts``; with Redis, over every
    process). Over a limit: 429 with ``Retry-After`` (a socket is closed before it is accepted).
    ``guards.Guards`` asks it first, so a refused request is not read."""

    def __init__(self, settings: Settings) -> None:
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
        self.rates = Rates(limited, settings.broadcast_url)
        self.sockets = (
            SharedSocketCounts(
                settings.broadcast_url,
                settings.max_sockets_per_client,
                settings.max_sockets_per_room,
                settings.lease_seconds,
            )
            if settings.broadcast_url
            else SocketCounts(settings.max_sockets_per_client, settings.max_sockets_per_room)
        )
        self.warned = False  # about an untrusted proxy

    async def refusal(self, scope: Scope) -> Refusal | None:
        """429 if this HTTP request passes its client's limit; else ``None`` (and it is counted)."""
        limit = classify(scope["method"], scope["path"])
        if limit is None:
            return None
        if not self.warned:
            self._check_proxy(scope)
        return await self._refusal(limit, client_key(scope))

    async def move_refusal(self, scope: Scope) -> Refusal | None:
        """429 if a move sent over a live socket (``moves.py``) passes its client's "act" limit, as
        the form post it replaces would; else ``None`` (and it is counted)."""
        return await self._refusal("act", client_key(scope))

    async def _refusal(self, limit: str, client: str) -> Refusal | None:
        wait = await self.rates.take(limit, client)
        if not wait:
            return None
        seconds = math.ceil(wait)
        message = TOO_CHATTY if limit == "chat" else TOO_MANY
        return Refusal(429, message, {"Retry-After": str(seconds)}, seconds=seconds)

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

    async def live_socket(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send, code: str) -> None:
        """Let ``app`` serve a live socket on room ``code`` if its client may open one (counted while
        it is open); else close it before it is accepted (HTTP 403)."""
        client = client_key(scope)
        if (
            self.sockets.full(client, code)
            or await self.rates.take("connect", client)
            or not await self.sockets.open(client, code)
        ):
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
            return
        try:
            await app(scope, receive, send)
        finally:
            await self.sockets.close(client, code)


class SocketCounts:
    """The live sockets this process holds open, per client and per room, against the caps
    (``per_client``, ``per_room``; 0: no cap). Only clients and rooms with a socket open are kept."""

    def __init__(self, per_client: int, per_room: int) -> None:
        self.per_client = per_client
        self.per_room = per_room
        self.clients: dict[str, int] = {}
        self.rooms: dict[str, int] = {}

    def full(self, client: str, room: str) -> bool:
        """Whether another socket of ``client`` on ``room`` would pass a cap here."""
        return bool(
            (self.per_client and self.clients.get(client, 0) >= self.per_client)
            or (self.per_room and self.rooms.get(room, 0) >= self.per_room)
        )

    async def open(self, client: str, room: str) -> bool:
        """Count a socket of ``client`` on ``room`` unless that passes a cap; whether it was."""
        if self.full(client, room):
            return False
        self._add(client, room)
        return True

    async def close(self, client: str, room: str) -> None:
        _release(self.clients, client)
        _release(self.rooms, room)

    def _add(self, client: str, room: str) -> None:
        self.clients[client] = self.clients.get(client, 0) + 1
        self.rooms[room] = self.rooms.get(room, 0) + 1


class SharedSocketCounts(SocketCounts):
    """The caps over every process on one Redis. Each process keeps its own sockets in a hash of
    its own (``bourse:sockets:<origin>``: ``c:<client>`` and ``r:<room>`` counts) that expires
    after ``lease_seconds`` unless the process renews it, which it does every third of that while
    it has sockets open (rewriting it from its own counts, so a count Redis missed is put right).
    A socket is counted against the sum over the processes whose hash lives: a process that dies
    stops counting once its lease runs out. While Redis cannot be reached, each process holds
    its sockets to the caps by itself (the log says so)."""

    def __init__(self, redis_url: str, per_client: int, per_room: int, lease_seconds: float) -> None:
        super().__init__(per_client, per_room)
        from redis import asyncio as aioredis  # the `scale` extra: imported only when configured

        from app.broadcast import TIMEOUT

        self.redis = aioredis.Redis.from_url(
            redis_url, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT
        )
        self.origin = uuid.uuid4().hex  # this process
        self.key = SOCKETS_PREFIX + self.origin
        self.lease_ms = int(lease_seconds * 1000)
        self._open = self.redis.register_script(OPEN_SOCKET)
        self._close = self.redis.register_script(CLOSE_SOCKET)
        self.lock = asyncio.Lock()  # Redis's counts change in the order this process's do
        self.renewing: asyncio.Task[None] | None = None

    async def open(self, client: str, room: str) -> bool:
        from redis.exceptions import RedisError

        if self.full(client, room):
            return False
        async with self.lock:
            args = [self.origin, SOCKETS_PREFIX, "c:" + client, "r:" + room]
            try:
                counted = await self._open(
                    keys=[SOCKET_PROCESSES, self.key],
                    args=[*args, self.per_client, self.per_room, self.lease_ms],
                )
            except (RedisError, OSError) as failure:
                log.warning("the socket caps cannot reach Redis, so each process counts its own: %s", failure)
                counted = True
            if not counted:
                return False
            self._add(client, room)
        if self.renewing is None:
            self.renewing = asyncio.create_task(self._renew_while_open())
        return True

    async def close(self, client: str, room: str) -> None:
        from redis.exceptions import RedisError

        async with self.lock:
            await super().close(client, room)
            try:
                await self._close(keys=[self.key], args=["c:" + client, "r:" + room])
            except (RedisError, OSError) as failure:
                log.warning("a closed socket is still counted in Redis until the next renewal: %s", failure)

    async def _renew_while_open(self) -> None:
        """Every third of the lease, write this process's counts afresh and renew them; once it has
        no socket open, take them away and stop."""
        from redis.exceptions import RedisError

        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            async with self.lock:
                counts: dict[FieldT, EncodableT] = {"c:" + client: n for client, n in self.clients.items()}
                counts.update({"r:" + room: n for room, n in self.rooms.items()})
                try:
                    async with self.redis.pipeline(transaction=True) as renewal:
                        renewal.delete(self.key)
                        if counts:
                            renewal.hset(self.key, mapping=counts)
                            renewal.pexpire(self.key, self.lease_ms)
                        await renewal.execute()
                except (RedisError, OSError) as failure:
                    log.warning("the socket counts could not be renewed in Redis: %s", failure)
                if not counts:
                    self.renewing = None
                    return


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
