"""Web Push: telling a player whose tab is closed that their turn has come (issue 23).

The writer tells ``PushSender.note`` of every committed decision and of a game starting, in the
writer's own thread; ``note`` only compares who the game now waits for with what it saw last and,
when a seat has a new decision or the game is over, queues the room (once, however often it moves
meanwhile). Everything else happens off the event loop and never before the move's answer. The
sender's worker thread reads the room's subscriptions (one indexed query; the room itself is the
snapshot its writer committed), claims each push with a compare-and-set on its subscription's
marker (``app.rooms.push``: with several processes, only the one that moved the marker sends),
writes the text and seals it: encrypted for the browser (RFC 8291, ``pywebpush``) and signed with
the server's VAPID key (RFC 8292, ``app.rooms.vapid``).

The posts go out on an event loop of the sender's own (``aiohttp``), one lane per push service's
host: at most one push in flight to a host, the others of that host waiting in its lane, so a host
that is slow, or accepts and never answers, holds up only its own pushes, for ``CONNECT_TIMEOUT``
to connect and ``timeout`` in all. Each connection goes only to addresses looked up and checked as
it opens (``app.rooms.push_services``: an allowed push service, never this machine or its
network); no redirect is followed. An endpoint its service calls gone (404, 410), or that failed
``FAILURES_MAX`` times in a row, is forgotten.

What a push says is what the seat's own status line says ("Sealed bid on EU Financial: any amount but
5."), drawn from that seat's redacted view by the game's own prompt template, in the language the
player opted in with: it carries no secret of the game. Tapping it opens the room
(``static/js/service-worker.js``). Besides the turn itself, a seat is warned once when a clock of ten
minutes or more is in its last quarter, and everyone subscribed is told when the game is over.
"""

from __future__ import annotations

import asyncio
import html
import ipaddress
import json
import logging
import math
import queue
import re
import socket
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.rooms import RoomError, RoomService, RoomSnapshot, wallclock
from app.rooms.push import PushStore, Recipient
from app.rooms.push_services import UnsafeAddress, host_name
from app.rooms.vapid import Vapid
from app.web.render import environment, seat_context
from app.web.render.room import make_table

if TYPE_CHECKING:
    import aiohttp

log = logging.getLogger(__name__)

TEMPLATE = "platform/push.html"  # its blocks: the notification's title and body
CLOCK_CHECK_EVERY = 30.0  # seconds between looks for clocks running out (one query)
WAITING_MAX = 1000  # pushes waiting or on their way; past it (push services hanging) new ones are dropped
HOST_WAITING_MAX = 50  # of those, for one push service's host: one bad host cannot fill the rest
TIMEOUT = 10.0  # seconds a push service may take to answer one push, connection included
CONNECT_TIMEOUT = 3.0  # seconds to look its name up and connect (TLS included)
FAILURES_MAX = 3  # failures in a row after which an endpoint is forgotten (not only when called gone)
FAILING_KEPT = 10_000  # endpoints whose failures in a row are counted (the least recently failed go)
DAY = 86400
GONE = frozenset({404, 410})  # the push service's word that this endpoint is no more
SEEN_ROOMS = 4096  # rooms whose waited-for seats ``note`` remembers (the least recently moved go)
BODY_MAX = 600  # characters of a notification's text (the prompt is one sentence or two)
VAPID_LIFE = 12 * 3600  # seconds a push's VAPID signature is valid for
TAGS = re.compile(r"<[^>]*>")


def plain(markup: str) -> str:
    """A rendered fragment as the one line of text a notification shows."""
    return " ".join(html.unescape(TAGS.sub("", markup)).split())  # inline markup: its text runs on


def waited_for(room: RoomSnapshot) -> frozenset[tuple[int, int]]:
    """(seat, legal version) of each person's seat the game waits for: a new pair is a new decision."""
    if room.status != "playing":
        return frozenset()
    to_act = set(room.to_act())
    return frozenset(
        (s.seat, s.legal_version) for s in room.seats if s.seat in to_act and not s.played_by_bot
    )


def message(room: RoomSnapshot, seat: int, kind: str, locale: str, now: int) -> dict[str, Any]:
    """The notification for ``seat``: ``kind`` "turn", "clock" (running out) or "ended"; drawn
    from that seat's own view, as its status line is, in ``locale``."""
    engine = room.engine
    table = make_table(room, seat, frozenset())
    info = room.seat(seat)
    context = seat_context(engine, room.core, seat, table, locale, legal=room.legal(seat))
    left = max(0, (info.deadline or now) - now) if info is not None else 0
    minutes = math.ceil(left / 60_000)
    template = environment(locale, room.game).get_template(TEMPLATE)
    values = {
        **context.values,
        "kind": kind,
        "game": engine.info.name(locale),
        "hours_left": math.ceil(minutes / 60) if minutes >= 120 else 0,
        "minutes_left": minutes,
    }
    drawn = template.new_context(values)
    title = plain("".join(template.blocks["title"](drawn)))
    body = plain("".join(template.blocks["body"](drawn)))
    return {
        "title": title,
        "body": body[:BODY_MAX],
        "url": f"/r/{room.code}",
        "tag": f"bourse-{room.code}",  # a newer push about the room replaces the one still shown
        "lang": locale.replace("_", "-"),
    }


@dataclass(frozen=True)
class Post:
    """One sealed push, ready to post: where, and what (its body encrypted, its headers signed)."""

    recipient: Recipient
    host: str  # the endpoint's host name and port: the lane it waits in
    port: int
    body: bytes
    headers: dict[str, str]


@dataclass
class PushCounts:
    """What the sender did since it started (for metrics): pushes posted and accepted, failed (any
    answer but 2xx, a timeout, a refused address), dropped (too many waiting), and endpoints forgotten."""

    sent: int = 0
    failed: int = 0
    dropped: int = 0
    forgotten: int = 0


class PushSender:
    """Queues rooms whose turn changed and tells their subscribed seats, off the event loop."""

    def __init__(self, service: RoomService, vapid: Vapid, timeout: float = TIMEOUT) -> None:
        self.service = service
        self.store = service.push
        self.vapid = vapid
        self.timeout = timeout
        self.clock_check_every = CLOCK_CHECK_EVERY
        self.counts = PushCounts()
        self._seen: OrderedDict[str, tuple[str, frozenset[tuple[int, int]]]] = OrderedDict()
        self._seen_guard = threading.Lock()
        self._queued: set[str] = set()
        # a queued room's newest committed snapshot, as the writer handed it: telling reads no room
        self._committed: dict[str, RoomSnapshot] = {}
        self._rooms: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._working = False  # the worker is telling a room
        self._sending = 0  # pushes handed to the posting loop and not yet done with
        self._host_sending: dict[tuple[str, int], int] = {}  # of those, per host
        self._failures: OrderedDict[str, int] = OrderedDict()  # endpoint: its failures in a row
        self._idle = threading.Condition()
        self._poster: Poster | None = None  # its loop and HTTP client, made by the first push

    def waiting(self) -> tuple[int, int]:
        """(rooms queued to be told, pushes handed to the posting loop and not yet done with): /metrics."""
        with self._idle:
            return len(self._queued), self._sending

    def failures(self) -> dict[str, int]:
        """Since the start (/metrics): pushes dropped (too many waiting, in all or for its push service)
        and failed (any answer but 2xx, a timeout, a refused address), and endpoints forgotten."""
        with self._idle:
            counts = self.counts
            return {"dropped": counts.dropped, "failed": counts.failed, "forgotten": counts.forgotten}

    # ------------------------------------------------------------ what the writer tells
    def note(self, code: str, after: RoomSnapshot | None, subscribed: bool = True) -> None:
        """A change was committed (``after``: the new snapshot; ``None``: the game started). Queues
        the room if a seat now has a new decision or the game just ended, unless no seat of it had
        a push subscription as the change was written (``subscribed``); costs no I/O."""
        news = True
        if after is not None:
            now = (after.status, waited_for(after))
            with self._seen_guard:
                before = self._seen.get(code)
                self._seen[code] = now
                self._seen.move_to_end(code)
                while len(self._seen) > SEEN_ROOMS:
                    self._seen.popitem(last=False)
            # nobody has a new decision (someone decided, or nothing changed for people)?
            news = before is None or before[0] != now[0] or not now[1] <= before[1]
        if not subscribed:
            return  # nobody to tell: the room's subscriptions are not read (what was seen is kept)
        with self._idle:
            if after is not None and (news or code in self._queued):
                # a queued room is told from its newest snapshot, even one that brought no news:
                # a seat that decided meanwhile is not told of a turn it no longer has
                known = self._committed.get(code)
                if known is None or known.version < after.version:
                    self._committed[code] = after
            if not news or code in self._queued:
                return
            self._queued.add(code)
        self._rooms.put(code)

    # ------------------------------------------------------------ the worker
    def start(self) -> None:
        self._worker = threading.Thread(target=self._run, name="push", daemon=True)
        self._worker.start()

    def stop(self) -> None:
        if self._worker is not None:
            self._rooms.put(None)
            self._worker.join(timeout=self.timeout)
            self._worker = None
        with self._idle:
            poster, self._poster = self._poster, None
        if poster is not None:
            poster.stop()

    def _run(self) -> None:
        checked_at = wallclock.now_ms()
        while True:
            try:
                code = self._rooms.get(timeout=self.clock_check_every)
            except queue.Empty:
                code = ""
            if code is None:
                return
            try:
                if code:
                    with self._idle:
                        self._queued.discard(code)  # before reading it: a later change queues it again
                        committed = self._committed.pop(code, None)
                        self._working = True
                    self.tell(code, committed)
                if wallclock.now_ms() - checked_at >= self.clock_check_every * 1000:
                    checked_at = wallclock.now_ms()
                    self.warn_clocks()
            except Exception:  # a busy database must not stop the pushes for good
                log.exception("pushes for room %s failed", code)
            finally:
                with self._idle:
                    self._working = False
                    self._idle.notify_all()

    def tell(self, code: str, committed: RoomSnapshot | None = None) -> None:
        """Push to every subscribed seat of the room that has a decision it was not told of, or, if
        the game is over, to everyone subscribed who was not told so. ``committed``: the room's
        newest snapshot as its writer committed it (else it is read); a room deleted since has no
        subscriptions left."""
        if committed is not None:
            room = committed
        else:
            try:
                room = self.service.load(code)
            except RoomError:
                return  # deleted meanwhile: its subscriptions went with it
        if room.status == "waiting":
            return
        subscriptions = self.store.of_room(room.room_id)
        if not subscriptions:
            return
        versions = dict(waited_for(room))
        for recipient, turn_told, _, end_told in subscriptions:
            if room.status == "finished":
                if not end_told and self.store.claim_end(recipient.id):
                    self._send(room, recipient, "ended")
                continue
            version = versions.get(recipient.seat)
            if version is not None and turn_told < version and self.store.claim_turn(recipient.id, version):
                self._send(room, recipient, "turn")

    def warn_clocks(self) -> None:
        """Warn each subscribed seat whose clock is in its last quarter, once per decision."""
        for code, seat, version in self.store.clocks_running_out(wallclock.now_ms()):
            try:
                room = self.service.load(code)
            except RoomError:
                continue
            if dict(waited_for(room)).get(seat) != version:
                continue  # decided meanwhile
            for recipient, _, clock_told, _ in self.store.of_room(room.room_id):
                if (
                    recipient.seat == seat
                    and clock_told < version
                    and self.store.claim_clock(recipient.id, version)
                ):
                    self._send(room, recipient, "clock")

    # ------------------------------------------------------------ posting
    def _send(self, room: RoomSnapshot, recipient: Recipient, kind: str) -> None:
        """Seal one push (in the worker thread) and hand it to the posting loop, unless too many
        wait already, in all or for its host."""
        found = self.store.services.service_of(recipient.endpoint)
        if found is None:  # the push services allowed changed since it was kept
            log.warning(
                "push to seat %s refused: its endpoint is not at an allowed push service", recipient.seat
            )
            self._failed(recipient)
            return
        _, host, port = found
        now = wallclock.now_ms()
        payload = json.dumps(message(room, recipient.seat, kind, recipient.locale, now), ensure_ascii=False)
        ttl = min(room.clock, DAY) if kind != "ended" and room.clock else DAY  # a stale turn is no news
        with self._idle:
            waiting = self._host_sending.get((host, port), 0)
            if self._sending >= WAITING_MAX or waiting >= HOST_WAITING_MAX:
                self.counts.dropped += 1
                log.warning(
                    "push to seat %s dropped: %d pushes are waiting already, %d for its push service",
                    recipient.seat,
                    self._sending,
                    waiting,
                )
                return
            self._sending += 1
            self._host_sending[(host, port)] = waiting + 1
            if self._poster is None:
                self._poster = Poster(self)
            poster = self._poster
        try:
            post = self._sealed(recipient, host, port, payload, ttl)
        except Exception:
            log.exception("push to seat %s could not be sealed", recipient.seat)
            self._done(host, port)
            return
        poster.post(post)

    def _sealed(self, recipient: Recipient, host: str, port: int, payload: str, ttl: int) -> Post:
        """The push encrypted for the browser's keys and signed with the server's VAPID key."""
        # Imported by the first push, not at start: with what they import (aiohttp, requests…) they
        # are ~14 MB a server that sends no push would keep for nothing.
        from pywebpush import WebPusher

        body = WebPusher(recipient.subscription_info).encode(payload.encode(), "aes128gcm")["body"]
        scheme = recipient.endpoint.split(":", 1)[0].lower()
        audience = f"{scheme}://{host}" + (
            "" if (scheme, port) in (("https", 443), ("http", 80)) else f":{port}"
        )
        claims = {"sub": self.vapid.subject, "aud": audience, "exp": int(time.time()) + VAPID_LIFE}
        headers = {
            **self.vapid.key.sign(claims),
            "TTL": str(ttl),
            "Content-Encoding": "aes128gcm",
            "Urgency": "high",
        }
        return Post(recipient, host, port, bytes(body), headers)

    def _answered(self, recipient: Recipient, status: int | None, failure: BaseException | None) -> None:
        """What became of one post (on the posting loop's thread): ``status`` its answer, or ``failure``."""
        endpoint = recipient.endpoint
        if status is not None and 200 <= status < 300:
            with self._idle:
                self.counts.sent += 1
                self._failures.pop(endpoint, None)
            return
        if status in GONE:
            self._forget(recipient)
            return
        if status is not None:
            log.warning("push to seat %s refused: %s", recipient.seat, status)
        elif isinstance(failure, UnsafeAddress) or isinstance(
            getattr(failure, "os_error", None), UnsafeAddress
        ):
            log.warning("push to seat %s refused: its push service's address is not public", recipient.seat)
        else:
            log.warning("push to seat %s failed: %s", recipient.seat, type(failure).__name__)
        self._failed(recipient)

    def _failed(self, recipient: Recipient) -> None:
        """One more failure in a row for this endpoint: at ``FAILURES_MAX`` it is forgotten."""
        with self._idle:
            self.counts.failed += 1
            failures = self._failures.pop(recipient.endpoint, 0) + 1
            if failures < FAILURES_MAX:
                self._failures[recipient.endpoint] = failures
                while len(self._failures) > FAILING_KEPT:
                    self._failures.popitem(last=False)
                return
        self._forget(recipient)

    def _forget(self, recipient: Recipient) -> None:
        try:
            forgotten = self.store.forget_endpoint(recipient.endpoint)
        except Exception:  # a busy database: its next failure tries again
            log.exception("the endpoint of seat %s could not be forgotten", recipient.seat)
            return
        with self._idle:
            self.counts.forgotten += forgotten
            self._failures.pop(recipient.endpoint, None)

    def _done(self, host: str, port: int) -> None:
        with self._idle:
            self._sending -= 1
            left = self._host_sending.pop((host, port), 1) - 1
            if left:
                self._host_sending[(host, port)] = left
            self._idle.notify_all()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no room is queued and no push is on its way (tests); whether that came."""
        with self._idle:
            return self._idle.wait_for(lambda: not (self._queued or self._working or self._sending), timeout)


class Poster:
    """The sender's posting loop: an event loop in a thread of its own, and the HTTP client on it.

    Each host has one lane, drained one post at a time; each post opens its own connection (no
    connection is kept), to addresses ``checked_resolver`` looked up and checked for it."""

    def __init__(self, sender: PushSender) -> None:
        self.sender = sender
        self.loop = asyncio.new_event_loop()
        self._lanes: dict[tuple[str, int], deque[Post]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._session: aiohttp.ClientSession | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, name="push-send", daemon=True)
        self._thread.start()

    def post(self, post: Post) -> None:
        """Queue ``post`` in its host's lane (from any thread)."""
        self.loop.call_soon_threadsafe(self._queue, post)

    def _queue(self, post: Post) -> None:
        key = (post.host, post.port)
        lane = self._lanes.get(key)
        if lane is not None:
            lane.append(post)
            return
        self._lanes[key] = deque([post])
        task = self.loop.create_task(self._drain(key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drain(self, key: tuple[str, int]) -> None:
        lane = self._lanes[key]
        try:
            while lane:
                post = lane.popleft()
                try:
                    await self._post(post)
                except Exception:  # the lane's other pushes still go
                    log.exception("push to seat %s failed", post.recipient.seat)
                finally:
                    self.sender._done(post.host, post.port)
        finally:
            for post in lane:  # stopped meanwhile
                self.sender._done(post.host, post.port)
            del self._lanes[key]

    async def _post(self, post: Post) -> None:
        import aiohttp
        from yarl import URL

        status: int | None = None
        failure: BaseException | None = None
        url = URL(post.recipient.endpoint, encoded=True)
        # the client's own reading of the URL: the host it would connect to is the one checked
        if host_name(url.raw_host or "") != post.host or url.port != post.port:
            failure = UnsafeAddress("the endpoint's host reads differently")
        else:
            try:
                async with self._client().post(
                    url, data=post.body, headers=post.headers, allow_redirects=False
                ) as answer:
                    status = answer.status
            except (aiohttp.ClientError, TimeoutError, OSError) as failed:
                failure = failed
        await asyncio.to_thread(self.sender._answered, post.recipient, status, failure)

    def _client(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._session is None:
            timeout = self.sender.timeout
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    resolver=checked_resolver(self.sender.store),
                    use_dns_cache=False,
                    force_close=True,  # each push looks its host up again, and connects to what was checked
                ),
                timeout=aiohttp.ClientTimeout(total=timeout, connect=min(CONNECT_TIMEOUT, timeout)),
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,  # no proxy from the environment: the checked address is the one reached
                auto_decompress=False,
            )
        return self._session

    def stop(self, timeout: float = 5.0) -> None:
        async def close() -> None:
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            if self._session is not None:
                await self._session.close()

        try:
            asyncio.run_coroutine_threadsafe(close(), self.loop).result(timeout)
        except Exception:
            log.exception("the push sender's posts could not be closed")
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()


def checked_resolver(store: PushStore) -> aiohttp.abc.AbstractResolver:
    """The posting client's resolver: the addresses of a push service's name as
    ``PushServices.checked_addresses`` looks them up and checks them, now, and no others (it raises
    ``UnsafeAddress`` otherwise, and nothing is connected to)."""
    from aiohttp.abc import AbstractResolver, ResolveResult

    class CheckedResolver(AbstractResolver):
        async def resolve(
            self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
        ) -> list[ResolveResult]:
            addresses = await asyncio.to_thread(store.services.checked_addresses, host, port)
            return [
                ResolveResult(
                    hostname=host,
                    host=address,
                    port=port,
                    family=socket.AF_INET6 if ipaddress.ip_address(address).version == 6 else socket.AF_INET,
                    proto=0,
                    flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
                )
                for address in addresses
            ]

        async def close(self) -> None:
            pass

    return CheckedResolver()
