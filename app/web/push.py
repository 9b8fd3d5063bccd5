"""Web Push: telling a player whose tab is closed that their turn has come (issue 23).

The writer tells ``PushSender.note`` of every committed decision and of a game starting, in the
writer's own thread; ``note`` only compares who the game now waits for with what it saw last and,
when a seat has a new decision or the game is over, queues the room (once, however often it moves
meanwhile). Everything else happens in the sender's own threads, never on the event loop and never
before the move's answer: reading the room's subscriptions (one indexed query; the room itself is
the snapshot its writer committed), claiming each push with a compare-and-set on its subscription's
marker (``app.rooms.push``: with several processes, only the one that moved the marker sends),
writing the text and posting it, encrypted (RFC 8291) and signed with the server's VAPID key
(RFC 8292) by ``pywebpush``, with a timeout.

What a push says is what the seat's own status line says ("Sealed bid on EU Financial: any amount but
5."), drawn from that seat's redacted view by the game's own prompt template, in the language the
player opted in with: it carries no secret of the game. Tapping it opens the room
(``static/js/service-worker.js``). Besides the turn itself, a seat is warned once when a clock of ten
minutes or more is in its last quarter, and everyone subscribed is told when the game is over.
"""

from __future__ import annotations

import base64
import html
import json
import logging
import math
import queue
import re
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from app.rooms import RoomError, RoomService, RoomSnapshot, wallclock
from app.rooms.push import PushStore, Recipient
from app.web.render import environment, seat_context
from app.web.render.room import make_table

if TYPE_CHECKING:
    from py_vapid import Vapid02

log = logging.getLogger(__name__)

TEMPLATE = "platform/push.html"  # its blocks: the notification's title and body
CLOCK_CHECK_EVERY = 30.0  # seconds between looks for clocks running out (one query)
SEND_THREADS = 4  # pushes posted at once: a slow push service holds up only these
WAITING_MAX = 1000  # pushes waiting for a send thread; past it (a push service hanging) new ones are dropped
TIMEOUT = 10.0  # seconds a push service may take to answer one push
DAY = 86400
GONE = frozenset({404, 410})  # the push service's word that this endpoint is no more
SEEN_ROOMS = 4096  # rooms whose waited-for seats ``note`` remembers (the least recently moved go)
BODY_MAX = 600  # characters of a notification's text (the prompt is one sentence or two)
TAGS = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class Vapid:
    """The server's VAPID key pair: the private key signs each push, the public one is the
    ``applicationServerKey`` a browser subscribes with (base64url of the uncompressed point).

    The private key is read (``key``) by the first push, not at start: the elliptic-curve library
    it needs is ~8 MB a server that sends no push would keep for nothing. So the public key comes
    as text (kept with the data beside the private key: ``PushStore.stored_public_key``)."""

    private_key: str  # its PEM (as stored) or base64url DER or raw key (``vapid --gen``, an operator's)
    public: str
    subject: str  # a contact for the push services: mailto: or https:

    @cached_property
    def key(self) -> Vapid02:
        return _signing_key(self.private_key)


def _signing_key(private_key: str) -> Vapid02:
    from py_vapid import Vapid02

    text = private_key.strip()
    return Vapid02.from_pem(text.encode()) if text.startswith("-----") else Vapid02.from_string(text)


def new_private_pem() -> str:
    """A fresh P-256 key pair, as the PEM the database keeps."""
    from py_vapid import Vapid02

    vapid = Vapid02()
    vapid.generate_keys()
    return bytes(vapid.private_pem()).decode()


def public_key_of(private_key: str) -> str:
    """The public half of a private key as ``Vapid`` takes it (base64url of the uncompressed point)."""
    from cryptography.hazmat.primitives import serialization

    point = _signing_key(private_key).public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def load_vapid(private_key: str, subject: str) -> Vapid:
    """The key pair of a private key, its public half derived now."""
    return Vapid(private_key, public_key_of(private_key), subject)


def kept_vapid(store: PushStore, subject: str) -> Vapid:
    """The key pair kept with the data: made at the first start (by ``python -m app.migrate``, before
    the server starts), its public half derived once and kept beside it."""
    private_key = store.stored_key(new_private_pem)
    return Vapid(private_key, store.stored_public_key(lambda: public_key_of(private_key)), subject)


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


class PushSender:
    """Queues rooms whose turn changed and tells their subscribed seats, off the event loop."""

    def __init__(self, service: RoomService, vapid: Vapid, timeout: float = TIMEOUT) -> None:
        self.service = service
        self.store = service.push
        self.vapid = vapid
        self.timeout = timeout
        self.clock_check_every = CLOCK_CHECK_EVERY
        self._seen: OrderedDict[str, tuple[str, frozenset[tuple[int, int]]]] = OrderedDict()
        self._seen_guard = threading.Lock()
        self._queued: set[str] = set()
        # a queued room's newest committed snapshot, as the writer handed it: telling reads no room
        self._committed: dict[str, RoomSnapshot] = {}
        self._rooms: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._sends = ThreadPoolExecutor(SEND_THREADS, thread_name_prefix="push-send")
        self._worker: threading.Thread | None = None
        self._working = False  # the worker is telling a room
        self._sending = 0  # pushes handed to the send threads and not yet answered
        self._idle = threading.Condition()

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
        self._sends.shutdown(wait=False, cancel_futures=True)

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
        now = wallclock.now_ms()
        payload = json.dumps(message(room, recipient.seat, kind, recipient.locale, now), ensure_ascii=False)
        ttl = min(room.clock, DAY) if kind != "ended" and room.clock else DAY  # a stale turn is no news
        with self._idle:
            if self._sending >= WAITING_MAX:
                log.warning(
                    "push to seat %s dropped: %d pushes are waiting already", recipient.seat, self._sending
                )
                return
            self._sending += 1
        self._sends.submit(self._post, recipient, payload, ttl)

    def _post(self, recipient: Recipient, payload: str, ttl: int) -> None:
        """Post one push (in a send thread). A push service that says the endpoint is gone (404, 410)
        has it forgotten for every seat; any other failure is logged, and that push is lost."""
        # Imported by the first push, not at start: with what they import (aiohttp, urllib3…) they
        # are ~14 MB a server that sends no push would keep for nothing.
        import requests
        from pywebpush import WebPushException, webpush

        session = requests.Session()
        session.max_redirects = 0  # a push service answers; it does not send the server elsewhere
        try:
            webpush(
                recipient.subscription_info,
                payload,
                vapid_private_key=self.vapid.key,
                vapid_claims={"sub": self.vapid.subject},
                timeout=self.timeout,
                ttl=ttl,
                headers={"Urgency": "high"},
                requests_session=session,
            )
        except WebPushException as refused:
            if refused.status_code in GONE:
                self.store.forget_endpoint(recipient.endpoint)
            else:
                log.warning("push to seat %s refused: %s", recipient.seat, refused.status_code)
        except requests.RequestException as failure:
            log.warning("push to seat %s failed: %s", recipient.seat, type(failure).__name__)
        except Exception:
            log.exception("push to seat %s failed", recipient.seat)
        finally:
            session.close()
            with self._idle:
                self._sending -= 1
                self._idle.notify_all()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no room is queued and no push is on its way (tests); whether that came."""
        with self._idle:
            return self._idle.wait_for(lambda: not (self._queued or self._working or self._sending), timeout)
