"""The load client of ``bench_live``: browser-like tabs (WebSockets) and seats that act over HTTP.

Lean on purpose, so the client is not what gets measured: a hand-written WebSocket client protocol
(no task per socket; a pushed message costs one ``rfind`` for its version stamp and one ``find`` for
the seats whose turn it is), and a small HTTP/1.1 keep-alive pool on asyncio streams. Everything is
bounded in time.

A tab "has" version N once it received a message stamped ``data-room-version="M"`` with M >= N.
An action made against version V that the server accepts brings V + 1; its latency is the time from
just before the request is sent until every tab of the room has V + 1.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import html
import json
import math
import os
import random
import re
import resource
import time
import urllib.parse
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from app.games.base import random_legal_action

STAMP = b'data-room-version="'
TURN = b'data-to-act="'  # the turn region: the seats the game waits for, as the page marks them
ANSWER = b'{"move"'  # the answer to a move sent on the socket (``--mode socket``)
SEAT_COOKIE_PREFIX = "bourse_seat_"
REGION = b'<section id="r-'  # a push that brings regions (and so, on a seat's tab, its action forms)

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10


def raise_open_files_limit() -> int:
    """Soft limit of open files up to the hard one (thousands of sockets); returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of unsorted values; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


# --------------------------------------------------------------------------- statistics
@dataclass
class Bucket:
    """Counts and latencies of the actions sent during one phase of a run."""

    attempted: int = 0
    accepted: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # HTTP status -> count
    errors: Counter[str] = field(default_factory=Counter)  # "500", "connection", "timeout", ...
    lost_updates: int = 0  # (action, tab) pairs never delivered within the grace period
    lost_actions: int = 0  # accepted actions that missed at least one tab
    latencies: list[float] = field(default_factory=list)  # seconds, one per fully delivered action
    scheduled: int = 0  # ticks of the rooms' schedules that fell in the phase
    skipped_ticks: int = 0  # a room's 5-s tick came while its previous action was still running
    lookups: int = 0  # GET /api/rooms made to choose actions (not measured)
    accepted_by_third: list[int] = field(default_factory=lambda: [0, 0, 0])
    probe: list[float] = field(default_factory=list)  # /healthz response times (flood)
    tab_bytes: int = 0  # of messages to the tabs, as on the wire (compressed if the server compresses)

    def to_dict(self) -> dict[str, Any]:
        return {
            "attempted": self.attempted,
            "accepted": self.accepted,
            "refused": dict(self.refused),
            "errors": dict(self.errors),
            "lost_updates": self.lost_updates,
            "lost_actions": self.lost_actions,
            "latencies": self.latencies,
            "scheduled": self.scheduled,
            "skipped_ticks": self.skipped_ticks,
            "lookups": self.lookups,
            "accepted_by_third": self.accepted_by_third,
            "probe": self.probe,
            "tab_bytes": self.tab_bytes,
        }


def merge_buckets(parts: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = Bucket().to_dict()
    for part in parts:
        for key, value in part.items():
            if isinstance(value, list) and key == "accepted_by_third":
                total[key] = [a + b for a, b in zip(total[key], value, strict=True)]
            elif isinstance(value, list):
                total[key] = total[key] + value
            elif isinstance(value, dict):
                total[key] = dict(Counter(total[key]) + Counter(value))
            else:
                total[key] += value
    return total


def summarize(bucket: dict[str, Any]) -> dict[str, Any]:
    """Percentiles in milliseconds and totals of a (merged) bucket."""
    ms = [value * 1000 for value in bucket["latencies"]]
    probe = [value * 1000 for value in bucket["probe"]]
    return {
        "attempted": bucket["attempted"],
        "accepted": bucket["accepted"],
        "refused": sum(bucket["refused"].values()),
        "refused_by_status": bucket["refused"],
        "errors": sum(bucket["errors"].values()),
        "errors_by_kind": bucket["errors"],
        "lost_updates": bucket["lost_updates"],
        "lost_actions": bucket["lost_actions"],
        "delivered": len(ms),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "max_ms": max(ms) if ms else None,
        "scheduled": bucket["scheduled"],
        "skipped_ticks": bucket["skipped_ticks"],
        "lookups": bucket["lookups"],
        "accepted_by_third": bucket["accepted_by_third"],
        "probes": len(probe),
        "probe_p99_ms": percentile(probe, 99),
        "probe_max_ms": max(probe) if probe else None,
        "tab_bytes": bucket["tab_bytes"],
    }


# --------------------------------------------------------------------------- WebSocket tab
def _frame(opcode: int, payload: bytes) -> bytes:
    """A client frame: masked (RFC 6455 requires it) with an all-zero key, so the payload is as is."""
    length = len(payload)
    if length < 126:
        head = bytes((0x80 | opcode, 0x80 | length))
    elif length < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + length.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + length.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


class Tab(asyncio.Protocol):
    """One browser tab's WebSocket (a seat's, or a spectator's when ``seat`` is None)."""

    def __init__(self, room: Room, seat: int | None, request: bytes) -> None:
        self.room = room
        self.seat = seat
        self.request = request
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.open = False
        self.closed = False
        self.close_sent = False
        self.version = -1
        self.first_at: float | None = None
        self.partial: bytearray | None = None
        self.partial_compressed = False
        # permessage-deflate, when the server accepts the offer a browser makes (RFC 7692): its messages
        # are inflated here, and whatever the server keeps for compressing is measured with the rest
        self.inflater: zlib._Decompress | None = None
        self.inflater_resets = False  # the server said server_no_context_takeover
        self.moves_sent = 0
        self.forms: dict[str, list[bytes]] = {}  # a seat's action forms, by region, as its pushes bring them
        self.answers: dict[int, asyncio.Future[int]] = {}  # a move sent on this socket -> its status
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.gone: asyncio.Future[None] = loop.create_future()

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no asyncio.Transport subclass
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.open:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end])
            del self.buffer[: end + 4]
            if not head.startswith(b"HTTP/1.1 101"):
                if not self.opened.done():
                    self.opened.set_exception(
                        ConnectionError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
                    )
                assert self.transport is not None
                self.transport.close()
                return
            self.open = True
            self._negotiated(head)
            if not self.opened.done():
                self.opened.set_result(None)
        self._frames()

    def _negotiated(self, head: bytes) -> None:
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"sec-websocket-extensions" and b"permessage-deflate" in value:
                self.inflater = zlib.decompressobj(-15)
                self.inflater_resets = b"server_no_context_takeover" in value

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed before the handshake: {exc}"))
        if not self.gone.done():
            self.gone.set_result(None)
        self.room.tab_gone(self)

    # frames
    def _frames(self) -> None:
        buffer = self.buffer
        size = len(buffer)
        at = 0
        while size - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            length = second & 0x7F
            head = 2
            if length == 126:
                if size - at < 4:
                    break
                length = int.from_bytes(buffer[at + 2 : at + 4], "big")
                head = 4
            elif length == 127:
                if size - at < 10:
                    break
                length = int.from_bytes(buffer[at + 2 : at + 10], "big")
                head = 10
            mask = b""
            if second & 0x80:  # servers do not mask; tolerated anyway
                if size - at < head + 4:
                    break
                mask = bytes(buffer[at + head : at + head + 4])
                head += 4
            if size - at < head + length:
                break
            payload = bytes(buffer[at + head : at + head + length])
            at += head + length
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            self._frame(first & 0x0F, bool(first & 0x80), payload, bool(first & 0x40))
        if at:
            del buffer[:at]

    def _frame(self, opcode: int, fin: bool, payload: bytes, compressed: bool) -> None:
        if opcode in (OP_TEXT, OP_BINARY, OP_CONT):
            bucket = self.room.bucket or self.room.client.bucket
            if bucket is not None:
                bucket.tab_bytes += len(payload)
        if opcode in (OP_TEXT, OP_BINARY):
            if fin:
                self._message(self._inflated(payload) if compressed else payload)
            else:
                self.partial = bytearray(payload)
                self.partial_compressed = compressed
        elif opcode == OP_CONT and self.partial is not None:
            self.partial += payload
            if fin:
                message, self.partial = bytes(self.partial), None
                self._message(self._inflated(message) if self.partial_compressed else message)
        elif opcode == OP_PING:
            self._write(_frame(OP_PONG, payload))
        elif opcode == OP_CLOSE:
            if not self.close_sent:
                self.close_sent = True
                self._write(_frame(OP_CLOSE, payload[:2]))
            if self.transport is not None:
                self.transport.close()

    def _inflated(self, payload: bytes) -> bytes:
        if self.inflater is None:  # RSV1 without the extension: not this benchmark's concern
            return payload
        message: bytes = self.inflater.decompress(payload + b"\x00\x00\xff\xff")
        if self.inflater_resets:
            self.inflater = zlib.decompressobj(-15)
        return message

    def _message(self, payload: bytes) -> None:
        now = time.monotonic()
        if self.first_at is None:
            self.first_at = now
        if payload.startswith(ANSWER):
            with contextlib.suppress(ValueError, KeyError, TypeError):
                answer = json.loads(payload)
                waiting = self.answers.pop(answer["move"], None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(int(answer["status"]))
            return
        start = payload.rfind(STAMP)
        if start >= 0:
            start += len(STAMP)
            end = payload.find(b'"', start)
            try:
                version = int(payload[start:end])
            except ValueError:
                return
            if self.seat is not None and payload.find(REGION) >= 0:
                self.forms.update(pushed_forms(payload))
            if version > self.version:
                self.version = version
                self.room.tab_reached(self, version, now)
            self.room.turn_seen(payload, version)

    # sending
    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def send_text(self, text: str) -> None:
        self._write(_frame(OP_TEXT, text.encode()))

    async def move(self, fields: list[tuple[str, str]], timeout: float, on_send: Callable[[], None]) -> int:
        """Send a move on this socket as the room page does (``app/web/moves.py``); the status of the
        answer. Raises ``HttpError("timeout")`` if none comes in time."""
        self.moves_sent += 1
        number = self.moves_sent
        answer = self.answers[number] = asyncio.get_running_loop().create_future()
        on_send()
        self.send_text(json.dumps({"move": number, "fields": [list(pair) for pair in fields]}))
        try:
            return await asyncio.wait_for(answer, timeout)
        except TimeoutError as late:
            self.answers.pop(number, None)
            raise HttpError("timeout") from late

    def close(self) -> None:
        """Close as a browser closing the tab does: a close frame (1000), then the server hangs up."""
        if not self.close_sent and self.open and not self.closed:
            self.close_sent = True
            self._write(_frame(OP_CLOSE, (1000).to_bytes(2, "big")))
        elif not self.open and self.transport is not None:
            self.transport.close()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


def handshake(host: str, port: int, path: str, cookie: str | None) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        # what Chromium and Firefox offer on every socket: a server that accepts it compresses every
        # message, at a cost in memory and CPU a tab the benchmark must see
        "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits",
        f"Origin: http://{host}:{port}",
        "User-Agent: bench_live",
    ]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


# --------------------------------------------------------------------------- HTTP
class HttpError(Exception):
    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass
class _Conn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = 0.0


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes, bool]:
    """One HTTP/1.1 response: (status, body, whether the server closes the connection after it)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length: int | None = None
    chunked = close = False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
        elif name == b"connection" and b"close" in value.lower():
            close = True
    if chunked:
        return status, await _read_chunked(reader), close
    if length is not None:
        return status, await reader.readexactly(length), close
    return status, await reader.read(), True  # the body ends with the connection


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        parts.append(await reader.readexactly(size + 2))
        if size == 0:
            break
    return b"".join(part[:-2] for part in parts)


class Http:
    """HTTP/1.1 with keep-alive to one host: at most ``limit`` requests in flight, each bounded."""

    IDLE_REUSE = 3.0  # uvicorn closes idle connections after 5 s

    def __init__(self, host: str, port: int, limit: int, timeout: float) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self.slots = asyncio.Semaphore(limit)
        self.idle: list[_Conn] = []
        self.host_line = f"Host: {host}:{port}\r\n".encode()

    async def _connection(self) -> _Conn:
        now = time.monotonic()
        while self.idle:
            conn = self.idle.pop()
            if conn.reader.at_eof() or conn.writer.is_closing() or now - conn.idle_since > self.IDLE_REUSE:
                conn.writer.close()
                continue
            return conn
        reader, writer = await asyncio.open_connection(self.host, self.port, limit=1 << 20)
        return _Conn(reader, writer)

    async def request(
        self,
        method: str,
        path: str,
        headers: str = "",
        body: bytes = b"",
        timeout: float | None = None,
        on_send: Callable[[], None] | None = None,
    ) -> tuple[int, bytes]:
        """Send one request; returns (status, body). Raises HttpError("timeout"|"connection").
        ``on_send`` is called just before the request goes out on its connection."""
        await self.slots.acquire()
        conn: _Conn | None = None
        try:
            async with asyncio.timeout(timeout or self.timeout):
                conn = await self._connection()
                if on_send is not None:
                    on_send()
                conn.writer.write(
                    f"{method} {path} HTTP/1.1\r\n".encode()
                    + self.host_line
                    + headers.encode()
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                status, data, close = await _read_response(conn.reader)
            if close:
                conn.writer.close()
            else:
                conn.idle_since = time.monotonic()
                self.idle.append(conn)
            conn = None
            return status, data
        except TimeoutError:
            raise HttpError("timeout") from None
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as failure:
            raise HttpError("connection") from failure
        finally:
            if conn is not None:
                conn.writer.close()
            self.slots.release()

    async def json(
        self, method: str, path: str, payload: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = "Accept: application/json\r\n"
        body = b""
        if payload is not None:
            body = json.dumps(payload).encode()
            headers += "Content-Type: application/json\r\n"
        if token:
            headers += f"Authorization: Bearer {token}\r\n"
        status, data = await self.request(method, path, headers, body)
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, None

    def close(self) -> None:
        for conn in self.idle:
            conn.writer.close()
        self.idle.clear()


def form_fields(action: dict[str, Any]) -> list[tuple[str, str]]:
    """An action as an htmx form posts it: nested dicts as dotted names, lists as repeated names."""
    fields: list[tuple[str, str]] = []

    def walk(name: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{name}.{key}" if name else str(key), inner)
        elif isinstance(value, list):
            for item in value:
                walk(name, item)
        elif isinstance(value, bool):
            fields.append((name, "true" if value else "false"))
        else:
            fields.append((name, str(value)))

    walk("", action)
    return fields


# A seat's moves as its page offers them: the action forms of each region a push brings.
_REGION = re.compile(rb'<section id="r-([a-z0-9-]+)"')
_ACT_FORM = re.compile(rb'<form\b[^>]*\bhx-post="/r/[^"/]+/act"[^>]*>(.*?)</form>', re.S)
_CONTROL = re.compile(rb"<(input|button)\b([^>]*)>")
_SELECT = re.compile(rb"<select\b([^>]*)>(.*?)</select>", re.S)
_OPTION = re.compile(rb"<option\b([^>]*)>")
_ATTRIBUTE = re.compile(rb'([a-zA-Z][\w-]*)(?:="([^"]*)")?')


def pushed_forms(payload: bytes) -> dict[str, list[bytes]]:
    """The action forms (their inner HTML) of each region ``payload`` brings, by region id; a region
    the push brings without one maps to none."""
    found: dict[str, list[bytes]] = {}
    starts = [(match.start(), match[1].decode()) for match in _REGION.finditer(payload)]
    for number, (start, region) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(payload)
        found[region] = [form[1] for form in _ACT_FORM.finditer(payload, start, end)]
    return found


def _attributes(text: bytes) -> dict[str, str]:
    return {name.decode(): html.unescape((value or b"").decode()) for name, value in _ATTRIBUTE.findall(text)}


def _selected(form: bytes) -> list[tuple[str, str]]:
    """Each select of the form at its selected option (else its first)."""
    fields = []
    for inside, options in _SELECT.findall(form):
        name = _attributes(inside).get("name")
        choices = [_attributes(option) for option in _OPTION.findall(options)]
        choices = [option for option in choices if "disabled" not in option and option.get("value")]
        if name and choices:
            chosen = next((option for option in choices if "selected" in option), choices[0])
            fields.append((name, chosen["value"]))
    return fields


def filled_form(form: bytes, rng: random.Random) -> list[tuple[str, str]]:
    """What a person's press of one of the form's buttons sends, with each field as the page fills it
    (a number at its value or minimum, one of each radio group, the selected or first option)."""
    fields: list[tuple[str, str]] = []
    radios: dict[str, list[str]] = {}
    buttons: list[tuple[str, str]] = []
    for tag, inside in _CONTROL.findall(form):
        attributes = _attributes(inside)
        name, kind = attributes.get("name"), attributes.get("type", "submit" if tag == b"button" else "text")
        if not name or "disabled" in attributes:
            continue
        if tag == b"button":
            if kind == "submit":
                buttons.append((name, attributes.get("value", "")))
        elif kind == "radio":
            radios.setdefault(name, []).append(attributes.get("value", "on"))
        elif kind == "checkbox":
            if "checked" in attributes:
                fields.append((name, attributes.get("value", "on")))
        elif kind in ("number", "range"):
            fields.append((name, attributes.get("value") or attributes.get("min") or "0"))
        elif kind != "submit":
            fields.append((name, attributes.get("value", "")))
    for name, values in radios.items():
        fields.append((name, rng.choice(values)))
    fields += _selected(form)
    if buttons:
        fields.append(rng.choice(buttons))
    return fields


# --------------------------------------------------------------------------- rooms and actions
class Waiter:
    """One action on its way: which of the room's tabs still lack its version."""

    __slots__ = ("target", "t0", "missing", "first", "last", "accepted", "bucket", "closed")

    def __init__(self, target: int, t0: float, tabs: list[Tab], bucket: Bucket) -> None:
        self.target = target
        self.t0 = t0
        self.missing = {tab for tab in tabs if tab.version < target}
        self.first: float | None = None  # when the first tab got it: close to when it was committed
        self.last = t0
        self.accepted: bool | None = None
        self.bucket = bucket
        self.closed = False


class Room:
    def __init__(self, client: Client, index: int) -> None:
        self.client = client
        self.index = index
        self.code = f"floor{index}"
        self.tokens: list[str] = []
        self.tabs: list[Tab] = []  # seats, then spectators
        self.version = 0
        self.to_act: list[int] = [0]
        self.to_act_version = -1  # the version ``to_act`` was read at
        self.finished = False
        self.busy = False
        self.waiters: list[Waiter] = []
        self.rng = random.Random(f"{client.seed}/{index}")
        self.bucket: Bucket | None = None  # the client's current bucket unless set
        self.next: tuple[int, dict[str, Any]] | None = None  # the next action's seat and lookup
        self.look_next = False  # a move read from the page was refused: the next one is looked up
        self.stop_at = math.inf

    @property
    def live_tabs(self) -> list[Tab]:
        return [tab for tab in self.tabs if tab.open and not tab.closed]

    def tab_reached(self, tab: Tab, version: int, now: float) -> None:
        for waiter in list(self.waiters):
            if waiter.target <= version and tab in waiter.missing:
                waiter.missing.discard(tab)
                waiter.last = now
                if waiter.first is None:
                    waiter.first = now
                if not waiter.missing and waiter.accepted:
                    self.client.delivered(self, waiter)

    def turn_seen(self, payload: bytes, version: int) -> None:
        """Whose turn it is, from a push that brought the turn region (``platform/turn.html``): the
        seat the next lookup asks for is then one the game waits for, as a player's client knows
        from its page (else ~a third of lookups asked a seat whose turn had passed, and looked again).
        Over the socket a move's answer comes after its push; an HTTP answer may come first, and the
        lookup then asks from what the tabs knew before the move."""
        start = payload.find(TURN)
        if start < 0 or version <= self.to_act_version:
            return
        start += len(TURN)
        with contextlib.suppress(ValueError):
            self.to_act = [int(seat) for seat in payload[start : payload.find(b'"', start)].split()]
            self.to_act_version = version

    def tab_gone(self, tab: Tab) -> None:
        pass  # a waiter still missing this tab counts it as lost when its grace period ends


class Client:
    """Drives one share of the rooms against Bourse (``target="bourse"``) or the floor server."""

    def __init__(
        self,
        target: str,
        host: str,
        port: int,
        *,
        mode: str = "form",
        game: str = "qe",
        players: int = 5,
        interval: float = 5.0,
        lost_after: float = 10.0,
        http_timeout: float = 30.0,
        http_limit: int = 256,
        connect_limit: int = 64,
        seed: str = "bench",
    ) -> None:
        self.target = target
        self.host = host
        self.port = port
        self.mode = mode
        self.game = game
        self.players = players
        self.interval = interval
        self.lost_after = lost_after
        self.http_timeout = http_timeout
        self.seed = seed
        self.http = Http(host, port, http_limit, http_timeout)
        self.connect_slots = asyncio.Semaphore(connect_limit)
        self.rooms: list[Room] = []
        self.bucket = Bucket()
        self.window: tuple[float, float] | None = None  # for thirds
        self.open_waiters: set[Waiter] = set()
        self.in_flight = 0
        self.stop_at = math.inf
        self.tasks: set[asyncio.Task[None]] = set()
        self.failures: Counter[str] = Counter()

    # ----------------------------------------------------------------- set-up
    async def setup_room(self, index: int, preplay: int = 0) -> Room:
        room = Room(self, index)
        if self.target == "floor":
            return room
        http = self.http
        status, made = await http.json(
            "POST", "/api/rooms", {"game": self.game, "players": self.players, "name": "P0"}
        )
        if status != 201:
            raise RuntimeError(f"create room: {status} {made}")
        room.code = made["code"]
        room.tokens = [made["token"]]
        for seat in range(1, self.players):
            status, joined = await http.json("POST", f"/api/rooms/{room.code}/join", {"name": f"P{seat}"})
            if status != 201:
                raise RuntimeError(f"join: {status} {joined}")
            room.tokens.append(joined["token"])
        status, started = await http.json("POST", f"/api/rooms/{room.code}/start", {}, token=room.tokens[0])
        if status != 200:
            raise RuntimeError(f"start: {status} {started}")
        room.version = started["version"]
        room.to_act = started["to_act"] or [0]
        for _ in range(preplay):  # unmeasured moves, to start the window later in the game
            looked = await self.look(room, Bucket())
            if looked is None:
                break
            seat, answer = looked
            action = random_legal_action(answer["legal"], room.rng)
            status, _ = await http.json(
                "POST",
                f"/api/rooms/{room.code}/actions",
                {"version": answer["version"], "action": action},
                token=room.tokens[seat],
            )
        if preplay:
            _, answer = await http.json("GET", f"/api/rooms/{room.code}", token=room.tokens[0])
            room.version = answer["version"]
            room.finished = answer["status"] != "playing"
        return room

    def tab_path(self, room: Room) -> str:
        if self.target == "floor":
            return f"/ws/{room.code}"
        return f"/ws/rooms/{room.code}?lang=en&v={room.version}"

    async def open_tab(self, room: Room, seat: int | None, timeout: float, limited: bool = True) -> Tab:
        """Open one tab's socket (``limited``: at most ``connect_limit`` handshakes at a time)."""
        cookie = None
        if seat is not None and self.target == "bourse":
            cookie = f"{SEAT_COOKIE_PREFIX}{room.code}={room.tokens[seat]}"
        request = handshake(self.host, self.port, self.tab_path(room), cookie)
        tab = Tab(room, seat, request)
        room.tabs.append(tab)
        loop = asyncio.get_running_loop()
        async with contextlib.AsyncExitStack() as stack:
            if limited:
                await stack.enter_async_context(self.connect_slots)
            async with asyncio.timeout(timeout):
                await loop.create_connection(lambda: tab, self.host, self.port)
                await tab.opened
        return tab

    async def prepare(self, indices: list[int], deadline: float, preplay: int = 0) -> dict[str, Any]:
        """Create the rooms and open every seat's tab; wait until each tab shows its room's version."""
        started = time.monotonic()
        setup_slots = asyncio.Semaphore(16)

        async def one(index: int) -> Room:
            async with setup_slots:
                return await self.setup_room(index, preplay)

        async with asyncio.timeout(max(1.0, deadline - time.monotonic())):
            self.rooms = list(await asyncio.gather(*(one(index) for index in indices)))
        rooms_at = time.monotonic()
        async with asyncio.timeout(max(1.0, deadline - time.monotonic())):
            await asyncio.gather(
                *(
                    self.open_tab(room, seat, deadline - time.monotonic())
                    for room in self.rooms
                    for seat in range(self.players)
                )
            )
            while not all(tab.version >= room.version for room in self.rooms for tab in room.tabs):
                await asyncio.sleep(0.05)
            if (
                self.target == "bourse" and self.mode != "socket"
            ):  # every room's first action, looked up ahead
                await asyncio.gather(*(self.prefetch(room) for room in self.rooms))
        self.bucket = Bucket()  # set-up lookups are not the window's
        ready_at = time.monotonic()
        return {
            "rooms": len(self.rooms),
            "tabs": sum(len(room.tabs) for room in self.rooms),
            "setup_s": rooms_at - started,
            "connect_s": ready_at - rooms_at,
        }

    # ----------------------------------------------------------------- acting
    def third_of(self, t0: float) -> int:
        if self.window is None:
            return 0
        start, end = self.window
        return min(2, max(0, int((t0 - start) * 3 / (end - start))))

    def start_waiter(self, room: Room, target: int, tabs: list[Tab]) -> Waiter:
        t0 = time.monotonic()
        waiter = Waiter(target, t0, tabs, room.bucket or self.bucket)
        room.waiters.append(waiter)
        self.open_waiters.add(waiter)
        return waiter

    def drop(self, room: Room, waiter: Waiter) -> None:
        waiter.closed = True
        if waiter in room.waiters:
            room.waiters.remove(waiter)
        self.open_waiters.discard(waiter)

    def accept(self, room: Room, waiter: Waiter) -> None:
        waiter.accepted = True
        waiter.bucket.accepted += 1
        # Thirds of the window by when the action was (about) committed, not sent: a slow server
        # commits late, and the bytes it writes fall in a later third.
        now = time.monotonic()
        waiter.bucket.accepted_by_third[self.third_of(min(waiter.first or now, now))] += 1
        if not waiter.missing:
            self.delivered(room, waiter)
        else:
            asyncio.get_running_loop().call_later(self.lost_after, self.grace_over, room, waiter)

    def delivered(self, room: Room, waiter: Waiter) -> None:
        if waiter.closed:
            return
        waiter.bucket.latencies.append(waiter.last - waiter.t0)
        self.drop(room, waiter)

    def grace_over(self, room: Room, waiter: Waiter) -> None:
        if waiter.closed:
            return
        waiter.bucket.lost_updates += len(waiter.missing)
        waiter.bucket.lost_actions += 1
        self.drop(room, waiter)

    async def look(self, room: Room, bucket: Bucket) -> tuple[int, dict[str, Any]] | None:
        """The lookup (not measured): a seat the game waits for, and its legal actions."""
        seat = room.rng.choice(room.to_act) if room.to_act else 0
        for _ in range(3):
            bucket.lookups += 1
            status, answer = await self.http.json("GET", f"/api/rooms/{room.code}", token=room.tokens[seat])
            if status != 200 or not isinstance(answer, dict):
                raise HttpError(str(status))
            if answer["status"] != "playing" or not answer["to_act"]:
                room.finished = True
                return None
            room.to_act = answer["to_act"]
            room.version = room.to_act_version = answer["version"]
            if seat in answer["to_act"] and answer["legal"]:
                return seat, answer
            seat = room.rng.choice(answer["to_act"])
        return None

    async def prefetch(self, room: Room) -> None:
        """Look up the room's next action now, so that at its tick it is sent at once: a stall of the
        server then shows in the measured latency rather than hiding in the (unmeasured) lookup."""
        try:
            room.next = await self.look(room, room.bucket or self.bucket)
        except HttpError as failure:
            room.next = None
            self.failures[f"lookup {failure.kind}"] += 1

    def from_page(self, room: Room) -> tuple[Tab, list[tuple[str, str]]] | None:
        """A move as a player makes it in ``--mode socket``: one of a waited-for seat's action forms as
        its tab's pushes brought them, filled in (``filled_form``); None when no such tab has one."""
        seats = [seat for seat in room.to_act if seat < len(room.tabs) and room.tabs[seat].forms]
        if not seats:
            return None
        tab = room.tabs[room.rng.choice(seats)]
        forms = [form for region in sorted(tab.forms) for form in tab.forms[region]]
        if not forms or not tab.open or tab.closed:
            return None
        return tab, filled_form(room.rng.choice(forms), room.rng)

    async def act_from_page(self, room: Room, tab: Tab, fields: list[tuple[str, str]]) -> None:
        bucket = room.bucket or self.bucket
        bucket.attempted += 1
        waiter = self.start_waiter(room, tab.version + 1, room.live_tabs)

        def sent() -> None:
            waiter.t0 = waiter.last = time.monotonic()

        self.in_flight += 1
        try:
            status = await tab.move(fields, self.http_timeout, sent)
        except HttpError as failure:
            status = 0
            bucket.errors[failure.kind] += 1
            self.drop(room, waiter)
        finally:
            self.in_flight -= 1
        if 200 <= status < 300:
            room.version = tab.version
            self.accept(room, waiter)
        elif 400 <= status < 500:
            bucket.refused[str(status)] += 1
            room.look_next = True
            self.drop(room, waiter)
        elif status:
            bucket.errors[str(status)] += 1
            self.drop(room, waiter)

    async def act_bourse(self, room: Room) -> None:
        """The room's next move: read from its page over the socket, or else looked up and sent."""
        move = self.from_page(room) if self.mode == "socket" and not room.look_next else None
        if move is not None:
            await self.act_from_page(room, *move)
        else:
            room.look_next = False
            await self.act_looked_up(room)

    async def act_looked_up(self, room: Room) -> None:
        bucket = room.bucket or self.bucket
        looked, room.next = room.next, None
        if looked is None:  # the lookup after the previous action failed: look now (not measured)
            await self.prefetch(room)
            looked, room.next = room.next, None
        if looked is None:
            return
        seat, answer = looked
        action = random_legal_action(answer["legal"], room.rng)
        version = answer["version"]
        tab = room.tabs[seat] if seat < len(room.tabs) else None
        if self.mode == "socket" and (tab is None or not tab.open or tab.closed):
            bucket.errors["connection"] += 1
            return
        bucket.attempted += 1
        waiter = self.start_waiter(room, version + 1, room.live_tabs)

        def sent() -> None:  # latency counts from here: a wait for a free connection is not the server's
            waiter.t0 = waiter.last = time.monotonic()

        self.in_flight += 1
        try:
            status, data = await self.send_action(room, seat, version, action, tab, sent)
        except HttpError as failure:
            status, data = 0, b""
            bucket.errors[failure.kind] += 1
            self.drop(room, waiter)
        finally:
            self.in_flight -= 1
        if 200 <= status < 300:
            room.version = version + 1
            if self.mode == "api":
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    room.to_act = json.loads(data)["to_act"]
            self.accept(room, waiter)
        elif 400 <= status < 500:
            bucket.refused[str(status)] += 1
            self.drop(room, waiter)
        elif status:
            bucket.errors[str(status)] += 1
            self.drop(room, waiter)
        if self.mode != "socket" and time.monotonic() < min(self.stop_at, room.stop_at):
            await self.prefetch(room)  # the socket's moves are read from the page (``from_page``)

    async def send_action(
        self,
        room: Room,
        seat: int,
        version: int,
        action: dict[str, Any],
        tab: Tab | None,
        sent: Callable[[], None],
    ) -> tuple[int, bytes]:
        """The action sent as ``mode`` says: its answer's status and body."""
        token = room.tokens[seat]
        if self.mode == "socket" and tab is not None:
            fields = [("version", str(version)), *form_fields(action)]
            return await tab.move(fields, self.http_timeout, sent), b""
        if self.mode == "api":
            path = f"/api/rooms/{room.code}/actions"
            headers = f"Content-Type: application/json\r\nAuthorization: Bearer {token}\r\n"
            body = json.dumps({"version": version, "action": action}).encode()
        else:
            path = f"/r/{room.code}/act"
            headers = (
                "Content-Type: application/x-www-form-urlencoded\r\nHX-Request: true\r\n"
                f"HX-Current-URL: http://{self.host}:{self.port}/r/{room.code}\r\n"
                f"Origin: http://{self.host}:{self.port}\r\n"
                f"Cookie: {SEAT_COOKIE_PREFIX}{room.code}={token}\r\n"
            )
            body = urllib.parse.urlencode([("version", str(version)), *form_fields(action)]).encode()
        return await self.http.request("POST", path, headers, body, on_send=sent)

    def act_floor(self, room: Room) -> None:
        bucket = room.bucket or self.bucket
        seated = [tab for tab in room.tabs[: self.players] if tab.open and not tab.closed]
        if not seated:
            bucket.errors["connection"] += 1
            return
        bucket.attempted += 1
        target = room.version + 1
        waiter = self.start_waiter(room, target, room.live_tabs)
        room.rng.choice(seated).send_text(str(target))
        room.version = target
        self.accept(room, waiter)

    async def room_loop(self, room: Room, start: float) -> None:
        """One action every ``interval`` seconds at this room's random phase, until ``stop_at``.
        A tick that comes while the room's previous action still runs is skipped (and counted)."""
        tick = start + room.rng.uniform(0, self.interval)
        uncounted = tick  # the first tick not yet counted as scheduled
        try:
            while not room.finished:
                now = time.monotonic()
                if tick >= min(self.stop_at, room.stop_at):
                    return
                if tick > now:
                    await asyncio.sleep(tick - now)
                    if tick >= min(self.stop_at, room.stop_at):  # the end was moved meanwhile
                        return
                (room.bucket or self.bucket).scheduled += 1
                uncounted = tick + self.interval
                room.busy = True
                try:
                    if self.target == "floor":
                        self.act_floor(room)
                    else:
                        await self.act_bourse(room)
                finally:
                    room.busy = False
                tick += self.interval
                now = time.monotonic()
                while tick <= now:  # ticks that passed while this room's action was still running
                    tick += self.interval
                uncounted = self._skip(room, uncounted, tick)
        finally:  # also when the run ends during an action: its window's remaining ticks were skipped
            if not room.finished:
                self._skip(room, uncounted, min(self.stop_at, room.stop_at))

    def _skip(self, room: Room, first: float, until: float) -> float:
        """Count the ticks from ``first`` up to ``until`` (and before the end) as scheduled but skipped."""
        bucket = room.bucket or self.bucket
        end = min(self.stop_at, room.stop_at, until)
        if not math.isfinite(end):
            return first
        while first < end:
            bucket.scheduled += 1
            bucket.skipped_ticks += 1
            first += self.interval
        return max(first, until) if math.isfinite(until) else first

    def start_acting(self, rooms: list[Room], start: float) -> None:
        for room in rooms:
            task = asyncio.create_task(self.room_loop(room, start))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def drain(self, cap: float) -> dict[str, int]:
        """After ``stop_at``: wait for actions in flight and their grace periods, at most ``cap`` s."""
        deadline = time.monotonic() + cap
        while (self.tasks or self.open_waiters) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        unanswered = 0
        for task in list(self.tasks):
            task.cancel()
            unanswered += 1
        pending = 0
        for waiter in list(self.open_waiters):
            if waiter.accepted:  # delivery still incomplete when the run had to end
                waiter.bucket.lost_updates += len(waiter.missing)
                waiter.bucket.lost_actions += 1
                pending += 1
            else:
                waiter.bucket.errors["unanswered"] += 1
            waiter.closed = True
        self.open_waiters.clear()
        for room in self.rooms:
            room.waiters.clear()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        return {"unanswered_at_end": unanswered, "undelivered_at_end": pending}

    async def close_tabs(self, tabs: list[Tab], timeout: float) -> float:
        """Close tabs at once; returns the seconds until the server hung up on all of them."""
        started = time.monotonic()
        for tab in tabs:
            tab.close()
        waiting = [tab.gone for tab in tabs if not tab.gone.done()]
        if waiting:
            await asyncio.wait(waiting, timeout=timeout)
        elapsed = time.monotonic() - started
        for tab in tabs:
            if not tab.closed:
                tab.abort()
        return elapsed

    async def shutdown(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        tabs = [tab for room in self.rooms for tab in room.tabs if not tab.closed]
        for tab in tabs:
            tab.abort()
        self.http.close()
        await asyncio.sleep(0)
